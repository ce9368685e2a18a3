// Where each value of a JSON document starts, by JSON pointer ("/permissions/allow/2" ->
// line 14), so audit findings and rule sources can say file:line. The document is parsed
// by nlohmann first; this scanner only walks what nlohmann accepted, with bounds checks
// and a depth cap of its own. Duplicate object keys (the last one wins, in nlohmann as in
// JavaScript) are listed: a reviewer reading the first may miss the one that counts.
// Pure functions, any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

struct JsonLines {
  std::map<std::string, int> lines;         // pointer -> 1-based line of the value
  std::vector<std::string> duplicate_keys;  // pointers of keys seen twice in one object

  // The line of `pointer`, else of its nearest ancestor that has one, else 1.
  int LineOf(const std::string& pointer) const;
};

Result<JsonLines> LocateJsonValues(std::string_view text);

// RFC 6901 escaping of one reference token ("a/b" -> "a~1b").
std::string JsonPointerToken(std::string_view key);

}  // namespace av
