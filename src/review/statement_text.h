// Helpers shared by the rules that read a changed statement whole (guard.condition_changed in
// rules_condition_changed.cc, value.definition_changed in rules_definition_changed.cc): token
// ranges joined back into text, bracket matching, the identifiers of a range.
#ifndef AV_REVIEW_STATEMENT_TEXT_H_
#define AV_REVIEW_STATEMENT_TEXT_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "review/code_text.h"

namespace av::statement {

// Tokens [from, to) as code text: `f(x)`, `a[i]` tight, `a < (b + 1)` spaced.
std::string Join(const std::vector<Token>& t, size_t from, size_t to);
bool IsOpen(const std::string& x);
bool IsClose(const std::string& x);
// The index of the bracket closing the one at `open`, or t.size().
size_t Closing(const std::vector<Token>& t, size_t open);
bool IsIdentifierToken(const Token& t);
// The identifiers (not keywords) of tokens [from, to).
std::set<std::string> Identifiers(const std::vector<Token>& t, size_t from, size_t to);
// The items between the bracket at `open` and the one closing it, split at its top-level
// commas: [begin, end) token ranges; `*close` gets the closing bracket (t.size() if none).
std::vector<std::pair<size_t, size_t>> Items(const std::vector<Token>& t, size_t open,
                                             size_t* close);
// Identifiers too common to say anything when they are "still used" somewhere.
bool IsPlainWord(const std::string& s);

}  // namespace av::statement

#endif  // AV_REVIEW_STATEMENT_TEXT_H_
