// guard.condition_changed for Python kernels (Triton, CuTe DSL) and host code: an `if`,
// `elif` or `while` edited in place whose test orders two values that vary (an index
// against a length, a block against a bound) on either side. The terms are the condition's
// parts at `and`/`or`: the question names what the new test requires that the old did not,
// or no longer requires, and asks which elements it admits now. Tests of configuration
// against literals (`if n_groups <= 0:`) ask nothing here.
#include <algorithm>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// The terms of `if A and (B or C):` at depth 0: {"A", "(B or C)"}; false for other lines.
bool PythonConditionTerms(const std::vector<Token>& t, std::vector<std::string>* terms) {
  if (t.size() < 3 || (t[0].text != "if" && t[0].text != "elif" && t[0].text != "while") ||
      t.back().text != ":") {
    return false;
  }
  terms->clear();
  size_t from = 1;
  int depth = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    if (statement::IsOpen(t[i].text)) ++depth;
    if (statement::IsClose(t[i].text)) --depth;
    const bool last = i + 1 == t.size();
    if ((depth == 0 && (t[i].text == "and" || t[i].text == "or")) || last) {
      if (i > from) terms->push_back(statement::Join(t, from, i));
      from = i + 1;
    }
  }
  return !terms->empty();
}

std::string Quoted(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < 3; ++i) {
    s += std::string(i ? ", " : "") + "`" + Shorten(items[i], 60) + "`";
  }
  return s;
}

}  // namespace

void FileReview::PythonConditions(ChangeBlock& b) {
  if (!python()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    std::vector<std::string> now, was;
    if (!PythonConditionTerms(a.tokens, &now)) continue;
    const CodeLine* rp = BestMatch(a, b, 0.5);
    if (rp == nullptr || rp->claimed || !PythonConditionTerms(rp->tokens, &was)) continue;
    if (PythonBounds(a) == 0 && PythonBounds(*rp) == 0) continue;
    std::vector<std::string> added, dropped;
    for (const std::string& x : now) {
      if (std::find(was.begin(), was.end(), x) == was.end()) added.push_back(x);
    }
    for (const std::string& x : was) {
      if (std::find(now.begin(), now.end(), x) == now.end()) dropped.push_back(x);
    }
    if (added.empty() && dropped.empty()) continue;
    CodeLine& r = const_cast<CodeLine&>(*rp);
    std::vector<CodeLine*> lines = {&r, &a};
    std::string what;
    if (!added.empty() && !dropped.empty()) {
      what = Quoted(dropped) + " -> " + Quoted(added);
    } else if (!added.empty()) {
      what = "now also tests " + Quoted(added);
    } else {
      what = "no longer tests " + Quoted(dropped);
    }
    Report(kCondition, lines,
           "condition `" + Shorten(r.code, 80) + "` -> `" + Shorten(a.code, 80) + "`" +
               InFunction(lines) + ": " + what +
               ". Which elements or programs take the branch now that did not, or no longer "
               "do (the tail past a length that is not a multiple of the tile, the last block, "
               "empty inputs), and do the loads and stores under it make the same test?");
  }
}

}  // namespace av
