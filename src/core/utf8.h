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

}  // namespace av
