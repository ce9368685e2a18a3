// UTF-8 repair for text that a program under review wrote (a candidate's stderr, file
// names it created): JSON evidence must be valid UTF-8, and a tail cut at a byte count may
// end inside a character. Stateless; any thread.
#pragma once

#include <string>
#include <string_view>

namespace av {

// `text` with every byte that is not part of a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points past U+10FFFF included) replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view text);

// Whether `text` is well-formed UTF-8 (the same rules), so that a JSON string can hold it
// unchanged: a path that is not cannot be written as one and be opened again.
bool IsValidUtf8(std::string_view text);

// The last `max_bytes` of `text` (or a little less), starting at a character boundary.
std::string_view Utf8Tail(std::string_view text, size_t max_bytes);

// `text` with every control character but newline and tab (C0, DEL, and the C1 range
// U+0080-U+009F) written as a visible escape ("\x1b", "\u009b"), so that a name taken
// from a file under review cannot move the cursor, clear the screen or retitle the
// terminal that prints it, nor hide text in a report. Valid UTF-8 otherwise unchanged.
std::string ShowControlCharacters(std::string_view text);

}  // namespace av
