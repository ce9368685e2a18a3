// `attnverify merge`: combines the numerics.json files of `--shard i/N` runs into one.
// The shards must come from the same configuration (shapes.json and tolerances.json
// sha256, shard count, filter) and from one run (the same run identity: a shard left by
// an earlier run is refused), hold no case twice, and cover every shard index; a
// missing shard is an error unless allowed, then a warning recorded in the result.
// Shards are read with the one numerics.json schema (schema/numerics_json.h).
// Format: doc/formats/numerics-json.md ("Shards and merge"). Pure; any thread.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "schema/numerics_json.h"

namespace av {

struct NumericsShard {
  std::string path;    // as recorded in the result's shard.merged_from
  std::string sha256;  // of the file as read
  NumericsRecord record;
};

struct MergedNumerics {
  NumericsRecord record;              // schema attnverify.numerics/2
  std::vector<std::string> warnings;  // missing shards (when allowed), differing candidate commands
};

// `provenance` is the merge stage's block; the shards become its inputs.
Result<MergedNumerics> MergeNumericsShards(const std::vector<NumericsShard>& shards,
                                           bool allow_missing, Provenance provenance);

}  // namespace av
