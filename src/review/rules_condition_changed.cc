// guard.condition_changed: a branch condition read whole (also when it spans lines), and
// the question picked from what changed in it: a term added or dropped, a bound replaced, a
// comparison tightened or loosened, a clamp moved to another expression, an assertion
// dropped; and a line whose only change is a comparison operator, and a new early exit.
// It runs before the rules that match words, so a guard is not asked about "split-k"
// because it names logsumexp_ptr.
#include <algorithm>
#include <cctype>
#include <set>

#include "review/file_review.h"
#include "review/renames.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT
using statement::Closing;            // NOLINT
using statement::Identifiers;        // NOLINT
using statement::IsClose;            // NOLINT
using statement::IsIdentifierToken;  // NOLINT
using statement::IsOpen;             // NOLINT
using statement::IsPlainWord;        // NOLINT
using statement::Join;               // NOLINT

// A branch condition: its terms at depth 0, split at && and ||.
struct Condition {
  bool found = false;
  std::vector<std::string> terms;
  bool has_or = false;
  std::string text;
};

std::string StripParens(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool wraps = true;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0) {
        wraps = false;
        break;
      }
    }
    if (!wraps) break;
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

Condition ConditionOf(const std::vector<Token>& t) {
  Condition c;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if ((t[i].text != "if" && t[i].text != "while") || t[i + 1].text != "(") continue;
    const size_t close = Closing(t, i + 1);
    if (close >= t.size()) return c;
    c.found = true;
    c.text = Join(t, i + 2, close);
    int depth = 0;
    size_t start = i + 2;
    for (size_t k = i + 2; k <= close; ++k) {
      const std::string& x = t[k].text;
      if (k < close && IsOpen(x)) ++depth;
      if (k < close && IsClose(x)) --depth;
      if (k == close || (depth == 0 && (x == "&&" || x == "||"))) {
        c.terms.push_back(StripParens(Join(t, start, k)));
        c.has_or = c.has_or || x == "||";
        start = k + 1;
      }
    }
    return c;
  }
  return c;
}

// Comparison of one term: "a < b" -> {a, "<", b}; empty op when it is not one.
struct Comparison {
  std::string lhs, op, rhs;
};
Comparison SplitComparison(const std::string& term) {
  const std::vector<Token> t = Tokenize(term);
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (IsOpen(t[i].text)) ++depth;
    if (IsClose(t[i].text)) --depth;
    const std::string& x = t[i].text;
    if (depth != 0 || t[i].kind != TokenKind::kOperator) continue;
    if (x == "<" || x == "<=" || x == ">" || x == ">=" || x == "==" || x == "!=") {
      if (IsComparisonAt(t, i)) return {Join(t, 0, i), x, Join(t, i + 1, t.size())};
    }
  }
  return {};
}

bool Loosens(const std::string& from, const std::string& to) {
  return (from == "<" && to == "<=") || (from == ">" && to == ">=");
}

bool IsBarrierWord(const Token& t) {
  if (t.kind != TokenKind::kIdentifier) return false;
  return t.text == "__syncthreads" || t.text == "__syncwarp" || t.text == "sync" ||
         t.text == "arrive_and_wait" || t.text == "cluster_sync" || t.text == "cluster_wait" ||
         t.text == "barrier_sync" || t.text == "bar_sync";
}

bool HasToken(const std::vector<Token>& t, const std::string& text) {
  for (const Token& x : t) {
    if (x.text == text) return true;
  }
  return false;
}

bool IsExit(const Token& t) {
  return t.text == "return" || t.text == "continue" || t.text == "break";
}

bool IsAssertion(const CodeLine& l) {
  if (l.tokens.size() < 2 || l.tokens[1].text != "(") return false;
  const std::string& x = l.tokens[0].text;
  if (x == "assert" || x == "static_assert" || x == "TORCH_CHECK" || x == "CUTE_STATIC_ASSERT" ||
      x == "CUTE_STATIC_ASSERT_V" || x == "CUTLASS_ASSERT" ||
      (x.size() > 7 && x.substr(x.size() - 6) == "ASSERT")) {
    return true;
  }
  // Check macros: CHECK, DCHECK, FT_CHECK, TM_CHECK_EQ, CHECK_EQ, CHECK_SHAPE (all capitals).
  const bool caps = std::none_of(x.begin(), x.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c));
  });
  return caps && (x == "CHECK" || x == "DCHECK" || x.rfind("CHECK_", 0) == 0 ||
                  x.find("_CHECK") != std::string::npos);
}

}  // namespace

namespace {

struct ConditionChange {
  enum How { kNarrower, kWider, kBound, kOther } how = kOther;
  std::vector<std::string> added, dropped;
  std::string what;
  bool ties = false;
  bool skip = false;
};

// What changed between two conditions of one branch: terms added or dropped, a bound or a
// comparison replaced; `skip` when the change asks nothing here (a rename into named
// booleans, a term loosened in place, a mask term, a loosened comparison that
// guard.bound_loosened asks).
ConditionChange ClassifyConditionChange(const Condition& oc, const Condition& nc,
                                        const std::vector<ChangeBlock>& blocks, const CodeLine& a,
                                        bool gemm) {
  ConditionChange c;
  auto skip = [&] {
    c.skip = true;
    return c;
  };
  std::vector<std::string>& added = c.added;
  std::vector<std::string>& dropped = c.dropped;
  std::string& what = c.what;
  bool& ties = c.ties;
  ConditionChange::How& how = c.how;
  for (const std::string& t : nc.terms) {
    if (std::find(oc.terms.begin(), oc.terms.end(), t) == oc.terms.end()) added.push_back(t);
  }
  for (const std::string& t : oc.terms) {
    if (std::find(nc.terms.begin(), nc.terms.end(), t) == nc.terms.end()) dropped.push_back(t);
  }
  std::string separate;
  if (dropped.empty() && !added.empty() && !nc.has_or) {
    how = ConditionChange::kNarrower;
    what = "now also requires `" + Shorten(added.front(), 80) + "`";
    for (size_t i = 1; i < added.size(); ++i) what += " and `" + Shorten(added[i], 80) + "`";
  } else if (dropped.empty() && !added.empty() && nc.has_or && !oc.has_or &&
             oc.terms.size() == 1) {
    how = ConditionChange::kWider;
    what = "now also taken when `" + Shorten(added.front(), 80) + "`";
  } else if (added.empty() && !dropped.empty() && !oc.has_or) {
    how = ConditionChange::kWider;
    what = "no longer requires `" + Shorten(dropped.front(), 80) + "`";
  } else if (added.empty() && !dropped.empty() && oc.has_or && !nc.has_or) {
    // `a || b` -> `b`: the cases where only `a` held leave this branch.
    how = ConditionChange::kNarrower;
    what = "no longer taken when only `" + Shorten(dropped.front(), 80) + "` holds";
    // Where those cases go now: an added branch of the function that tests the term.
    for (const ChangeBlock& x : blocks) {
      for (const CodeLine& l : x.added) {
        if (!separate.empty() || &l == &a || !IsGuardLine(l) || l.function != a.function) continue;
        for (const std::string& d : dropped) {
          if (l.code.find(d) != std::string::npos) {
            separate = " (it has its own branch at line " + std::to_string(l.side_line()) +
                       ": `" + Shorten(l.code, 80) + "`)";
          }
        }
      }
    }
    what += separate;
  } else if (added.size() == 1 && dropped.size() == 1 &&
             added[0].find(dropped[0]) != std::string::npos &&
             added[0].find("||") != std::string::npos) {
    how = ConditionChange::kWider;
    std::string extra = added[0];
    extra.erase(extra.find(dropped[0]), dropped[0].size());
    while (!extra.empty() && (extra[0] == '|' || extra[0] == ' ')) extra.erase(0, 1);
    while (!extra.empty() && (extra.back() == '|' || extra.back() == ' ')) extra.pop_back();
    what = "`" + dropped[0] + "` widened to `" + Shorten(added[0], 80) + "`: now also when `" +
           Shorten(extra, 60) + "`";
  } else if (added.size() == 1 && dropped.size() == 1) {
    const Comparison o = SplitComparison(dropped[0]), n = SplitComparison(added[0]);
    if (!o.op.empty() && !n.op.empty() && o.op == n.op && (o.lhs == n.lhs || o.rhs == n.rhs)) {
      how = ConditionChange::kBound;
      const bool left = o.lhs != n.lhs;
      what = "bound `" + Shorten(left ? o.lhs : o.rhs, 80) + "` -> `" +
             Shorten(left ? n.lhs : n.rhs, 80) + "` in `" + Shorten(added[0], 80) + "`";
    } else if (!o.op.empty() && o.lhs == n.lhs && o.rhs == n.rhs && o.op != n.op) {
      if (Loosens(o.op, n.op)) return skip();  // guard.bound_loosened asks this, as an error
      how = ConditionChange::kBound;
      what = "comparison `" + dropped[0] + "` -> `" + added[0] + "`";
      // Two values compared (`a[k] <= b`), no index against a length: equal values now go
      // the other way.
      bool edge = false;
      for (const std::string& side : {o.lhs, o.rhs}) {
        int sub = 0;  // names inside a subscript index the value; they bound nothing here
        for (const Token& x : Tokenize(side)) {
          sub += x.text == "[" ? 1 : x.text == "]" ? -1 : 0;
          edge = edge || (sub == 0 && x.kind == TokenKind::kIdentifier &&
                          HasWord(x.text, {"len", "length", "size", "num", "count", "end", "limit",
                                           "bound", "seqlen", "n", "m", "k"}));
        }
      }
      const bool strict = (o.op == "<=" && n.op == "<") || (o.op == ">=" && n.op == ">");
      if (strict && !edge) ties = true;
    }
  }
  if (how == ConditionChange::kOther) {
    // A condition rewritten into named booleans says nothing by itself; one rewritten into
    // other tests is asked about, never called a removed bounds check.
    bool named_only = true;
    for (const std::string& t : added) {
      const std::vector<Token> tt = Tokenize(t);
      named_only = named_only && tt.size() == 1 && tt[0].kind == TokenKind::kIdentifier;
    }
    if (named_only) return skip();
    // Only a reshaped condition (another number of terms); a term renamed or loosened in
    // place is the mask or the guard rule's question.
    if (oc.terms.size() == nc.terms.size()) return skip();
    bool mask_term = false;
    for (const auto* terms : {&added, &dropped}) {
      for (const std::string& t : *terms) {
        for (const Token& x : Tokenize(t)) {
          mask_term = mask_term || (x.kind == TokenKind::kIdentifier && IsMaskIdentifier(x.text, true));
        }
      }
    }
    if (mask_term && !gemm) return skip();
    what = "rewritten: `" + Shorten(oc.text, 80) + "` -> `" + Shorten(nc.text, 80) + "`";
  }
  return c;
}

}  // namespace

void FileReview::Conditions(ChangeBlock& b) {
  if (!cpp()) return;
  RemovedAssertions(b);
  MovedClamps(b);
  ChangedBranchConditions(b);
}

// Assertions removed and not made again: the cases they excluded now run. A line of several
// checks (`CHECK(q); CHECK(k); CHECK(v);`) counts check by check, and a check of a name the
// head file no longer has at all went with what it checked.
void FileReview::RemovedAssertions(ChangeBlock& b) {
  const SourceOutline* head = Outline(true);
  for (CodeLine& r : b.removed) {
    if (r.claimed || !IsAssertion(r)) continue;
    // The line's statements (top-level `;`).
    std::vector<std::vector<Token>> statements(1);
    int depth = 0;
    for (const Token& t : r.tokens) {
      depth += IsOpen(t.text) ? 1 : IsClose(t.text) ? -1 : 0;
      statements.back().push_back(t);
      if (depth == 0 && t.text == ";") statements.emplace_back();
    }
    if (statements.back().empty()) statements.pop_back();
    std::string gone;
    for (const std::vector<Token>& st : statements) {
      CodeLine one;
      one.tokens = st;
      if (!IsAssertion(one)) continue;
      std::string norm;
      for (const Token& t : st) norm += (norm.empty() ? "" : " ") + t.text;
      one.norm = norm;
      bool again = false;
      // Made again, maybe reworded (`gcd` -> `constexpr_gcd`): not removed.
      for (const ChangeBlock& x : blocks_) {
        for (const CodeLine& a : x.added) {
          again = again || a.norm == r.norm || a.norm.find(norm) != std::string::npos ||
                  (statements.size() == 1 && IsAssertion(a) && Similarity(a, r) >= 0.6);
        }
      }
      if (again) continue;
      if (statements.size() > 1 && head != nullptr) {
        // The checked name is gone from the head file: the check went with it.
        bool name_gone = false;
        for (size_t i = 2; i < st.size(); ++i) {
          if (!IsIdentifierToken(st[i]) || IsPlainWord(st[i].text)) continue;
          bool seen = false;
          auto word = [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
          };
          const std::string& name = st[i].text;
          for (int64_t n = 1; n <= static_cast<int64_t>(head->lines.size()) && !seen; ++n) {
            const std::string_view line = head->Line(n);
            for (size_t p = line.find(name); p != std::string_view::npos && !seen;
                 p = line.find(name, p + 1)) {
              seen = (p == 0 || !word(line[p - 1])) &&
                     (p + name.size() >= line.size() || !word(line[p + name.size()]));
            }
          }
          name_gone = name_gone || !seen;
        }
        if (name_gone) continue;
      }
      gone += std::string(gone.empty() ? "" : " ") + Join(st, 0, st.size());
    }
    if (gone.empty()) continue;
    const std::string shown =
        statements.size() > 1 ? "`" + Shorten(gone, 100) + "`" : Example({&r}, false);
    Report(kCondition, {&r},
           "assertion " + shown + " removed" + InFunction({&r}) +
               ": the cases it excluded now run. Which code after it assumed it, and do the "
               "tests sweep the cases it used to reject?");
  }
}

namespace {

// Tokens [from, to) as text without C-style and static_cast integer casts: `(int64_t)x` and
// `static_cast<int64_t>(x)` read as `x`.
std::string WithoutIntegerCasts(const std::vector<Token>& t, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < t.size(); ++i) {
    if (t[i].text == "(" && i + 2 < to && IsIntegerTypeName(t[i + 1].text) && t[i + 2].text == ")") {
      i += 2;
      continue;
    }
    if (t[i].text == "static_cast" && i + 4 < to && t[i + 1].text == "<" &&
        IsIntegerTypeName(t[i + 2].text) && t[i + 3].text == ">") {
      i += 3;  // the `(` that follows stays, with its `)`: a grouping
      continue;
    }
    out += t[i].text + " ";
  }
  return out;
}

}  // namespace

void FileReview::MovedClamps(ChangeBlock& b) {
  // A clamp that moved from one expression to another: the same min/max bound, removed
  // here and added elsewhere in the function. Not a removed bounds check.
  for (CodeLine& r : b.removed) {
    if (r.claimed) continue;
    for (size_t i = 0; i + 1 < r.tokens.size(); ++i) {
      if (!IsClampToken(r.tokens[i]) || r.tokens[i + 1].text != "(") continue;
      const size_t close = Closing(r.tokens, i + 1);
      if (close >= r.tokens.size()) continue;
      size_t comma = close;
      for (size_t k = close; k > i + 1; --k) {
        if (r.tokens[k].text == ",") {
          comma = k;
          break;
        }
      }
      const std::string bound = Join(r.tokens, comma + 1, close);
      const std::string call = Join(r.tokens, i, close + 1);
      CodeLine* moved_to = nullptr;
      for (ChangeBlock& x : blocks_) {
        for (CodeLine& a : x.added) {
          if (moved_to != nullptr || a.claimed || a.function != r.function) continue;
          const std::string& ac = a.code;
          if (ac.find(r.tokens[i].text + "(") == std::string::npos ||
              ac.find(call) != std::string::npos) {
            continue;
          }
          for (size_t k = 0; k + 1 < a.tokens.size(); ++k) {
            if (a.tokens[k].text != r.tokens[i].text || a.tokens[k + 1].text != "(") continue;
            const size_t c2 = Closing(a.tokens, k + 1);
            size_t m2 = c2;
            for (size_t q = c2; q > k + 1 && c2 < a.tokens.size(); --q) {
              if (a.tokens[q].text == ",") {
                m2 = q;
                break;
              }
            }
            // The same clamp with an integer cast added to an operand (`min(a + b, n)` ->
            // `min((int64_t)a + b, n)`) is the same clamp, widened: not moved.
            if (c2 < a.tokens.size() && Join(a.tokens, m2 + 1, c2) == bound &&
                WithoutIntegerCasts(a.tokens, k, c2 + 1) !=
                    WithoutIntegerCasts(r.tokens, i, close + 1)) {
              moved_to = &a;
            }
          }
        }
      }
      if (moved_to == nullptr) continue;
      std::vector<CodeLine*> lines = {&r, moved_to};
      // The block's other body lines go with it (the index it fed); a signature does not.
      for (auto* side : {&b.removed, &b.added}) {
        for (CodeLine& x : *side) {
          if (&x != &r && &x != moved_to && !x.claimed && !x.in_signature) lines.push_back(&x);
        }
      }
      Report(kCondition, lines,
             "clamp moved: `" + call + "` removed at line " + std::to_string(r.line->old_line) +
                 ", `" + Shorten(moved_to->code, 100) + "` added at line " +
                 std::to_string(moved_to->line->new_line) + InFunction(lines) +
                 ": the same bound now limits another value. Is `" + Shorten(bound, 60) +
                 "` the right limit for it (the last valid element or a count; elements or "
                 "rows), and do the lanes it now clamps read a value they may use?");
      break;
    }
  }
}

void FileReview::ChangedBranchConditions(ChangeBlock& b) {
  // Branch conditions that changed: terms added or dropped, a bound replaced.
  for (CodeLine& a : b.added) {
    if (a.claimed || !IsGuardLine(a)) continue;
    const Statement now = StatementAround(a);
    const Condition nc = ConditionOf(now.tokens);
    if (!nc.found) continue;
    // The removed statement it replaces: the removed guard line most like it, else the
    // nearest removed `if`/`while` line of the block (a condition rewritten whole).
    const CodeLine* r = BestMatch(a, b, 0.3);
    if (r == nullptr) {
      const std::string kw = now.tokens.empty() ? "" : now.tokens[0].text;
      for (const CodeLine& x : b.removed) {
        if (!x.claimed && !x.tokens.empty() && x.tokens[0].text == kw &&
            (kw == "if" || kw == "while")) {
          r = &x;
          break;
        }
      }
    }
    if (r == nullptr || r->claimed) continue;
    const Statement was = StatementAround(*r);
    const Condition oc = ConditionOf(was.tokens);
    if (!oc.found || oc.text == nc.text) continue;
    const ConditionChange c = ClassifyConditionChange(oc, nc, blocks_, a, gemm());
    if (c.skip) continue;
    const std::vector<std::string>& added = c.added;
    const std::vector<std::string>& dropped = c.dropped;
    const std::string& what = c.what;
    const bool ties = c.ties;
    const ConditionChange::How how = c.how;
    std::string tail;
    // What the branch does: a barrier or an early exit in it decides the question.
    std::string barrier, exit;
    BranchBarrierAndExit(now, &barrier, &exit);
    if (ties) {
      tail = std::string(": equal values now take the other path") +
             (exit.empty() ? "" : " (and the branch leaves with `" + exit + "`)") +
             ". Is the order of equal elements (ties) what the callers expect, and is every "
             "element still placed once?";
    } else if (!barrier.empty()) {
      tail = std::string(": the barrier in the branch (`") + barrier + "`) now runs " +
             (how == ConditionChange::kNarrower ? "in fewer cases" : how == ConditionChange::kWider ? "in more cases"
                                                                  : "under another condition") +
             ". Does every thread that must meet at it evaluate the condition alike (a "
             "compile-time or block-uniform value), and which shared-memory write does it order "
             "before which read in the cases that changed?";
    } else if (!exit.empty()) {
      tail = std::string(": the branch leaves early (`") + exit + "`), now " +
             (how == ConditionChange::kNarrower ? "in fewer cases" : how == ConditionChange::kWider ? "in more cases"
                                                                  : "under another condition") +
             ". For the cases that changed, are the outputs (O, LSE) still written, and do the "
             "other threads or warps that meet this one at a barrier or pipeline take the same "
             "path?";
    } else if (how == ConditionChange::kNarrower) {
      tail =
          ": the cases where it is false now take the other path. Is that path right for them "
          "(and fast enough), and is this the only place that assumed the old condition?";
    } else if (how == ConditionChange::kWider) {
      tail =
          ": the branch now runs for cases it skipped. Is it right for them, and do the other "
          "places that test the old condition agree?";
    } else if (how == ConditionChange::kOther) {
      tail =
          ": the cases where the two conditions differ now take the other path. Which are they, "
          "and is each right (a value the old test caught, a layout the new one adds)?";
    } else {
      tail = BoundQuestion(a, now, dropped[0], added[0]);
    }
    std::vector<CodeLine*> lines = {&a, const_cast<CodeLine*>(r)};
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& x : *side) {
        const bool in_statement = x.added ? (x.side_line() >= now.first && x.side_line() <= now.last)
                                          : (x.side_line() >= was.first && x.side_line() <= was.last);
        if (in_statement && !x.claimed && &x != &a && &x != r) lines.push_back(&x);
      }
    }
    Report(kCondition, lines, "condition " + what + InFunction(lines) + tail);
  }
}

// The branch a changed condition guards (the rest of its statement, and while its braces stay
// open the lines after it, or the one statement after a brace-less `if (...)`; at most 8
// lines): its first barrier and early exit.
void FileReview::BranchBarrierAndExit(const Statement& now, std::string* barrier,
                                      std::string* exit) const {
  // What the branch does: a barrier or an early exit in it decides the question.
  // The branch: the rest of the statement, and while its braces stay open the lines after
  // it (or the one statement after a brace-less `if (...)`), at most 8 lines.
  std::vector<Token> body = now.tokens;
  int braces = 0;
  for (const Token& t : now.tokens) braces += t.text == "{" ? 1 : t.text == "}" ? -1 : 0;
  const bool braceless = !now.code.empty() && now.code.back() == ')';
  const SourceOutline* o = Outline(true);
  if (o != nullptr && (braces > 0 || braceless)) {
    CommentStripper strip(code_.language);
    for (int64_t n = now.last + 1; n <= now.last + 8; ++n) {
      const std::vector<Token> t = Tokenize(strip.Strip(o->Line(n)));
      for (const Token& x : t) {
        braces += x.text == "{" ? 1 : x.text == "}" ? -1 : 0;
        if (braces < 0) break;
        body.push_back(x);
      }
      if (braces <= 0 && !(braceless && t.empty())) break;
    }
  }
  for (const Token& t : body) {
    if (barrier->empty() && IsBarrierWord(t)) *barrier = t.text;
    if (exit->empty() && IsExit(t)) *exit = t.text;
  }
}

// A bound replaced in a comparison: which elements the new one admits, and the lines that
// still read the old bound's names.
std::string FileReview::BoundQuestion(const CodeLine& a, const Statement& now,
                                      const std::string& dropped, const std::string& added) const {
    std::string still;
    const Comparison oc1 = SplitComparison(dropped), nc1 = SplitComparison(added);
    const std::string old_side = oc1.lhs != nc1.lhs ? oc1.lhs : oc1.rhs;
    const std::string new_side = oc1.lhs != nc1.lhs ? nc1.lhs : nc1.rhs;
    const std::set<std::string> gone_ids = [&] {
      const std::vector<Token> ot = Tokenize(old_side), nt = Tokenize(new_side);
      // Objects (`epilogue_params.`) say little; the member or value read does.
      std::set<std::string> g;
      for (size_t i = 0; i < ot.size(); ++i) {
        const bool object = i + 1 < ot.size() && (ot[i + 1].text == "." || ot[i + 1].text == "->");
        if (IsIdentifierToken(ot[i]) && !object) g.insert(ot[i].text);
      }
      for (const std::string& x : Identifiers(nt, 0, nt.size())) g.erase(x);
      return g;
    }();
    for (const std::string& id : gone_ids) {
      if (IsPlainWord(id)) continue;
      const std::string uses = UnchangedUses(a, id, now, 2, false);
      if (!uses.empty()) {
        still = " `" + id + "` is still used at line" +
                (uses.find(", ") != std::string::npos ? "s " : " ") + uses + ".";
        break;
      }
    }
    return
        ": which elements does the new bound admit? Is it the length the index counts (this "
        "sequence's or the whole tensor's; inclusive or exclusive), and do the other guards "
        "and copies of the same buffer use the same bound?" +
        still;
}

void FileReview::ComparisonsAndExits(ChangeBlock& b) {
  if (!cpp()) return;
  // A line whose only change is a comparison operator (`f(n == 0)` -> `f(n <= 0)`), outside
  // a guard (a loosened guard is guard.bound_loosened's error).
  for (CodeLine& a : b.added) {
    if (a.claimed || IsGuardLine(a)) continue;
    CodeLine* r = const_cast<CodeLine*>(BestMatch(a, b, 0.5));
    if (r == nullptr || r->claimed || r->tokens.size() != a.tokens.size()) continue;
    std::string from, to;
    bool only_ops = true;
    for (size_t i = 0; i < a.tokens.size() && only_ops; ++i) {
      if (a.tokens[i].text == r->tokens[i].text) continue;
      if (IsComparisonAt(a.tokens, i) && IsComparisonAt(r->tokens, i) && from.empty()) {
        from = r->tokens[i].text;
        to = a.tokens[i].text;
      } else {
        only_ops = false;
      }
    }
    if (!only_ops || from.empty()) continue;
    // `sizeof(T) == 2` -> `sizeof(T) <= 2`: the path is chosen by the element type.
    bool by_type = false;
    for (size_t i = 0; i + 1 < a.tokens.size(); ++i) {
      by_type = by_type || (a.tokens[i].text == "sizeof" && a.tokens[i + 1].text == "(");
    }
    if (by_type) {
      Report(kCondition, {&a, r},
             "comparison `" + from + "` -> `" + to + "` on a type's size in " + Example({&a}, true) +
                 InFunction({&a}) +
                 ": other element types now take this path (8-bit types when `== 2` becomes "
                 "`<= 2`). Do the warp layout, shared-memory sizes and helpers this flag selects "
                 "hold for them, and do the other places that choose by the same type agree?");
      continue;
    }
    Report(kCondition, {&a, r},
           "comparison `" + from + "` -> `" + to + "` in " + Example({&a}, true) + InFunction({&a}) +
               ": the test now holds for other values (" +
               (to.size() > from.size() || from == "==" ? "the ones past the old edge too"
                                                        : "fewer of them") +
               "). Can the value reach them (a count of 0 or below, an index past the end), and "
               "do the other tests of the same value agree?");
  }
  // A new branch that leaves early when a comparison holds: the work after it is skipped.
  if (added_file()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed || !IsGuardLine(a) || HasToken(a.tokens, "constexpr")) continue;
    const CodeLine* r = BestMatch(a, b, 0.3);
    if (r != nullptr && IsGuardLine(*r)) continue;  // a changed condition, not a new branch
    const Statement now = StatementAround(a);
    const Condition c = ConditionOf(now.tokens);
    if (!c.found || SplitComparison(c.terms.front()).op.empty()) continue;
    std::vector<Token> body = now.tokens;
    const SourceOutline* o = Outline(true);
    int braces = 0;
    for (const Token& t : now.tokens) braces += t.text == "{" ? 1 : t.text == "}" ? -1 : 0;
    if (o != nullptr && braces > 0) {
      CommentStripper strip(code_.language);
      for (int64_t n = now.last + 1; n <= now.last + 24 && braces > 0; ++n) {
        for (const Token& x : Tokenize(strip.Strip(o->Line(n)))) {
          braces += x.text == "{" ? 1 : x.text == "}" ? -1 : 0;
          if (braces > 0) body.push_back(x);
        }
      }
    }
    std::string exit;
    for (const Token& t : body) {
      if (exit.empty() && IsExit(t)) exit = t.text;
    }
    if (exit.empty()) continue;
    std::vector<CodeLine*> lines = {&a};
    for (CodeLine& x : b.added) {
      if (&x != &a && !x.claimed && x.side_line() > a.side_line() &&
          x.side_line() <= now.last + 24 && HasToken(x.tokens, exit)) {
        lines.push_back(&x);
        break;
      }
    }
    Report(kCondition, lines,
           "new early exit (`" + exit + "`) when `" + Shorten(c.text, 100) + "`" + InFunction(lines) +
               ": the work after it no longer runs in those cases. Are their outputs (O, LSE, "
               "dK/dV, split counts) still written, by this branch or another, and do the "
               "threads that leave skip no barrier or pipeline step the others wait at?");
  }
  // An early exit removed (`return;` under a test, not made again in the function): the
  // work after it now also runs in the cases that left.
  for (CodeLine& r : b.removed) {
    if (r.claimed || r.tokens.size() != 2 || r.tokens[1].text != ";" || !IsExit(r.tokens[0])) {
      continue;
    }
    bool again = false;
    for (const ChangeBlock& x : blocks_) {
      for (const CodeLine& a : x.added) {
        // The same bare exit (`return;`), not a value returned by a neighbouring function.
        for (size_t i = 0; i + 1 < a.tokens.size() && !again; ++i) {
          again = a.function == r.function && a.tokens[i].text == r.tokens[0].text &&
                  a.tokens[i + 1].text == ";";
        }
      }
    }
    if (again) continue;
    // The test it was under: the nearest removed guard line above it in this block.
    const CodeLine* guard = nullptr;
    for (const CodeLine& x : b.removed) {
      if (x.side_line() < r.side_line() && x.side_line() >= r.side_line() - 4 && IsGuardLine(x)) {
        guard = &x;
      }
    }
    std::vector<CodeLine*> lines = {&r};
    if (guard != nullptr && !guard->claimed) lines.push_back(const_cast<CodeLine*>(guard));
    Report(kCondition, lines,
           "early `" + r.tokens[0].text + "` removed" +
               (guard != nullptr ? " (it left when `" + Shorten(guard->code, 80) + "`)"
                                 : std::string("")) +
               InFunction(lines) +
               ": the code after it now also runs in the cases that left. Is it meant to run "
               "there (an output written twice or by the wrong block, a buffer read before it "
               "is filled, a barrier the other threads do not reach)?");
  }
}

}  // namespace av

namespace av {

// A branch condition negated in place (`if (is_last)` -> `if (!is_last)`): the branch and its
// else swap the cases they run. Conditions() compares terms and bounds and sees the same
// ones on both sides; this asks the question the flip raises.
void FileReview::NegatedConditions(ChangeBlock& b) {
  if (!cpp()) return;
  // The condition of an `if`/`while` line: tokens inside its parentheses, or empty.
  auto condition = [](const CodeLine& l) -> std::vector<Token> {
    const auto& t = l.tokens;
    size_t i = 0;
    while (i < t.size() && t[i].text != "if" && t[i].text != "while") ++i;
    if (i + 1 >= t.size()) return {};
    size_t open = i + 1;
    if (t[open].text == "constexpr") ++open;
    if (open >= t.size() || t[open].text != "(") return {};
    const size_t close = Closing(t, open);
    if (close >= t.size()) return {};
    return std::vector<Token>(t.begin() + open + 1, t.begin() + close);
  };
  auto text = [](const std::vector<Token>& t, size_t from, size_t to) {
    std::string s;
    for (size_t i = from; i < to; ++i) s += t[i].text + " ";
    return s;
  };
  // `!x` or `!(x)` of `x`.
  auto negates = [&](const std::vector<Token>& n, const std::vector<Token>& o) {
    if (n.size() < 2 || n[0].text != "!") return false;
    if (text(n, 1, n.size()) == text(o, 0, o.size())) return true;
    return n[1].text == "(" && Closing(n, 1) == n.size() - 1 &&
           text(n, 2, n.size() - 1) == text(o, 0, o.size());
  };
  for (size_t ai = 0; ai < b.added.size(); ++ai) {
    CodeLine& a = b.added[ai];
    if (a.claimed || !IsGuardLine(a)) continue;
    const std::vector<Token> na = condition(a);
    if (na.empty()) continue;
    // Lines near its position only: the cost stays linear in the block.
    size_t lo = 0, hi = 0;
    PairingRange(ai, b.added.size(), b.removed.size(), &lo, &hi);
    for (size_t ri = lo; ri < hi; ++ri) {
      CodeLine& r = b.removed[ri];
      if (r.claimed || !IsGuardLine(r)) continue;
      const std::vector<Token> nr = condition(r);
      if (nr.empty() || !(negates(na, nr) || negates(nr, na))) continue;
      std::vector<CodeLine*> lines = {&r, &a};
      Report(kCondition, lines,
             "condition negated: " + OldToNew(lines) + InFunction(lines) +
                 ": the branch now runs in exactly the cases it skipped, and its `else` (or the "
                 "code after it) in the others. Does every path now reach the right threads, "
                 "blocks or splits: the writes, the waits and posts that pair with other blocks, "
                 "the early exits?");
      break;
    }
  }
}

}  // namespace av
