// Boundary rules: guards loosened or removed, clamps added, tile-edge branches, early
// returns for empty work.
#include <algorithm>
#include <cctype>

#include "review/file_review.h"
#include "review/statement_text.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT

struct Clamp {
  std::string name;  // "max", "clamp"
  size_t nth = 0;    // which call of that name on the line
  int bound = -1;    // 0 or 1 for max(0|1, x); -1 for clamp(...)
  std::string arg;   // the clamped expression as written (tokens joined)
  bool arg_is_name = false;
  bool arg_is_load = false;  // __ldg(...), p[i], *p
};

// Lower clamps on a line: max(1, n), std::max(x, 0), Python max(k // 128, 1), clamp(...).
std::vector<Clamp> LowerClamps(const CodeLine& l) {
  std::vector<Clamp> out;
  const auto& t = l.tokens;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || t[i + 1].text != "(") continue;
    if (i > 0 && (t[i - 1].text == "." || t[i - 1].text == "->")) continue;
    const bool max = t[i].text == "max" || t[i].text == "fmax";
    if (!max && t[i].text != "clamp") continue;
    size_t nth = 0;
    for (size_t k = 0; k < i; ++k)
      nth += t[k].text == t[i].text && k + 1 < t.size() && t[k + 1].text == "(";
    // Split the arguments at depth 1.
    std::vector<std::vector<const Token*>> args(1);
    int depth = 0;
    size_t k = i + 1;
    for (; k < t.size(); ++k) {
      const std::string& x = t[k].text;
      if (x == "(" || x == "[" || x == "{") {
        if (depth++ == 0) continue;
      } else if (x == ")" || x == "]" || x == "}") {
        if (--depth == 0) break;
      } else if (x == "," && depth == 1) {
        args.emplace_back();
        continue;
      }
      args.back().push_back(&t[k]);
    }
    Clamp c;
    c.name = t[i].text;
    c.nth = nth;
    if (max) {
      if (args.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        const auto& a = args[side];
        if (a.size() == 1 && a[0]->kind == TokenKind::kNumber &&
            (a[0]->text == "0" || a[0]->text == "1" || a[0]->text == "0u" || a[0]->text == "1u")) {
          c.bound = a[0]->text[0] - '0';
          for (const Token* x : args[1 - side]) {
            c.arg +=
                (c.arg.empty() || x->text == "(" || x->text == ")" || c.arg.back() == '(' ? ""
                                                                                          : " ") +
                x->text;
            c.arg_is_load = c.arg_is_load || x->text == "__ldg" || x->text == "[" ||
                            x->text == "*" || x->text == "->";
          }
          c.arg_is_name =
              args[1 - side].size() == 1 && args[1 - side][0]->kind == TokenKind::kIdentifier;
        }
      }
      if (c.bound < 0) continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

bool Mentions(const std::vector<Token>& t, const std::string& name) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == TokenKind::kIdentifier && t[i].text == name) return true;
  }
  return false;
}

// Uses of `name` outside any clamp and not its own definition.
bool UsedUnclamped(const std::vector<Token>& t, const std::string& name) {
  int clamp_depth = 0, depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text == "(") {
      ++depth;
      if (i > 0 && (t[i - 1].text == "max" || t[i - 1].text == "clamp") && clamp_depth == 0) {
        clamp_depth = depth;
      }
    }
    if (t[i].text == ")") {
      if (depth == clamp_depth) clamp_depth = 0;
      --depth;
    }
    if (t[i].kind == TokenKind::kIdentifier && t[i].text == name && clamp_depth == 0) {
      if (i + 1 < t.size() && t[i + 1].text == "=") return false;  // its definition
      return true;
    }
  }
  return false;
}

bool IsIndexName(std::string_view s) {
  return s == "blockIdx" || s == "idx" || HasWord(s, {"idx"}) ||
         (s.size() > 4 && s.substr(s.size() - 4) == "_idx");
}

// A bound on a tile or sequence edge: SHAPE_N / BLOCK_N, num_m_blocks, seqlen_k, kBlockN.
bool IsEdgeName(std::string_view s) {
  if (IsTileConstant(s)) return true;
  return HasWord(s, {"shape", "seqlen", "seqlens", "len", "length", "blocks", "tiles", "size"}) &&
         !HasWord(s, {"idx"});
}

bool IsEmptyTest(const CodeLine& l) {
  const auto& t = l.tokens;
  // `k % pack == 0` tests divisibility, not emptiness.
  for (const Token& x : t) {
    if (x.text == "%") return false;
  }
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const bool zero =
        t[i + 1].kind == TokenKind::kNumber && (t[i + 1].text == "0" || t[i + 1].text == "0u");
    if ((t[i].text == "==" || t[i].text == "<=") && zero) return true;
    if (t[i].text == "<" && t[i + 1].text == "1") return true;
  }
  return false;
}

}  // namespace

int FileReview::StatementGuardStrength(const CodeLine& l) const {
  int n = GuardStrength({&l}, cpp());
  if (IsGuardLine(l) || !cpp()) return n;
  // A continuation line of an `if`/`for`/`while` split over lines carries its comparisons
  // (`for (int i = 0;` / `i < n;`, `if (a ||` / `(i < n &&`).
  const Statement st = StatementAround(l);
  const auto& t = st.tokens;
  bool ternary = false, named_test = false;
  for (const Token& x : t) ternary = ternary || x.text == "?";
  // `const bool valid = idx < d;` names the test a branch or ternary then uses.
  for (size_t i = 0; i < t.size() && t[i].text != "="; ++i) named_test = named_test || t[i].text == "bool";
  ternary = ternary || named_test;
  const bool guard = !t.empty() && (t[0].text == "if" || t[0].text == "for" ||
                                    t[0].text == "while" || t[0].text == "else" || ternary);
  if (!guard) return n;
  const std::vector<bool> angle = TemplateAngles(l.tokens);
  for (size_t i = 0; i < l.tokens.size(); ++i) {
    if (IsComparison(l.tokens[i]) && !angle[i]) ++n;
  }
  return n;
}

bool FileReview::BoundTestedAgain(const CodeLine& r) const {
  // The comparisons of the removed line: operator and the name right of it (`< qi_end`),
  // or left of it for `>`-style tests (`qi_end > i`).
  std::vector<std::pair<std::string, std::string>> tests;
  const std::vector<Token>& t = r.tokens;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    if (!IsComparisonAt(t, i)) continue;
    if (t[i + 1].kind == TokenKind::kIdentifier) tests.push_back({t[i].text, t[i + 1].text});
    if (t[i - 1].kind == TokenKind::kIdentifier) tests.push_back({"lhs" + t[i].text, t[i - 1].text});
  }
  if (tests.empty()) return false;
  for (const auto& [op, bound] : tests) {
    bool again = false;
    for (const ChangeBlock& x : blocks_) {
      for (const CodeLine& a : x.added) {
        if (again || a.function != r.function || !IsGuardLine(a)) continue;
        for (size_t i = 1; i + 1 < a.tokens.size() && !again; ++i) {
          if (!IsComparisonAt(a.tokens, i)) continue;
          again = (op == a.tokens[i].text && a.tokens[i + 1].text == bound) ||
                  (op == "lhs" + a.tokens[i].text && a.tokens[i - 1].text == bound);
        }
      }
    }
    if (!again) return false;
  }
  return true;
}

std::string FileReview::NameGoneFromHead(const CodeLine& r) const {
  const SourceOutline* head = Outline(true);
  if (head == nullptr) return "";  // without the whole file nothing is known gone
  if (!head_names_built_) {
    head_names_built_ = true;
    CommentStripper strip(code_.language);
    for (int64_t n = 1; n <= static_cast<int64_t>(head->lines.size()); ++n) {
      const std::string code = strip.Strip(head->Line(n));  // a line's first 16 KiB, like every rule
      for (const Token& x : Tokenize(std::string_view(code).substr(0, 16384))) {
        if (x.kind == TokenKind::kIdentifier) head_names_.insert(x.text);
      }
    }
  }
  const std::vector<Token>& t = r.tokens;
  size_t start = 0;  // the names a definition's test reads, not the name it defines
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text == "=") {
      start = i + 1;
      break;
    }
    if (t[i].text == "(" || t[i].text == "==" || t[i].text == "<") break;
  }
  const std::vector<bool> angle = TemplateAngles(t);
  for (size_t i = start; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || t[i].text.size() < 3) continue;
    if (t[i].text == "nullptr" || t[i].text == "None" || t[i].text == "true" ||
        t[i].text == "false" || t[i].text == "True" || t[i].text == "False") {
      continue;
    }
    if (i + 1 < t.size() && (t[i + 1].text == "(" || angle[i + 1])) continue;  // a call
    if (!head_names_.count(t[i].text)) return t[i].text;
  }
  return "";
}

// Python: the comparisons of a line that order two values that vary (`start < end`,
// `n_block_min < n_block_max`): host code tests configuration with the others
// (`n_groups <= 0`, `mode == 'sigmoid'`, `len(ids) > 0`), which bounds no index.
int PythonBounds(const CodeLine& l) {
  const std::vector<Token>& t = l.tokens;
  auto literal = [&](size_t k) {
    return k < t.size() && (t[k].kind == TokenKind::kNumber || t[k].kind == TokenKind::kString ||
                            t[k].text == "None" || t[k].text == "True" || t[k].text == "False");
  };
  int n = 0;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x != "<" && x != "<=" && x != ">" && x != ">=") continue;
    const size_t right = t[i + 1].text == "-" ? i + 2 : i + 1;
    // A literal alone on a side (`> 0`, `< -1`); `0 < i` too. `2 * n` is no literal side.
    const bool literal_right =
        literal(right) && (right + 1 >= t.size() || (t[right + 1].text != "*" &&
                                                     t[right + 1].text != "+" &&
                                                     t[right + 1].text != "-" &&
                                                     t[right + 1].text != "/" &&
                                                     t[right + 1].text != "("));
    const bool literal_left = literal(i - 1) && (i < 2 || (t[i - 2].text != "*" &&
                                                           t[i - 2].text != "+" &&
                                                           t[i - 2].text != "-" &&
                                                           t[i - 2].text != "/"));
    if (!literal_right && !literal_left) ++n;
  }
  return n;
}

void FileReview::Guards(ChangeBlock& b) {
  std::vector<CodeLine*> lines;
  std::string what;
  int before = 0, after = 0;
  for (const CodeLine& l : b.removed) before += StatementGuardStrength(l);
  for (const CodeLine& l : b.added) after += StatementGuardStrength(l);
  for (CodeLine& r : b.removed) {
    const int strength = StatementGuardStrength(r);
    if (r.claimed || strength == 0) continue;
    CodeLine* a = const_cast<CodeLine*>(BestMatch(r, b, 0.5));
    if (a == nullptr || a->claimed || StatementGuardStrength(*a) == 0) {
      // A test whose branch refuses (`if arch < 90: raise ...`, `if (n > kMax) throw ...`)
      // guards which inputs are accepted, not an index: the refused inputs now run.
      const CodeLine* refusal = nullptr;
      for (const CodeLine& x : b.removed) {
        if (refusal == nullptr && x.side_line() >= r.side_line() && x.side_line() <= r.side_line() + 3) {
          for (const Token& t : x.tokens) {
            if (t.text == "raise" || t.text == "throw" || t.text == "abort" || t.text == "exit" ||
                t.text == "TORCH_CHECK" || t.text == "RuntimeError" || t.text == "ValueError") {
              refusal = &x;
            }
          }
        }
      }
      if (refusal != nullptr) {
        std::vector<CodeLine*> refused = {&r};
        if (refusal != &r) refused.push_back(const_cast<CodeLine*>(refusal));
        Report(kCondition, refused,
               "check removed: " + Example({&r}, false) + InFunction(refused) +
                   " refused the inputs it matched; they now run. Do the paths after it support "
                   "them (the kernels built, the sizes computed, the arch or dtype), and do the "
                   "tests sweep them?");
        continue;
      }
      // A Python test of configuration (no two varying values ordered) is no bounds check.
      if (python() && PythonBounds(r) == 0) continue;
      // The same bound tested again elsewhere in the function (`for (i = b + t; i < end;`
      // -> `for (t = 0; t < N;` with `if (b + t < end)` inside): moved, not removed.
      if (after < before && !BoundTestedAgain(r)) {
        // The input the check bounded went with it (round 11): a name the removed test read
        // is read nowhere in the whole head file, so no value is left unchecked by this
        // removal; what replaces the checked value is the question, not a read past the end.
        const std::string gone = NameGoneFromHead(r);
        if (!gone.empty()) {
          std::vector<CodeLine*> one = {&r};
          Report(kCondition, one,
                 "check " + Example({&r}, false) + InFunction(one) + " removed together with `" +
                     gone + "`, which the file no longer reads: what value replaces the one it "
                     "bounded, is it in range for every input (empty, negative, past the end), "
                     "and do callers that passed `" + gone + "` now get other semantics?");
          continue;
        }
        lines.push_back(&r);
        if (what.empty()) what = "bounds check " + Example({&r}, false) + " removed";
      }
      continue;
    }
    std::vector<std::string> o = ComparisonOps(r), n = ComparisonOps(*a);
    bool loosened = false;
    if (o.size() == n.size()) {
      for (size_t i = 0; i < o.size(); ++i) {
        if ((o[i] == "<" && n[i] == "<=") || (o[i] == ">" && n[i] == ">=")) loosened = true;
      }
    }
    if (StatementGuardStrength(*a) < strength &&
        (!python() || PythonBounds(*a) < PythonBounds(r))) {
      loosened = true;
    }
    if (loosened) {
      lines.push_back(&r);
      lines.push_back(a);
      if (what.empty()) what = "bounds check loosened: " + OldToNew({&r, a});
    }
  }
  if (!lines.empty()) {
    Report(kGuard, lines,
           what +
               ". Shapes at tile edges (1, 63, 64, 65, 127, 128, 129) read or write past the "
               "end if the bound is off by one.");
  }
}

void FileReview::Clamps(ChangeBlock& b) {
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    std::vector<Clamp> now = LowerClamps(a);
    if (now.empty()) continue;
    CodeLine* r = const_cast<CodeLine*>(BestMatch(a, b, 0.4));
    if (r != nullptr && r->claimed) r = nullptr;
    if (r != nullptr && LowerClamps(*r).size() >= now.size()) continue;  // not added here
    const Clamp& c = now.front();
    std::vector<CodeLine*> lines = {&a};
    if (r != nullptr) lines.push_back(r);
    std::string why;
    if (c.bound == 0 && c.arg_is_load) {
      why =
          ": entries below 0 (-1 marks a skipped or padding row) now read as 0 instead of "
          "indexing out of bounds. Are the rows marked -1 still skipped, with their outputs "
          "left unwritten or discarded, rather than computed into group or row 0?";
    } else if (c.bound == 1 && (kind() == ComponentKind::kScheduler ||
                                HasWord(c.arg, {"blocks", "tiles", "splits"}))) {
      why =
          ": the scheduler now issues one block where it issued none (an empty sequence or "
          "batch). Does that block write nothing, or only masked rows, and do the outputs of "
          "empty sequences still come out as for zero length (O = 0, LSE = -inf)?";
    } else if (c.bound >= 0) {
      why = ": a length of " + std::to_string(c.bound == 1 ? 0 : -1) + " now counts as " +
            std::to_string(c.bound) +
            ", so empty sequences run one tile of rows that do not exist. Are they masked, and "
            "are the outputs of empty sequences still written as for zero length?";
    } else {
      why =
          ": values outside the range now saturate instead of failing or reading past the "
          "end; is saturating what the shapes at the edge need?";
    }
    std::string unclamped;
    // `x = max(x, 1)` (or `x = std::max(x, 1)`) clamps `x` itself: later reads see the
    // clamped value, so none of them is "still unclamped".
    bool clamps_in_place = false;
    if (c.arg_is_name && a.tokens.size() >= 3) {
      for (size_t i = 0; i + 1 < a.tokens.size() && !clamps_in_place; ++i) {
        if (a.tokens[i + 1].text == "=" && a.tokens[i].text == c.arg) clamps_in_place = true;
        if (a.tokens[i].text == "=" || a.tokens[i].text == "(") break;
      }
    }
    if (c.arg_is_name && !clamps_in_place) {
      const std::string name = c.arg;
      std::vector<int64_t> uses = FunctionLinesWhere(
          a,
          [&](const std::string&, const std::vector<Token>& t) {
            return Mentions(t, name) && UsedUnclamped(t, name);
          },
          3);
      const SourceOutline* o = Outline(true);
      for (int64_t n : uses) {
        if (o == nullptr || n <= a.side_line()) continue;
        std::string_view text = o->Line(n);
        while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
          text.remove_prefix(1);
        unclamped = " (`" + name + "` is still used unclamped at line " + std::to_string(n) +
                    ": `" + Shorten(std::string(text), 100) +
                    "`; should it see the clamped value?)";
        break;
      }
    }
    std::string call = CallText(a.source, c.name, c.nth);
    if (call.empty()) call = a.source;
    Report(kClamp, lines,
           std::string("`").append(Shorten(call, 100)).append("` added") + InFunction(lines) +
               unclamped + why);
  }
}

void FileReview::EarlyReturns(ChangeBlock& b) {
  for (size_t i = 0; i < b.added.size(); ++i) {
    CodeLine& cond = b.added[i];
    if (cond.claimed || !IsGuardLine(cond) || !IsEmptyTest(cond)) continue;
    // `if constexpr (axis == 0) { return ...; }` dispatches at compile time; and a test the
    // removed side already made is not a new early return.
    if (Mentions(cond.tokens, "constexpr")) continue;
    const CodeLine* was = BestMatch(cond, b, 0.5);
    if (was != nullptr && IsGuardLine(*was) && IsEmptyTest(*was) &&
        ComparisonOps(*was) == ComparisonOps(cond) && Mentions(was->tokens, "return") ==
                                                         Mentions(cond.tokens, "return")) {
      continue;
    }
    // A return on the same line or within the next few added lines of the branch.
    std::vector<CodeLine*> lines = {&cond};
    bool returns = Mentions(cond.tokens, "return");
    for (size_t j = i + 1; j < b.added.size() && j <= i + 3 && !returns; ++j) {
      if (b.added[j].line->new_line != b.added[j - 1].line->new_line + 1 &&
          b.added[j].line->new_line > cond.line->new_line + 4) {
        break;
      }
      lines.push_back(&b.added[j]);
      returns = Mentions(b.added[j].tokens, "return");
      if (returns && j + 1 < b.added.size() && b.added[j + 1].code == "}") {
        lines.push_back(&b.added[j + 1]);
      }
    }
    if (!returns) continue;
    Report(kEarlyReturn, lines,
           "early return when " + Example({&cond}, true) + InFunction(lines) +
               ": nothing runs for empty work now. Are the outputs that empty sequences still "
               "need (O = 0, LSE = -inf, the split counts a combine reads) written by someone, "
               "or left as whatever the buffer held?");
  }
}

void FileReview::Boundaries(ChangeBlock& b) {
  if (added_file()) return;  // in a new file every branch is new: nothing to compare with
  for (CodeLine& a : b.added) {
    if (a.claimed || !IsGuardLine(a) || Mentions(a.tokens, "constexpr") || IsDispatchCondition(a)) {
      continue;
    }
    // A loop header bounds a loop (a thread-strided copy over a tile), it is no edge branch.
    if (!a.tokens.empty() && a.tokens[0].text == "for") continue;
    bool index = false, edge = false;
    for (const Token& t : a.tokens) {
      if (t.kind != TokenKind::kIdentifier) continue;
      index = index || IsIndexName(t.text);
      edge = edge || IsEdgeName(t.text);
    }
    if (!index || !edge || ComparisonOps(a).empty()) continue;
    const CodeLine* r = BestMatch(a, b, 0.6);
    if (r != nullptr && ComparisonOps(*r) == ComparisonOps(a)) continue;  // same test
    // The branch's body in this block goes with it.
    std::vector<CodeLine*> lines;
    const int64_t from = a.line->new_line;
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& l : *side) {
        if (!l.claimed && l.line->anchor >= from && l.line->anchor < from + 16) lines.push_back(&l);
      }
    }
    // A wrap of a negative index (`v = v < 0 ? v + n : v`) after a `% n` of the block's
    // lines above it: C and C++ `%` keep the dividend's sign, so the remainder of a negative
    // input is negative, and one `+ n` brings back only values down to -n.
    std::string modulo;
    {
      const auto& t = a.tokens;
      std::string n;
      for (size_t i = 0; i + 3 < t.size(); ++i) {
        if (t[i].kind == TokenKind::kIdentifier && t[i + 1].text == "<" && t[i + 2].text == "0") {
          for (size_t j = i + 3; j + 2 < t.size(); ++j) {
            if (t[j].text == t[i].text && t[j + 1].text == "+" &&
                t[j + 2].kind == TokenKind::kIdentifier) {
              n = t[j + 2].text;
              break;
            }
          }
          break;
        }
      }
      for (const CodeLine& x : b.added) {
        if (n.empty() || !modulo.empty() || &x == &a) continue;
        if (x.side_line() >= a.side_line() || x.side_line() + 6 < a.side_line()) continue;
        for (size_t i = 0; i + 1 < x.tokens.size(); ++i) {
          if (x.tokens[i].text == "%" && x.tokens[i + 1].text == n) {
            modulo = Example({const_cast<CodeLine*>(&x)}, true);
            break;
          }
        }
      }
    }
    // Any other ring wrap (`v = v >= n ? v - n : v`) moves an index around a buffer: no tile
    // takes another path, and the wrap is right while `v` stays below 2n.
    {
      const auto& t = a.tokens;
      bool wrap = modulo.empty() && t.size() > 6 && t[0].kind == TokenKind::kIdentifier &&
                  t[1].text == "=" && t[2].text == t[0].text;
      bool selects = false;
      for (size_t i = 3; wrap && i + 2 < t.size(); ++i) {
        if (t[i].text == "?") {
          selects = t[i + 1].text == t[0].text && (t[i + 2].text == "+" || t[i + 2].text == "-");
          break;
        }
      }
      wrap = wrap && selects;
      if (wrap) continue;
    }
    if (!modulo.empty()) {
      Report(kBoundary, lines,
             "new branch on " + Example({&a}, true) + InFunction(lines) + " wraps a negative "
                 "index once, after " + modulo + ": `%` keeps the dividend's sign, so a negative "
                 "input leaves a negative remainder, and what is subtracted after it can take the "
                 "index below the one `+` the wrap adds. Can the input be negative (is it "
                 "validated), and should the index be `((x % n) + n) % n`?");
      continue;
    }
    Report(kBoundary, lines,
           "new branch on " + Example({&a}, true) + InFunction(lines) +
               ": the tile at the edge now takes its own path. Do the swept shapes put a partial "
               "tile there (sizes that are not multiples of the tile, with the edge tile both "
               "first and last), and does the other path still cover every full tile?");
  }
}

}  // namespace av
