// Writing JSON: the one way attnverify turns a JSON value into text. Strings that are not
// valid UTF-8 (a candidate's stderr cut inside a character, a Latin-1 folder name, a git
// ref given as bytes) are written with U+FFFD in place of each bad byte instead of
// throwing, so no input can stop evidence from being written. Pure; any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace av {

// `indent` < 0: one line; otherwise pretty-printed with that many spaces.
std::string DumpJson(const nlohmann::json& value, int indent = -1);

// The text of a JSON file: pretty-printed with two spaces, ending in a newline.
std::string JsonFileText(const nlohmann::json& value);

// `text` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD
// (for text outside JSON that must be valid UTF-8 too, and for tests).
std::string ValidUtf8(const std::string& text);

}  // namespace av
