// Path globs for [components] in attnverify.toml (doc/review.md), which slice a diff: `*` matches any run of
// characters except '/', `?` one character except '/', `**` any run including '/', and
// `**/` zero or more whole folders ("src/**/x.cu" matches "src/x.cu"). Every other
// character matches itself; there are no character classes. Pure functions.
#pragma once

#include <string_view>

#include "core/status.h"

namespace av {

bool GlobMatch(std::string_view pattern, std::string_view path);

// Rejects empty patterns, absolute patterns and ".." components (globs name repository paths).
Status ValidateGlob(std::string_view pattern);

}  // namespace av
