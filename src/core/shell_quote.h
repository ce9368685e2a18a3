// Rendering a command (an argv array, as evidence stores it) for a person to read and
// paste into a POSIX shell. Commands are never stored as text and nothing parses them
// back: this is the one way from argv to a line. Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

// One argument: a plain word (letters, digits and @ % + = : , . / - _, and ~ after the
// first character) as it is; anything else (spaces, quotes, $, non-ASCII, the empty
// string, a leading ~) in single quotes, a ' inside
// written as '\''. `attention verify/attnverify.toml` -> `'attention verify/attnverify.toml'`.
std::string ShellQuote(std::string_view arg);

// The arguments quoted and joined by single spaces.
std::string ShellJoin(const std::vector<std::string>& argv);

}  // namespace av
