// `attnverify merge`: combines the numerics.json files of `--shard i/N` runs into one.
// The shards must come from the same configuration (shapes.json and tolerances.json
// sha256, shard count, filter), hold no case twice, and cover every shard index; a
// missing shard is an error unless allowed, then a warning recorded in the result.
// Format: doc/formats/numerics-json.md ("Shards and merge"). Pure; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace av {

struct NumericsShard {
  std::string path;
  std::string sha256;  // of the file as read
  nlohmann::json doc;
};

struct MergedNumerics {
  nlohmann::json doc;                 // a numerics.json document (schema attnverify.numerics/1)
  std::vector<std::string> warnings;  // missing shards (when allowed), differing candidate commands
};

// `command` is the merge command line, recorded as the result's "command".
Result<MergedNumerics> MergeNumericsShards(const std::vector<NumericsShard>& shards,
                                           bool allow_missing, const std::string& command);

}  // namespace av
