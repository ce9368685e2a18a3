// The built-in reviewer's vocabulary: which identifiers name masks, tiles, split counts,
// shared-memory sizes, accumulators, barriers, atomics and fallback switches in CUDA, C++
// and Python, and small comparisons of changed lines (similarity, guard strength,
// definitions `NAME = value`). Used by rules.cc; every list here is documented in
// doc/review.md. Pure functions.
#pragma once

#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "review/change_blocks.h"
#include "review/code_text.h"

namespace av {

bool HasWord(std::string_view identifier, std::initializer_list<std::string_view> words);
// Mask names; lengths (seqlen, s_q, s_k) count only when `comparing`.
bool IsMaskIdentifier(std::string_view id, bool comparing);
bool Compares(const CodeLine& l);  // has < <= > >= == != or min/max
bool IsMaskFunction(std::string_view name);
std::string SquashName(std::string_view name);  // "kBlockN" -> "blockn"
bool IsSplitConstant(std::string_view name);
bool IsTileConstant(std::string_view name);
bool IsConstantValue(const std::string& value);
bool IsSmemName(std::string_view name);
bool IsSmemLine(const CodeLine& l);
bool IsSoftmaxToken(const Token& t);
std::set<std::string> ExpLogFunctions(const std::vector<const CodeLine*>& lines);
bool IsCombineLine(const CodeLine& l);
std::vector<std::string> AtomicKeys(const CodeLine& l);

struct BarrierUse {
  std::string key;
  int64_t arg = -1;  // wait count (cp_async_wait<N>) when given
};
std::vector<BarrierUse> BarrierUses(const CodeLine& l);

bool IsWideType(const Token& t);
bool IsNarrowType(const Token& t);
bool IsAccumulatorName(const Token& t);
bool IsFallbackIdentifier(const Token& t, bool preprocessor);
bool IsBranchOrFlag(const CodeLine& l);
std::vector<std::string> EnvReads(const CodeLine& l);
bool IsComparison(const Token& t);
bool IsKeywordOrGuard(std::string_view s);
bool IsGuardLine(const CodeLine& l);  // if / while / for / elif / ternary
bool IsClampToken(const Token& t);    // min, max, fminf, fmaxf, clamp
bool NamesSmCount(const CodeLine& l);
bool IsDispatchCondition(const CodeLine& l);
int GuardStrength(const std::vector<const CodeLine*>& lines, bool cpp);
// Per token: the angle brackets of a template argument list (`get<0>(x)`) and the two
// halves of a shift (`x >> 5`): not comparisons.
std::vector<bool> TemplateAngles(const std::vector<Token>& t);
// t[i] is < <= > >= == != and not a template bracket.
bool IsComparisonAt(const std::vector<Token>& t, size_t i);
std::vector<std::string> ComparisonOps(const CodeLine& l);
double Similarity(const CodeLine& a, const CodeLine& b);  // shared tokens, in [0, 1]
// The line on the other side of `block` most similar to `line` (a line of `block`), at
// least `at_least`; only lines near its position are compared (renames.h PairingRange).
const CodeLine* BestMatch(const CodeLine& line, const ChangeBlock& block, double at_least);
// "NAME = VALUE", "#define NAME VALUE", "NAME{VALUE}", "'NAME': VALUE" for names `want` accepts.
std::vector<std::pair<std::string, std::string>> Definitions(const CodeLine& l,
                                                             bool (*want)(std::string_view));
std::string StripValue(std::string v);  // "64 ;" -> "64"
// The text of the `nth` call `name(...)` in a line as written (balanced parentheses), or "".
std::string CallText(const std::string& source, std::string_view name, size_t nth);
// The body of the first Python lambda in a line as written ("s <= max(k // 128, 1)"), or "".
std::string LambdaBody(const std::string& source);
bool ParseIntLiteral(const std::string& s, long long* out);
// A C/C++ integer type a cast names: int, int32_t, int64_t, uint32_t, uint64_t, size_t,
// long, unsigned, index_t, ptrdiff_t.
bool IsIntegerTypeName(std::string_view name);
std::string Shorten(std::string s, size_t max);

}  // namespace av
