// tests.coverage_reduced: what a change to a test file takes away from what the tests check.
// The code rules read no test file; this one reads only test files (C++ and Python under a
// test path, or a component of kind tests) and asks where the change lets less through:
// a tolerance raised, a parametrised value or case dropped or edited in place (the old case
// is no longer run), a skip or expected failure added, an assertion removed and not made
// again. A kernel change that needs its test loosened, or a case replaced rather than added,
// is what a reviewer of an agent's patch looks for first.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// A numeric literal's value (`1e-3`, `0.01`, `5e-2f`, `2`); false for hex and other forms.
bool NumberValue(const std::string& text, double* value) {
  std::string s = text;
  while (!s.empty() && (s.back() == 'f' || s.back() == 'F' || s.back() == 'l' || s.back() == 'L')) {
    s.pop_back();
  }
  if (s.empty() || s.find_first_of("xX") != std::string::npos) return false;
  char* end = nullptr;
  *value = std::strtod(s.c_str(), &end);
  return end != nullptr && *end == '\0' && std::isfinite(*value);
}

// Words that make a number on a test line a tolerance: atol/rtol/tol, allclose, assert_close,
// EXPECT_NEAR, eps, threshold. (A `max_diff` is compared with a bound: the assertion's `<`.)
bool ToleranceWord(const std::string& identifier) {
  const std::string w = ToLower(identifier);
  for (const char* k : {"tol", "allclose", "assert_close", "near", "eps", "threshold", "margin"}) {
    if (w.find(k) != std::string::npos) return true;
  }
  return false;
}

bool AssertionLine(const std::vector<Token>& t) {
  for (const Token& x : t) {
    if (x.kind != TokenKind::kIdentifier) continue;
    const std::string w = ToLower(x.text);
    if (w == "assert" || w.find("assert_") == 0 || w.find("allclose") != std::string::npos ||
        w.find("assert_close") != std::string::npos || w.rfind("expect_", 0) == 0 ||
        w.find("assert") == 0) {
      return true;
    }
  }
  return false;
}

bool SkipLine(const std::vector<Token>& t) {
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "skip" || x == "skipif" || x == "xfail" || x == "GTEST_SKIP" ||
        x.rfind("DISABLED_", 0) == 0) {
      return true;
    }
  }
  return false;
}

// The top-level items of the first `[...]` that closes on the line, as code; false when the
// line has none.
bool ListItems(const std::vector<Token>& t, std::vector<std::string>* items) {
  for (size_t open = 0; open < t.size(); ++open) {
    if (t[open].text != "[") continue;
    // A subscript (`x[i]`) is no list.
    if (open > 0 && (t[open - 1].kind == TokenKind::kIdentifier || t[open - 1].text == ")" ||
                     t[open - 1].text == "]")) {
      continue;
    }
    size_t close = 0;
    items->clear();
    for (const auto& [from, to] : statement::Items(t, open, &close)) {
      items->push_back(statement::Join(t, from, to));
    }
    return close < t.size();
  }
  return false;
}

// A line that is one case of a multi-line list: `(2, 4, 4000, 32, 96),` or `[1, 128],`.
bool CaseLine(const std::vector<Token>& t) {
  if (t.size() < 4 || (t.front().text != "(" && t.front().text != "[")) return false;
  const size_t close = statement::Closing(t, 0);
  if (close + 1 != t.size() && !(close + 2 == t.size() && t.back().text == ",")) return false;
  for (const Token& x : t) {
    if (x.kind == TokenKind::kIdentifier && x.text != "True" && x.text != "False" &&
        x.text != "None" && x.text != "torch" && x.text.find("float") == std::string::npos &&
        x.text.find("int") == std::string::npos && x.text.find("bf") == std::string::npos) {
      return false;
    }
  }
  return true;
}

// Lines whose lists are parameter values: a parametrisation, a loop over values, or a list
// named for what it sweeps.
bool SweepLine(const std::vector<Token>& t) {
  for (const Token& x : t) {
    if (x.text == "parametrize" || x.text == "product" || x.text == "INSTANTIATE_TEST_SUITE_P" ||
        x.text == "Values" || x.text == "ValuesIn") {
      return true;
    }
  }
  if (!t.empty() && t[0].text == "for") return true;
  if (t.size() >= 2 && t[0].kind == TokenKind::kIdentifier && t[1].text == "=") {
    const std::string w = ToLower(t[0].text);
    for (const char* k : {"dtype", "shape", "case", "config", "param", "size", "seqlen", "len",
                          "dim", "head", "batch", "block", "split"}) {
      if (w.find(k) != std::string::npos) return true;
    }
  }
  return false;
}

std::string Listed(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < 4; ++i) {
    s += std::string(i ? ", " : "") + "`" + Shorten(items[i], 40) + "`";
  }
  if (items.size() > 4) s += " and " + std::to_string(items.size() - 4) + " more";
  return s;
}

std::string Factor(double was, double now) {
  if (was <= 0) return "";
  const double f = now / was;
  char buf[32];
  std::snprintf(buf, sizeof buf, " (x%.3g)", f);
  return buf;
}

}  // namespace

// " in f()" for a test function; a gtest macro (`TEST`, `TEST_F`) and a decorator name none.
std::string FileReview::Where(const std::vector<CodeLine*>& lines) const {
  // A decorator sits before the function it decorates: the one around it is the previous.
  for (const CodeLine* l : lines) {
    if (!l->code.empty() && l->code[0] == '@') return "";
  }
  const std::string in = InFunction(lines);
  return in.rfind(" in TEST", 0) == 0 ? std::string() : in;
}

void FileReview::RunTests() {
  // A new or deleted test file takes nothing away from what the tests it changes check.
  if (added_file() || deleted()) return;
  for (ChangeBlock& b : blocks_) {
    TestTolerances(b);
    TestCases(b);
    TestSkips(b);
  }
  TestCasesEdited();
  TestAssertionsRemoved();
}

void FileReview::TestTolerances(ChangeBlock& b) {
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const CodeLine* rp = BestMatch(a, b, 0.5);
    if (rp == nullptr || rp->claimed) continue;
    const std::vector<Token>& x = a.tokens;
    const std::vector<Token>& y = rp->tokens;
    const auto [pre, suf] = CommonTokenEnds(x, y);
    // One number replaced by another, and nothing else.
    if (pre + suf + 1 != x.size() || pre + suf + 1 != y.size()) continue;
    if (x[pre].kind != TokenKind::kNumber || y[pre].kind != TokenKind::kNumber) continue;
    double was = 0, now = 0;
    if (!NumberValue(y[pre].text, &was) || !NumberValue(x[pre].text, &now)) continue;
    if (now <= was || (pre > 0 && x[pre - 1].text == "-")) continue;  // `1e-3` is one token
    // Named by a tolerance word on the line, or the bound of an assertion's `<` / `<=`.
    std::string name;
    for (size_t i = pre; i-- > 0 && name.empty();) {
      if (x[i].kind == TokenKind::kIdentifier && ToleranceWord(x[i].text)) name = x[i].text;
    }
    const bool bound = pre > 0 && (x[pre - 1].text == "<" || x[pre - 1].text == "<=") &&
                       AssertionLine(x);
    if (name.empty() && !bound) {
      for (const Token& t : x) {
        if (t.kind == TokenKind::kIdentifier && ToleranceWord(t.text)) name = t.text;
      }
      if (name.empty()) continue;
    }
    CodeLine& r = const_cast<CodeLine&>(*rp);
    std::vector<CodeLine*> lines = {&r, &a};
    Report(kTestsReduced, lines,
           "tolerance raised: " + (name.empty() ? std::string("the bound") : "`" + name + "`") +
               " " + y[pre].text + " -> " + x[pre].text + Factor(was, now) + Where(lines) +
               ": the test now passes results it failed before. Is it the kernel's error that "
               "grew (by how much, for which dtype and shape), and is the new bound still one "
               "a wrong result cannot meet?");
  }
}

void FileReview::TestCases(ChangeBlock& b) {
  // A list of values that loses some: `[torch.float16, torch.bfloat16]` -> `[torch.float16]`.
  for (CodeLine& a : b.added) {
    if (a.claimed || !SweepLine(a.tokens)) continue;
    const CodeLine* rp = BestMatch(a, b, 0.4);
    if (rp == nullptr || rp->claimed) continue;
    std::vector<std::string> old_items, new_items;
    if (!ListItems(rp->tokens, &old_items) || !ListItems(a.tokens, &new_items)) continue;
    // The items of one list that the other lacks (as multisets: a value listed twice and
    // now once is one gone).
    auto missing = [](const std::vector<std::string>& from, const std::vector<std::string>& in) {
      std::multiset<std::string> left(in.begin(), in.end());
      std::vector<std::string> out;
      for (const std::string& x : from) {
        auto it = left.find(x);
        if (it == left.end()) {
          out.push_back(x);
        } else {
          left.erase(it);
        }
      }
      return out;
    };
    const std::vector<std::string> gone = missing(old_items, new_items);
    const std::vector<std::string> came = missing(new_items, old_items);
    if (gone.empty()) continue;
    CodeLine& r = const_cast<CodeLine&>(*rp);
    std::vector<CodeLine*> lines = {&r, &a};
    const bool one = gone.size() == 1;
    Report(kTestsReduced, lines,
           (came.empty() ? Listed(gone) + " no longer tested"
                         : Listed(gone) + " replaced by " + Listed(came) + ": the old " +
                               (one ? "value is" : "values are") + " no longer tested") +
               Where(lines) +
               ". Does the change fail there (a regression the test would now hide), or why " +
               (one ? "is it dropped rather than kept beside the new ones?"
                    : "are they dropped rather than kept beside the new ones?"));
  }
  // One case of a multi-line list edited in place or removed.
  std::vector<CodeLine*> removed;
  for (CodeLine& r : b.removed) {
    if (r.claimed || !CaseLine(r.tokens)) continue;
    const CodeLine* ap = BestMatch(r, b, 0.5);
    if (ap != nullptr && !ap->claimed && CaseLine(ap->tokens)) {
      edited_cases_.push_back({&r, const_cast<CodeLine*>(ap)});
    } else if (ap == nullptr) {
      removed.push_back(&r);
    }
  }
  if (!removed.empty() && b.added.empty()) {
    Report(kTestsReduced, removed,
           "case `" + Shorten(removed[0]->code, 60) + "` removed" +
               (removed.size() > 1 ? " (and " + std::to_string(removed.size() - 1) + " more)"
                                   : std::string("")) +
               Where(removed) +
               ": it is no longer run. Does the change fail on it, or why is it dropped?");
  }
}

// The cases edited in place across the file, asked once: the same edit is often made in
// each list of the file (the forward and the backward test).
void FileReview::TestCasesEdited() {
  // One pair per new case line (two old lines can pair with one new line).
  std::vector<std::pair<CodeLine*, CodeLine*>> unique;
  std::set<int64_t> seen;
  for (const auto& e : edited_cases_) {
    if (seen.insert(e.second->side_line()).second) unique.push_back(e);
  }
  edited_cases_ = unique;
  // More than four cases edited is the list rewritten, not a case replaced.
  if (edited_cases_.empty() || edited_cases_.size() > 4) return;
  auto [r, a] = edited_cases_.front();
  std::string also;
  for (size_t i = 1; i < edited_cases_.size() && i <= 8; ++i) {
    also += std::string(also.empty() ? "" : ", ") +
            std::to_string(edited_cases_[i].second->side_line());
  }
  std::vector<CodeLine*> lines = {r, a};
  Report(kTestsReduced, lines,
         "case `" + Shorten(r->code, 60) + "` -> `" + Shorten(a->code, 60) + "`" +
             Where(lines) +
             (also.empty() ? std::string("")
                           : std::string(edited_cases_.size() > 2 ? " (also lines " : " (also line ") +
                                 also + ")") +
             ": the old case is no longer run. Was it failing, and should the new case be added "
             "beside it rather than replace it?");
}

// The Python test function a line belongs to or decorates (a decorator's is the next
// `def`, within 40 lines: parametrisations stack up), when the base file has no function of
// that name: a test the diff adds. Without the
// whole files: when the diff adds that `def` line and removes none of the same name.
bool FileReview::InNewTest(const CodeLine& a) const {
  const SourceOutline* head = Outline(true);
  const SourceOutline* base = Outline(false);
  auto def_name = [](const std::vector<Token>& t) {
    size_t k = !t.empty() && t[0].text == "async" ? 1 : 0;
    return t.size() > k + 1 && t[k].text == "def" && t[k + 1].kind == TokenKind::kIdentifier
               ? t[k + 1].text
               : std::string();
  };
  const bool decorator = !a.code.empty() && a.code[0] == '@';
  std::string name = decorator ? "" : a.function;
  if (head != nullptr && !decorator) {
    if (const OutlineFunction* f = head->FunctionAt(a.side_line()); f != nullptr) name = f->name;
  }
  for (int64_t n = a.side_line(); decorator && name.empty() && n <= a.side_line() + 40; ++n) {
    if (head != nullptr) {
      const std::vector<FileLine>& file = WholeFile(true);
      if (n < static_cast<int64_t>(file.size())) name = def_name(file[n].tokens);
      continue;
    }
    // The diff's own lines on the new side: added and context (the `def` may be unchanged).
    for (const Hunk& h : code_.file->hunks) {
      for (const DiffLine& x : h.lines) {
        if (x.kind != DiffLineKind::kDelete && x.new_line == n && name.empty()) {
          name = def_name(Tokenize(CommentStripper(code_.language).Strip(x.text)));
        }
      }
    }
  }
  if (name.empty() || name.rfind("TEST", 0) == 0) return false;  // gtest: one macro name
  if (head != nullptr && base != nullptr) {
    for (const OutlineFunction& g : base->functions) {
      if (g.name == name) return false;
    }
    return true;
  }
  bool added = false;
  for (const ChangeBlock& b : blocks_) {
    for (const CodeLine& x : b.removed) {
      if (def_name(x.tokens) == name) return false;
    }
    for (const CodeLine& x : b.added) added = added || def_name(x.tokens) == name;
  }
  return added;
}

void FileReview::TestSkips(ChangeBlock& b) {
  std::vector<CodeLine*> lines;
  for (CodeLine& a : b.added) {
    if (a.claimed || !SkipLine(a.tokens) || InNewTest(a)) continue;
    const CodeLine* r = BestMatch(a, b, 0.5);
    if (r != nullptr && SkipLine(r->tokens)) continue;  // a skip reworded
    lines.push_back(&a);
  }
  if (lines.empty()) return;
  Report(kTestsReduced, lines,
         "`" + Shorten(lines[0]->code, 100) + "` added" + Where(lines) +
             ": the test no longer runs, or no longer fails, where it applies. Which inputs does "
             "it cover, and does the changed code fail on them?");
}

namespace {

// Identifiers a check added in `b` uses as a subscript (`table[key]`), and a branch removed
// from `b` tests one of them: the branches' checks became a lookup.
bool ChecksMovedIntoATable(const ChangeBlock& b) {
  std::set<std::string> keys;
  for (const CodeLine& a : b.added) {
    if (!AssertionLine(a.tokens)) continue;
    const std::vector<Token>& t = a.tokens;
    for (size_t i = 1; i + 2 < t.size(); ++i) {
      if (t[i].text == "[" && t[i + 1].kind == TokenKind::kIdentifier && t[i + 2].text == "]" &&
          (t[i - 1].kind == TokenKind::kIdentifier || t[i - 1].text == "]")) {
        keys.insert(t[i + 1].text);
      }
    }
  }
  if (keys.empty()) return false;
  for (const CodeLine& r : b.removed) {
    const std::vector<Token>& t = r.tokens;
    if (t.empty() || (t[0].text != "if" && t[0].text != "elif" && t[0].text != "else")) continue;
    for (const Token& x : t) {
      if (keys.count(x.text) > 0) return true;
    }
  }
  return false;
}

}  // namespace

void FileReview::TestAssertionsRemoved() {
  // Per file: checks removed beyond those added (a check reworded or moved is no loss).
  int removed = 0, added = 0;
  std::vector<CodeLine*> lines;
  for (ChangeBlock& b : blocks_) {
    // Checks chosen by branches on a value, replaced by one check that looks its bound up in a
    // table keyed by that value, are no loss: `if blocksize <= 64: assert err < 0.1 ...`
    // -> `assert err < bound[blocksize]`.
    const bool table_driven = ChecksMovedIntoATable(b);
    for (CodeLine& r : b.removed) {
      if (!AssertionLine(r.tokens) || table_driven) continue;
      ++removed;
      // Reworded: a check on the line it pairs with both ways.
      const CodeLine* a = BestMatch(r, b, 0.5);
      const bool reworded =
          a != nullptr && BestMatch(*a, b, 0.5) == &r && AssertionLine(a->tokens);
      if (!r.claimed && !reworded) lines.push_back(&r);
    }
    // Checks of a test the diff adds check something new; they make up for nothing removed.
    for (CodeLine& a : b.added) added += AssertionLine(a.tokens) && !InNewTest(a);
  }
  if (removed <= added || lines.empty()) return;
  // The first place they were removed (one question per file, not one per run of lines).
  std::vector<CodeLine*> first;
  for (CodeLine* l : lines) {
    if (l->side_line() - lines[0]->side_line() < kMaxFindingSpan) first.push_back(l);
  }
  const size_t more = lines.size() - 1;
  lines = first;
  Report(kTestsReduced, lines,
         "check `" + Shorten(lines[0]->code, 100) + "` removed" +
             (more > 0 ? " (and " + std::to_string(more) + " more)" : std::string("")) +
             Where(lines) + " (" + std::to_string(removed) + " checks removed, " +
             std::to_string(added) +
             " added in the file): what it compared is no longer checked. Does the changed "
             "code fail it?");
}

}  // namespace av
