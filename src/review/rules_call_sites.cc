// Rules about calls and their parameters: an argument replaced or two swapped at a call
// site (call.argument_changed), a parameter inserted in the middle of a function's list so
// that every positional call shifts (call.parameter_inserted); an offset added inside a
// subscript is rules_index_offset.cc. What they look at is what changed in the call or the
// signature, never a name: the question names the changed line, the callee's parameter in
// that position when the file defines it, and the other lines of the file that still pass
// the old way. C++/CUDA only; a call they cannot delimit asks nothing.
#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

#include "review/file_review.h"
#include "review/renames.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT
using statement::Closing;
using statement::IsClose;
using statement::IsOpen;
using statement::Join;

// Tokens of a range of one side's lines, each with its line.
struct SideTokens {
  std::vector<Token> t;
  std::vector<int64_t> line;
};

// Side lines [from, to] of `o` (comments stripped), or the one line `only` when there is no
// outline.
SideTokens TokensOf(const SourceOutline* o, SourceLanguage language, int64_t from, int64_t to,
                    const CodeLine& only) {
  SideTokens s;
  if (o == nullptr) {
    for (const Token& x : only.tokens) {
      s.t.push_back(x);
      s.line.push_back(only.side_line());
    }
    return s;
  }
  CommentStripper strip(language);
  for (int64_t n = std::max<int64_t>(1, from); n <= to; ++n) {
    if (n > static_cast<int64_t>(o->lines.size())) break;
    std::string_view raw = o->Line(n);
    if (raw.size() > kMaxRuleLineBytes) raw = raw.substr(0, kMaxRuleLineBytes);
    for (Token& x : Tokenize(strip.Strip(raw))) {
      s.t.push_back(std::move(x));
      s.line.push_back(n);
    }
  }
  return s;
}

bool NotACallee(const std::string& name) {
  static const std::set<std::string> kNot = {
      "if", "for", "while", "switch", "return", "sizeof", "decltype", "alignof", "static_cast",
      "reinterpret_cast", "const_cast", "dynamic_cast", "defined", "catch", "assert",
      "static_assert", "dim3", "printf", "fprintf", "TORCH_CHECK", "CHECK", "DCHECK",
      "AT_ASSERT", "TM_CHECK", "FT_CHECK", "__launch_bounds__", "make_float4", "make_int4"};
  if (kNot.count(name)) return true;
  // Assertion and check macros (DG_STATIC_ASSERT, TM_CHECK_EQ): what they test is the
  // condition rules' question.
  const bool caps = std::none_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c));
  });
  if (caps && (name.find("ASSERT") != std::string::npos || name.find("CHECK") != std::string::npos))
    return true;
  return name.rfind("CHECK_", 0) == 0 || name.rfind("TM_LOG", 0) == 0 ||
         name.rfind("LOG", 0) == 0 || name.rfind("TORCH_", 0) == 0;
}

// A call delimited in a SideTokens: its callee and top-level arguments.
struct Call {
  std::string callee;
  size_t open = 0, close = 0;  // token indices of '(' and ')'
  std::vector<std::pair<size_t, size_t>> args;  // token ranges [from, to)
  bool launch = false;  // kernel<<<...>>>(...)
};

// The callee of the '(' at `open`: the identifier before it, skipping one template argument
// list and a kernel launch's <<<...>>>; "" when the bracket is no call.
std::string CalleeOf(const std::vector<Token>& t, size_t open, bool* launch) {
  if (open == 0) return "";
  size_t i = open - 1;
  *launch = false;
  for (int skip = 0; skip < 2 && t[i].text == ">"; ++skip) {
    const bool chevrons = i >= 2 && t[i - 1].text == ">" && t[i - 2].text == ">";
    int depth = 0;
    size_t j = i + 1;
    while (j-- > 0) {
      if (t[j].text == ">") ++depth;
      if (t[j].text == "<") --depth;
      if (depth == 0) break;
      if (t[j].text == ";" || t[j].text == "{" || t[j].text == "}") return "";
    }
    if (j == static_cast<size_t>(-1) || j == 0) return "";
    *launch = *launch || chevrons;
    i = j - 1;
  }
  if (t[i].kind != TokenKind::kIdentifier || NotACallee(t[i].text)) return "";
  return t[i].text;
}

Call CallAt(const std::vector<Token>& t, size_t open, bool need_callee = true) {
  Call c;
  c.open = open;
  c.close = Closing(t, open);
  c.callee = CalleeOf(t, open, &c.launch);
  if (c.close >= t.size() || (need_callee && c.callee.empty())) {
    c.callee.clear();
    return c;
  }
  size_t from = open + 1;
  int depth = 0;
  for (size_t i = open + 1; i < c.close; ++i) {
    if (IsOpen(t[i].text)) ++depth;
    if (IsClose(t[i].text)) --depth;
    if (depth == 0 && t[i].text == ",") {
      c.args.push_back({from, i});
      from = i + 1;
    }
  }
  if (from < c.close || !c.args.empty()) c.args.push_back({from, c.close});
  return c;
}

// The calls a changed line takes part in: the call whose argument list the line continues
// (its '(' on an earlier line) and the calls opened on the line.
std::vector<Call> CallsOfLine(const SideTokens& s, int64_t line) {
  std::vector<Call> out;
  size_t first = 0;
  while (first < s.t.size() && s.line[first] < line) ++first;
  if (first == s.t.size() || s.line[first] != line) return out;
  // Walk back to the innermost '(' still open at the line's start.
  int depth = 0;
  for (size_t i = first; i-- > 0;) {
    const std::string& x = s.t[i].text;
    if (x == ";" || x == "{" || x == "}") {
      if (depth == 0) break;
    }
    if (IsClose(x)) ++depth;
    if (IsOpen(x)) {
      if (depth == 0) {
        if (x == "(") {
          Call c = CallAt(s.t, i);
          if (!c.callee.empty()) out.push_back(c);
        }
        break;
      }
      --depth;
    }
  }
  for (size_t i = first; i < s.t.size() && s.line[i] == line; ++i) {
    if (s.t[i].text != "(") continue;
    Call c = CallAt(s.t, i);
    if (!c.callee.empty()) out.push_back(c);
  }
  return out;
}

std::string ArgText(const SideTokens& s, const std::pair<size_t, size_t>& r) {
  return Join(s.t, r.first, r.second);
}

// The argument's text with template argument lists and integer casts dropped:
// `ret.data<T>()` and `ret.data<T1>()`, `a + b` and `(int64_t)a + b`, are the same argument
// of another type.
std::string WithoutTemplateArgs(const SideTokens& s, const std::pair<size_t, size_t>& r) {
  std::string out;
  int angle = 0;
  for (size_t i = r.first; i < r.second; ++i) {
    const std::string& x = s.t[i].text;
    const bool opens = x == "<" && i > r.first && s.t[i - 1].kind == TokenKind::kIdentifier &&
                       i + 1 < r.second && s.t[i + 1].text != "=";
    if (opens) {
      ++angle;
      continue;
    }
    if (angle > 0 && x == ">") {
      --angle;
      continue;
    }
    // An integer cast (`(int64_t)x`, `static_cast<int64_t>(x)`): the same value, wider.
    if (angle == 0 && x == "(" && i + 2 < r.second && s.t[i + 2].text == ")" &&
        IsIntegerTypeName(s.t[i + 1].text)) {
      i += 2;
      continue;
    }
    if (angle == 0 && x == "static_cast") continue;
    if (angle == 0) out += x + " ";
  }
  return out;
}

// The name a parameter declares: its last identifier before a default (`int n = 0` -> n).
std::string ParameterName(const SideTokens& s, const std::pair<size_t, size_t>& r) {
  std::string name;
  int depth = 0;
  for (size_t i = r.first; i < r.second; ++i) {
    const std::string& x = s.t[i].text;
    if (IsOpen(x) || x == "<") ++depth;
    if (IsClose(x) || x == ">") --depth;
    if (depth == 0 && x == "=") break;
    if (depth == 0 && s.t[i].kind == TokenKind::kIdentifier) name = x;
  }
  return name;
}

// The parameter list of the function or lambda that the tokens' first '(' after `name` opens.
bool ParametersAfter(const SideTokens& s, const std::string& name, Call* out) {
  for (size_t i = 0; i + 1 < s.t.size(); ++i) {
    if (s.t[i].text != name) continue;
    size_t j = i + 1;
    // A lambda: NAME = [captures](params).
    if (s.t[j].text == "=" && j + 1 < s.t.size() && s.t[j + 1].text == "[") {
      j = Closing(s.t, j + 1) + 1;
    }
    if (j < s.t.size() && s.t[j].text == "(") {
      *out = CallAt(s.t, j, /*need_callee=*/false);
      out->callee = name;
      return out->close < s.t.size();
    }
  }
  return false;
}

std::string Ordinal(size_t i) { return "#" + std::to_string(i + 1); }

}  // namespace

std::string CallsOfChangedSignature(const std::string& unchanged_calls,
                                    const std::string& changed_calls, const std::string& call) {
  std::string out;
  if (!unchanged_calls.empty()) {
    const bool one = unchanged_calls.find(',') == std::string::npos;
    out = " The " + call + (one ? " at line " : "s at lines ") + unchanged_calls +
          (one ? " is" : " are") +
          " not changed by this diff: does it still pass what the parameters now mean?";
  }
  if (!changed_calls.empty()) {
    out += " Calls changed with it: line" +
           std::string(changed_calls.find(',') == std::string::npos ? " " : "s ") +
           changed_calls + ".";
  }
  return out;
}

void FileReview::CallArguments(ChangeBlock& b) {
  if (!cpp() || b.added.empty() || b.removed.empty()) return;
  const SourceOutline* head = Outline(true);
  const SourceOutline* base = Outline(false);
  std::set<std::pair<std::string, int64_t>> done;
  // Removed lines' calls, computed once per line (the cost stays linear in the block).
  std::vector<std::unique_ptr<std::pair<SideTokens, std::vector<Call>>>> base_calls(
      b.removed.size());
  for (size_t ai = 0; ai < b.added.size(); ++ai) {
    CodeLine& a = b.added[ai];
    if (a.claimed || a.in_signature || a.code.empty() || a.code[0] == '#') continue;
    // Only lines that open or continue a call: a '(' on the line or a ',' / ')' ending it.
    const bool callish = a.code.find('(') != std::string::npos || a.code.back() == ',' ||
                         a.code.back() == ')' || a.code.back() == ';';
    if (!callish) continue;
    const int64_t at = a.side_line();
    const SideTokens hs = TokensOf(head, code_.language, at - 40, at + 40, a);
    for (const Call& hc : CallsOfLine(hs, at)) {
      if (hc.launch || hc.args.size() < 2) continue;
      if (done.count({hc.callee, hs.line[hc.open]})) continue;
      // The same call on the base side, through a removed line of this block near it.
      size_t lo = 0, hi = 0;
      PairingRange(ai, b.added.size(), b.removed.size(), &lo, &hi);
      for (size_t ri = lo; ri < hi; ++ri) {
        CodeLine& r = b.removed[ri];
        if (r.claimed || r.code.empty() || r.code[0] == '#') continue;
        const int64_t rat = r.side_line();
        if (!base_calls[ri]) {
          auto made = std::make_unique<std::pair<SideTokens, std::vector<Call>>>();
          made->first = TokensOf(base, code_.language, rat - 40, rat + 40, r);
          made->second = CallsOfLine(made->first, rat);
          base_calls[ri] = std::move(made);
        }
        const SideTokens& bs = base_calls[ri]->first;
        const std::vector<Call>& bcalls = base_calls[ri]->second;
        const Call* bc = nullptr;
        for (const Call& c : bcalls) {
          if (c.callee == hc.callee && c.args.size() == hc.args.size()) bc = &c;
        }
        if (bc == nullptr) continue;
        std::vector<size_t> differ;
        for (size_t i = 0; i < hc.args.size(); ++i) {
          if (ArgText(hs, hc.args[i]) != ArgText(bs, bc->args[i])) differ.push_back(i);
        }
        if (differ.empty() || differ.size() > 2) break;
        bool types_only = true;
        for (size_t i : differ) {
          types_only = types_only &&
                       WithoutTemplateArgs(hs, hc.args[i]) == WithoutTemplateArgs(bs, bc->args[i]);
        }
        if (types_only) break;
        // Identifiers only the old or only the new argument has.
        auto ids = [](const SideTokens& x, const std::pair<size_t, size_t>& r) {
          std::set<std::string> out;
          for (size_t k = r.first; k < r.second; ++k) {
            if (statement::IsIdentifierToken(x.t[k])) out.insert(x.t[k].text);
          }
          return out;
        };
        std::set<std::string> gone, fresh;
        for (size_t i : differ) {
          const std::set<std::string> o = ids(bs, bc->args[i]), n = ids(hs, hc.args[i]);
          for (const std::string& v : o) {
            if (!n.count(v)) gone.insert(v);
          }
          for (const std::string& v : n) {
            if (!o.count(v)) fresh.insert(v);
          }
        }
        // A type, scope or function renamed inside the argument (`(typename Reduce::S*)p` ->
        // `(typename ReduceOp::S*)p`, `gcd(a, b)` -> `constexpr_gcd(a, b)`) or a local the diff
        // replaces (its old declaration is
        // removed: a restructured lambda or alias) passes the same value.
        auto scope_only = [](const SideTokens& x, const std::pair<size_t, size_t>& r,
                             const std::set<std::string>& names) {
          bool all = !names.empty();
          for (size_t k = r.first; k < r.second; ++k) {
            if (!names.count(x.t[k].text)) continue;
            const bool scope = k + 1 < r.second && x.t[k + 1].text == "::";
            const bool type = k > r.first && x.t[k - 1].text == "typename";
            // A function swapped for its twin (`gcd(a, b)` -> `constexpr_gcd(a, b)`).
            const bool function = k + 1 < r.second && x.t[k + 1].text == "(";
            all = all && (scope || type || function);
          }
          return all;
        };
        bool same_value = true;
        for (size_t i : differ) {
          same_value = same_value && scope_only(bs, bc->args[i], gone) &&
                       scope_only(hs, hc.args[i], fresh);
        }
        if (same_value) break;
        bool replaced_local = false;
        for (const ChangeBlock& ob : blocks_) {
          for (const CodeLine& x : ob.removed) {
            for (size_t k = 1; k + 1 < x.tokens.size(); ++k) {
              if (gone.count(x.tokens[k].text) && x.tokens[k + 1].text == "=" &&
                  (x.tokens[k - 1].kind == TokenKind::kIdentifier || x.tokens[k - 1].text == "*" ||
                   x.tokens[k - 1].text == "&")) {
                replaced_local = true;
              }
            }
          }
        }
        if (replaced_local) break;
        std::string what;
        bool swap = false;
        if (differ.size() == 2) {
          const size_t i = differ[0], j = differ[1];
          const bool swapped = ArgText(hs, hc.args[i]) == ArgText(bs, bc->args[j]) &&
                               ArgText(hs, hc.args[j]) == ArgText(bs, bc->args[i]);
          if (!swapped) break;
          swap = true;
          what = "arguments " + Ordinal(i) + " and " + Ordinal(j) + " of `" + hc.callee +
                 "(...)` swapped (`" + ArgText(bs, bc->args[i]) + "`, `" +
                 ArgText(bs, bc->args[j]) + "`)";
        } else {
          const size_t i = differ[0];
          what = "argument " + Ordinal(i) + " of `" + hc.callee + "(...)`: `" +
                 Shorten(ArgText(bs, bc->args[i]), 80) + "` -> `" +
                 Shorten(ArgText(hs, hc.args[i]), 80) + "`";
        }
        done.insert({hc.callee, hs.line[hc.open]});
        // The parameter in that position, when this file defines the callee.
        std::string param;
        if (head != nullptr) {
          for (const OutlineFunction& f : head->functions) {
            if (f.name != hc.callee) continue;
            const SideTokens sig =
                TokensOf(head, code_.language, f.signature_line, f.open_line, a);
            Call p;
            if (ParametersAfter(sig, f.name, &p) && p.args.size() == hc.args.size()) {
              param = ParameterName(sig, p.args[differ[0]]);
              if (differ.size() == 2) param += "` and `" + ParameterName(sig, p.args[differ[1]]);
            }
            break;
          }
        }
        // Other lines of the file that still read what this call no longer passes.
        std::string old_ident;
        for (size_t k = bc->args[differ[0]].first; k < bc->args[differ[0]].second; ++k) {
          if (gone.count(bs.t[k].text) && !statement::IsPlainWord(bs.t[k].text)) {
            old_ident = bs.t[k].text;
          }
        }
        std::string still;
        if (differ.size() == 1 && !old_ident.empty()) {
          Statement own;
          own.first = hs.line[hc.open];
          own.last = hs.line[hc.close];
          still = UnchangedFileLines(
              [&](const std::vector<Token>& t) {
                // Passed as an argument: after '(' or ',' and before ',' or ')' (not a
                // parameter's declaration `const int* name,`).
                for (size_t k = 1; k + 1 < t.size(); ++k) {
                  if (t[k].text == old_ident && (t[k + 1].text == "," || t[k + 1].text == ")") &&
                      (t[k - 1].text == "(" || t[k - 1].text == ","))
                    return true;
                }
                if (!t.empty() && t[0].text == old_ident && t.size() >= 2 &&
                    (t[1].text == "," || t[1].text == ")")) {
                  return true;  // an argument on its own line
                }
                return false;
              },
              own, 4);
        }
        // The lines of the call that changed.
        std::vector<CodeLine*> lines;
        const int64_t hlo = hs.line[hc.open], hhi = hs.line[hc.close];
        const int64_t blo = bs.line[bc->open], bhi = bs.line[bc->close];
        for (CodeLine& x : b.added) {
          if (!x.claimed && x.side_line() >= hlo && x.side_line() <= hhi) lines.push_back(&x);
        }
        for (CodeLine& x : b.removed) {
          if (!x.claimed && x.side_line() >= blo && x.side_line() <= bhi) lines.push_back(&x);
        }
        if (lines.empty()) break;
        Report(kCallArgument, lines,
               what + InFunction(lines) +
                   (param.empty() ? std::string("")
                                  : std::string(swap ? " (the callee's parameters `"
                                                     : " (the callee's parameter `") +
                                        param + "`)") +
                   (swap ? ". Is the new order the one the callee's parameters expect, and "
                           "were its other callers and its definition changed alike"
                         : ". Is the new value what the callee expects in that position (the "
                           "same quantity, units and base offset, for every caller's case)") +
                   (still.empty() ? std::string("?")
                                  : ", and are the lines that still pass `" + old_ident +
                                        "` right to keep it (" + still + ")?"));
        break;
      }
    }
  }
}

void FileReview::ParametersInserted(ChangeBlock& b) {
  if (!cpp() || b.added.empty()) return;
  const SourceOutline* head = Outline(true);
  const SourceOutline* base = Outline(false);
  std::set<std::string> done;
  for (CodeLine& a : b.added) {
    if (a.claimed || a.code.empty() || a.code[0] == '#') continue;
    // The function whose parameters the line is part of: an outlined signature, or a lambda
    // `NAME = [...](...)` written on one line.
    std::string name;
    SideTokens hs, bs;
    int64_t self_from = 0, self_to = 0;
    // A lambda `NAME = [...](...)` written on one line, else an outlined signature.
    {
      const auto& t = a.tokens;
      for (size_t i = 0; i + 2 < t.size(); ++i) {
        if (t[i].kind == TokenKind::kIdentifier && t[i + 1].text == "=" && t[i + 2].text == "[") {
          name = t[i].text;
          break;
        }
      }
      const CodeLine* r = nullptr;
      size_t lo = 0, hi = 0;
      PairingRange(static_cast<size_t>(&a - b.added.data()), b.added.size(), b.removed.size(),
                   &lo, &hi);
      for (size_t ri = lo; ri < hi && !name.empty(); ++ri) {
        const CodeLine& x = b.removed[ri];
        for (size_t i = 0; !name.empty() && i + 2 < x.tokens.size() && r == nullptr; ++i) {
          if (x.tokens[i].text == name && x.tokens[i + 1].text == "=" &&
              x.tokens[i + 2].text == "[") {
            r = &x;
          }
        }
      }
      if (r != nullptr) {
        hs = TokensOf(nullptr, code_.language, 0, 0, a);
        bs = TokensOf(nullptr, code_.language, 0, 0, *r);
        self_from = self_to = a.side_line();
      } else {
        name.clear();
      }
    }
    if (name.empty() && a.in_signature && head != nullptr && base != nullptr) {
      const OutlineFunction* f = head->FunctionAt(a.side_line());
      if (f == nullptr || f->kind == FunctionKind::kPython || done.count(f->name)) continue;
      name = f->name;
      const OutlineFunction* g = nullptr;
      for (const OutlineFunction& x : base->functions) {
        if (x.name != name || x.kind != f->kind) continue;
        if (g == nullptr || std::llabs(x.signature_line - f->signature_line) <
                                std::llabs(g->signature_line - f->signature_line)) {
          g = &x;
        }
      }
      if (g == nullptr) continue;
      hs = TokensOf(head, code_.language, f->signature_line, f->open_line, a);
      bs = TokensOf(base, code_.language, g->signature_line, g->open_line, a);
      self_from = f->header_line;
      self_to = f->open_line;
    }
    if (name.empty()) continue;
    if (done.count(name)) continue;
    Call hp, bp;
    if (!ParametersAfter(hs, name, &hp) || !ParametersAfter(bs, name, &bp)) continue;
    std::vector<std::string> hn, bn;
    for (const auto& p : hp.args) hn.push_back(ParameterName(hs, p));
    for (const auto& p : bp.args) bn.push_back(ParameterName(bs, p));
    // Every old parameter kept, in order, and some new one before the last of them.
    std::vector<size_t> inserted;
    size_t k = 0;
    for (size_t i = 0; i < hn.size(); ++i) {
      if (k < bn.size() && hn[i] == bn[k]) {
        ++k;
      } else if (std::find(bn.begin(), bn.end(), hn[i]) == bn.end()) {
        inserted.push_back(i);
      } else {
        k = bn.size() + 1;  // reordered: not an insertion
        break;
      }
    }
    if (k != bn.size() || inserted.empty() || bn.empty()) continue;
    const size_t first = inserted.front();
    // Mid-list: an old parameter still follows the first new one.
    size_t last_kept = 0;
    for (size_t i = 0; i < hn.size(); ++i) {
      if (std::find(inserted.begin(), inserted.end(), i) == inserted.end()) last_kept = i;
    }
    const bool mid = first < last_kept;
    // Appended at the end with a default (`int num_splits = 0`): calls that were not updated
    // still compile and silently pass the default.
    bool defaulted = !mid;
    for (size_t i : inserted) {
      bool has_default = false;
      int depth = 0;
      for (size_t k = hp.args[i].first; k < hp.args[i].second; ++k) {
        const std::string& x = hs.t[k].text;
        if (IsOpen(x) || x == "<") ++depth;
        if (IsClose(x) || x == ">") --depth;
        has_default = has_default || (depth == 0 && x == "=");
      }
      defaulted = defaulted && has_default;
    }
    if (!mid && !defaulted) continue;
    done.insert(name);
    size_t before = first + 1;
    while (std::find(inserted.begin(), inserted.end(), before) != inserted.end()) ++before;
    const std::string param = Join(hs.t, hp.args[first].first, hp.args[first].second);
    // The lines of the signature that bring the new parameter.
    std::vector<CodeLine*> lines;
    const int64_t plo = hs.line[hp.args[first].first],
                  phi = hs.line[hp.args[first].second - 1];
    for (CodeLine& x : b.added) {
      if (!x.claimed && x.side_line() >= plo && x.side_line() <= phi) lines.push_back(&x);
    }
    if (lines.empty()) lines.push_back(&a);
    // The rest of the signature's change goes with it (one question per signature).
    for (auto* side : {&b.added, &b.removed}) {
      for (CodeLine& x : *side) {
        if (x.claimed || !x.in_signature || &x == &a ||
            std::find(lines.begin(), lines.end(), &x) != lines.end()) {
          continue;
        }
        const SourceOutline* o = Outline(x.added);
        const OutlineFunction* f = o != nullptr ? o->FunctionAt(x.side_line()) : nullptr;
        if (f != nullptr && f->name == name) lines.push_back(&x);
      }
    }
    // Calls in this file: changed with the signature or not.
    std::string changed_calls, unchanged_calls, references;
    int calls = 0;
    if (head != nullptr) {
      const std::set<int64_t> changed = ChangedLines(true);
      const int64_t n_lines = static_cast<int64_t>(head->lines.size());
      for (int64_t n = 1; n <= n_lines && calls < 8; ++n) {
        if (n >= self_from && n <= self_to) continue;
        const std::string_view raw = head->Line(n);
        if (raw.find(name) == std::string_view::npos) continue;
        const SideTokens s = TokensOf(head, code_.language, n, std::min(n + 40, n_lines), a);
        for (size_t i = 0; i + 1 < s.t.size() && s.line[i] == n; ++i) {
          if (s.t[i].text != name) continue;
          // Its '(' after optional template arguments and <<<...>>>.
          size_t j = i + 1;
          for (int skip = 0; skip < 2 && j < s.t.size() && s.t[j].text == "<"; ++skip) {
            int depth = 0;
            for (; j < s.t.size(); ++j) {
              if (s.t[j].text == "<") ++depth;
              if (s.t[j].text == ">" && --depth == 0) break;
            }
            ++j;
            while (j < s.t.size() && s.t[j].text == ">") ++j;
          }
          if (j >= s.t.size() || s.t[j].text != "(") {
            // Named without a call: a kernel pointer taken, a template instantiated.
            if (!changed.count(n) && references.size() < 60) {
              references += std::string(references.empty() ? "" : ", ") + std::to_string(n) +
                            " (`" + Shorten(std::string(CommentStripper(code_.language).Strip(raw)), 70) + "`)";
            }
            ++calls;
            break;
          }
          const size_t close = Closing(s.t, j);
          if (close >= s.t.size()) continue;
          // A declaration or definition of the same function is no call.
          if (close + 1 < s.t.size() &&
              (s.t[close + 1].text == "{" || s.t[close + 1].text == "const")) {
            continue;
          }
          if (i > 0 && s.t[i - 1].kind == TokenKind::kIdentifier &&
              s.t[i - 1].text != "return") {
            continue;
          }
          bool touched = false;
          for (int64_t m = n; m <= s.line[close]; ++m) touched = touched || changed.count(m);
          std::string& list = touched ? changed_calls : unchanged_calls;
          list += (list.empty() ? "" : ", ") + std::to_string(n);
          ++calls;
          break;
        }
      }
    }
    std::string callers = CallsOfChangedSignature(unchanged_calls, changed_calls, "call");
    if (!references.empty()) {
      callers += " Named without a call at " + references +
                 ": do the calls through it (launches, bindings) pass the new parameter?";
    }
    if (calls == 0) callers = " No call in this file: its callers are elsewhere.";
    if (head == nullptr) callers = " Without the whole file its calls are not listed here.";
    if (!mid) {
      Report(kParameterInserted, lines,
             "`" + Shorten(param, 60) + "` appended to `" + name +
                 "(...)` with a default: calls that were not updated still compile and pass "
                 "the default. Is the default what they meant (the old behaviour), and do the "
                 "bindings and callers that should pass it do so?" +
                 callers);
      continue;
    }
    Report(kParameterInserted, lines,
           "`" + Shorten(param, 60) + "` inserted as parameter " + Ordinal(first) + " of " +
               std::to_string(hn.size()) + " of `" + name + "(...)`, before `" +
               (before < hn.size() ? hn[before] : std::string("")) +
               "`: calls pass arguments by position, so a call that was not updated passes "
               "the old arguments one place off (of a convertible type it still compiles). "
               "Were all callers, declarations and bindings updated in the same order?" +
               callers);
  }
}

}  // namespace av
