// A small integer expression evaluator for byte counts: decimal or hex literals (with
// C++ digit separators and u/l suffixes), named constants, + - * / % and parentheses,
// e.g. "kBlockM * kHeadDim * 2 + 1024". Used by attnverify.toml's dynamic_smem and by
// the source scan for cudaFuncSetAttribute values. Overflow, division by zero and
// nesting over 64 levels are errors. Pure function; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

using IntConstants = std::map<std::string, int64_t, std::less<>>;

// InvalidInput naming the offending token; the caller adds file:line context.
Result<int64_t> EvaluateIntExpression(std::string_view expr, const IntConstants& constants);

}  // namespace av
