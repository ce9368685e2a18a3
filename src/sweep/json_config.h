// Reading a JSON configuration file (shapes.json, tolerances.json) so that every error
// names the file, the JSON path and the problem: `shapes.json: $.sweeps[2].grid.s_k:
// must be a list of integers`. Unknown keys are errors: a typo must not silently
// weaken a test. The text goes through core's strict parser (core/json_reader.h):
// duplicate keys, numbers out of double range and nesting bombs are refused with
// FILE:LINE:COL. Plain data; any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <string_view>

#include "core/json_reader.h"
#include "core/status.h"

namespace av {

// Parses `text`; errors are "PATH:LINE:COL: what".
Result<nlohmann::json> ParseJsonConfig(std::string_view text, const std::string& path);

// The configs' readers are JsonReaders (Error, CheckKeys, CheckVersion and the typed reads).
class JsonConfigReader : public JsonReader {
 public:
  using JsonReader::JsonReader;
  const std::string& path() const { return file(); }
};

}  // namespace av
