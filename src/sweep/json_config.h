// Reading a JSON configuration file (shapes.json, tolerances.json) so that every error
// names the file, the JSON path and the problem: `shapes.json: $.sweeps[2].grid.s_k:
// must be a list of integers`. Unknown keys are errors: a typo must not silently
// weaken a test. Plain data; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

// Parses `text`; a syntax error names `path` and nlohmann's byte position.
Result<nlohmann::json> ParseJsonConfig(std::string_view text, const std::string& path);

class JsonConfigReader {
 public:
  explicit JsonConfigReader(std::string path) : path_(std::move(path)) {}

  Status Error(const std::string& where, const std::string& what) const {
    return InvalidInput(path_ + ": " + where + ": " + what);
  }
  // `$.version` must be present and equal to `version`.
  Status CheckVersion(const nlohmann::json& doc, int version) const;
  // Every key of `object` must be in `allowed`.
  Status CheckKeys(const nlohmann::json& object, const std::string& where,
                   const std::set<std::string>& allowed) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace av
