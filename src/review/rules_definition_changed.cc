// value.definition_changed: a definition or assignment read whole (also over several
// lines) whose index arithmetic, wait barrier or declared type changed, with the unchanged
// lines that still read the name and the operands it no longer reads. It runs before the
// rules that match words, so an index fix is not asked about "the interface" because it
// names a stride.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include "review/file_review.h"
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

// A definition or assignment: `T NAME = v;`, `NAME += v;`, `T const NAME{v};`,
// `p[i][j] = v;`. Not branch, loop or return statements.
struct Definition {
  bool found = false;
  std::string name;  // NAME, or the array's name for p[i] = v
  std::string lhs;   // the left side as written (`ckv_offset[mma_kv][j]`)
  std::string type;  // the declared type, "" for a plain assignment
  std::string op;    // "=", "+=", "{"
  size_t value_from = 0, value_to = 0;  // token range of the value
};

Definition DefinitionOf(const std::vector<Token>& t) {
  Definition d;
  if (t.empty() || IsKeywordOrGuard(t[0].text) || t[0].text == "return" || t[0].text == "#" ||
      t[0].text == "case" || t[0].text == "else" || t[0].text == "do") {
    return d;
  }
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "(" || x == "[") {
      if (x == "(" && depth == 0) return d;  // a call statement, not a definition
      ++depth;
      continue;
    }
    if (x == ")" || x == "]") {
      --depth;
      continue;
    }
    if (depth != 0) continue;
    const bool assign = x == "=" || x == "+=" || x == "-=" || x == "*=" || x == "/=" ||
                        x == "%=" || x == "<<=" || x == ">>=" || x == "|=" || x == "&=";
    const bool brace = x == "{" && i >= 2 && t[i - 1].kind == TokenKind::kIdentifier &&
                       (t[i - 2].kind == TokenKind::kIdentifier || t[i - 2].text == "*" ||
                        t[i - 2].text == "&" || t[i - 2].text == ">");
    if (!assign && !brace) {
      if (x == "{" || x == ";" || x == "?" || x == "}") return d;
      continue;
    }
    if (i == 0) return d;
    // The name: the identifier before the operator, or before its subscripts.
    size_t n = i - 1;
    while (t[n].text == "]") {
      int dd = 0;
      while (n > 0) {
        if (t[n].text == "]") ++dd;
        if (t[n].text == "[" && --dd == 0) break;
        --n;
      }
      if (n == 0) return d;
      --n;
    }
    if (t[n].kind != TokenKind::kIdentifier) return d;
    size_t lhs_from = n;
    while (lhs_from >= 2 && (t[lhs_from - 1].text == "." || t[lhs_from - 1].text == "->") &&
           t[lhs_from - 2].kind == TokenKind::kIdentifier) {
      lhs_from -= 2;
    }
    d.found = true;
    d.name = t[n].text;
    d.lhs = Join(t, lhs_from, i);
    // The type is what follows the last comma before the name: on a parameter list's line
    // (`void* workspace, int groupsize = -1,`) the parameters before it are not its type.
    size_t type_from = 0;
    int angle_or_paren = 0;
    for (size_t k = 0; k < lhs_from; ++k) {
      const std::string& y = t[k].text;
      if (y == "<" || y == "(") ++angle_or_paren;
      if (y == ">" || y == ")") --angle_or_paren;
      if (y == "," && angle_or_paren == 0) type_from = k + 1;
    }
    d.type = Join(t, type_from, lhs_from);
    d.op = x;
    d.value_from = i + 1;
    d.value_to = brace ? Closing(t, i) : t.size();
    if (!brace) {
      for (size_t k = i + 1; k < t.size(); ++k) {
        if (t[k].text == ";") {
          d.value_to = k;
          break;
        }
      }
    }
    return d;
  }
  return d;
}

// The operands of index arithmetic in a value, as a sorted list: binary operators and the
// names and numbers next to them, subscripts, and the arguments of CuTe layout builders
// (make_stride(...)). A function swapped (logf -> log2f), a pointer passed to another call
// or a load's spelling (__ldg(p + 4) -> *(p + 4)) leaves them as they were.
std::vector<std::string> IndexOperands(const std::vector<Token>& t, size_t from, size_t to) {
  std::vector<std::string> out;
  to = std::min(to, t.size());
  auto binary = [&](size_t i) {
    const std::string& x = t[i].text;
    if (x == "+" || x == "/" || x == "%" || x == "<<" || x == ">>" || x == "[" || x == "]") {
      return true;
    }
    if (x != "*" && x != "-") return false;
    // Unary `*p` / `-x`: after an operator, an opening bracket, `,`, `=` or at the start.
    if (i == from) return false;
    const Token& p = t[i - 1];
    return p.kind != TokenKind::kOperator || p.text == ")" || p.text == "]";
  };
  int layout_depth = 0, depth = 0;
  for (size_t i = from; i < to; ++i) {
    const std::string& x = t[i].text;
    if (x == "(") {
      ++depth;
      if (layout_depth == 0 && i > from &&
          (t[i - 1].text == "make_stride" || t[i - 1].text == "make_shape" ||
           t[i - 1].text == "make_layout" || t[i - 1].text == "make_coord")) {
        layout_depth = depth;
      }
    } else if (x == ")") {
      if (depth == layout_depth) layout_depth = 0;
      --depth;
    }
    if (t[i].kind == TokenKind::kOperator) {
      if (binary(i)) out.push_back(x);
      continue;
    }
    const bool next_to_op = (i > from && binary(i - 1)) || (i + 1 < to && binary(i + 1)) || layout_depth > 0;
    const bool member_of_op =
        i >= from + 2 && t[i - 1].text == "." &&
        ((i + 1 < to && binary(i + 1)) || (i >= from + 3 && binary(i - 3)) || layout_depth > 0);
    if ((next_to_op && !(i + 1 < to && t[i + 1].text == "(")) || member_of_op) {
      out.push_back(x);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The comparison at depth 0 of tokens [from, to): {lhs, op, rhs}; empty op when none.
struct TopComparison {
  std::string lhs, op, rhs;
};
TopComparison TopComparisonOf(const std::vector<Token>& t, size_t from, size_t to) {
  int depth = 0;
  to = std::min(to, t.size());
  // `k<A, B>`: a comma outside brackets is a template argument list, never a test.
  for (size_t i = from, d = 0; i < to; ++i) {
    if (IsOpen(t[i].text)) ++d;
    if (IsClose(t[i].text) && d > 0) --d;
    if (d == 0 && t[i].text == ",") return {};
  }
  const std::vector<bool> angle = TemplateAngles(t);  // `conditional_t<...>` compares nothing
  int angles = 0;
  for (size_t i = from; i < to; ++i) {
    if (IsOpen(t[i].text)) ++depth;
    if (IsClose(t[i].text)) --depth;
    if (angle[i]) {
      angles += t[i].text == "<" ? 1 : t[i].text == ">" ? -1 : t[i].text == ">>" ? -2 : 0;
      continue;
    }
    const std::string& x = t[i].text;
    if (depth != 0 || angles > 0 || t[i].kind != TokenKind::kOperator) continue;
    if (x == "&&" || x == "||" || x == "?") return {};  // a compound test: the condition rule's
    if ((x == "<" || x == "<=" || x == ">" || x == ">=" || x == "==" || x == "!=") &&
        IsComparisonAt(t, i)) {
      return {Join(t, from, i), x, Join(t, i + 1, to)};
    }
  }
  return {};
}

// The names and numbers a value reads that the other value does not ("+ MAX_CTA_S").
std::vector<std::string> OperandsOnlyIn(const std::vector<std::string>& a,
                                        const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  std::vector<std::string> words;
  for (const std::string& x : out) {
    if (!x.empty() && (std::isalnum(static_cast<unsigned char>(x[0])) || x[0] == '_')) {
      words.push_back(x);
    }
  }
  return words;
}

}  // namespace

std::vector<Token> FileReview::InlineNewLocals(const std::vector<Token>& t, size_t from, size_t to,
                                               const CodeLine& at) {
  // Where a name stands alone between `+`, brackets, commas or the ends, its sum or product
  // can replace it without parentheses.
  auto loose = [](const std::string& x) {
    return x == "+" || x == "[" || x == "]" || x == "(" || x == ")" || x == "," || x == "=";
  };
  std::vector<Token> out;
  bool replaced = false;
  for (size_t i = from; i < to && i < t.size(); ++i) {
    const bool before_ok = i == from || loose(t[i - 1].text);
    const bool after_ok = i + 1 >= to || loose(t[i + 1].text);
    bool have = false;
    Definition local;
    Statement local_statement;
    if (t[i].kind == TokenKind::kIdentifier && before_ok && after_ok) {
      for (ChangeBlock& ob : blocks_) {
        for (CodeLine& x : ob.added) {
          if (x.function != at.function || x.function.empty() || &x == &at) continue;
          Statement st = StatementAround(x);
          const Definition d = DefinitionOf(st.tokens);
          if (!d.found || d.type.empty() || d.op != "=" || d.name != t[i].text || d.lhs != d.name) {
            continue;
          }
          // Arithmetic that binds at least as tightly as `+` (casts aside): shifts, bit
          // operators or a comparison would bind differently once spliced.
          bool plain = true;
          for (size_t k = d.value_from; k < d.value_to && plain; ++k) {
            const std::string& y = st.tokens[k].text;
            if ((y == "static_cast" || y == "reinterpret_cast") && k + 3 < d.value_to &&
                st.tokens[k + 1].text == "<" && st.tokens[k + 3].text == ">") {
              k += 3;
              continue;
            }
            plain = y != "<<" && y != ">>" && y != "?" && y != "<" && y != ">" && y != "<=" &&
                    y != ">=" && y != "==" && y != "!=" && y != "&" && y != "|" && y != "^" &&
                    y != "&&" && y != "||" && y != ",";
          }
          if (!plain) continue;
          have = true;
          local = d;
          local_statement = std::move(st);
          break;
        }
        if (have) break;
      }
    }
    if (!have) {
      out.push_back(t[i]);
      continue;
    }
    for (size_t k = local.value_from; k < local.value_to; ++k) out.push_back(local_statement.tokens[k]);
    replaced = true;
  }
  return replaced ? out : std::vector<Token>{};
}

void FileReview::ChangedDefinitions(ChangeBlock& b) {
  if (!cpp()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const Statement now = StatementAround(a);
    const Definition nd = DefinitionOf(now.tokens);
    if (!nd.found) continue;
    // A causal offset or window bound is the mask rule's question (it runs later).
    bool mask_words = false;
    for (const Token& t : now.tokens) {
      mask_words = mask_words || (t.kind == TokenKind::kIdentifier && IsMaskIdentifier(t.text, false));
    }
    if (mask_words && !gemm()) continue;
    const CodeLine* r = BestMatch(a, b, 0.3);
    if (r == nullptr || r->claimed) continue;
    const Statement was = StatementAround(*r);
    const Definition od = DefinitionOf(was.tokens);
    if (!od.found || od.lhs != nd.lhs || od.op != nd.op) continue;
    const std::string ov = Join(was.tokens, od.value_from, od.value_to);
    const std::string nv = Join(now.tokens, nd.value_from, nd.value_to);
    bool type_changed = !od.type.empty() && !nd.type.empty() && od.type != nd.type;
    // A pointer now declared `auto` (or back) from an address (`auto k = &kernel<T>;`): a
    // pointer either way, its width and layout unchanged; the value is what to ask about.
    if (type_changed && (od.type == "auto" || nd.type == "auto") &&
        (od.type.find('*') != std::string::npos || nd.type.find('*') != std::string::npos) &&
        nd.value_from < now.tokens.size() && now.tokens[nd.value_from].text == "&") {
      type_changed = false;
      // The same address, only a C-style cast dropped (`(void*) &k<T>` -> `&k<T>`).
      std::vector<std::string> o, n;
      for (size_t i = od.value_from; i < od.value_to && i < was.tokens.size(); ++i)
        o.push_back(was.tokens[i].text);
      for (size_t i = nd.value_from; i < nd.value_to && i < now.tokens.size(); ++i)
        n.push_back(now.tokens[i].text);
      if (n.size() <= o.size() && std::equal(n.begin(), n.end(), o.end() - n.size())) continue;
    }
    // Only a cast to 64 bits added: arith.width_changed's question, not a new value.
    auto Is64 = [](const std::string& x) {
      return x == "int64_t" || x == "uint64_t" || x == "size_t" || x == "index_t" ||
             x == "ptrdiff_t" || x == "long";
    };
    auto without_casts = [&](const std::vector<Token>& t, size_t from, size_t to) {
      std::string v;
      for (size_t i = from; i < to && i < t.size(); ++i) {
        if (t[i].text == "static_cast" && i + 3 < t.size() && t[i + 1].text == "<" &&
            t[i + 3].text == ">" && Is64(t[i + 2].text)) {
          i += 3;
          continue;
        }
        if (t[i].text == "(" && i + 2 < t.size() && Is64(t[i + 1].text) && t[i + 2].text == ")") {
          i += 2;
          continue;
        }
        if (t[i].text == "(" || t[i].text == ")") continue;
        v += t[i].text + " ";
      }
      return v;
    };
    if (without_casts(was.tokens, od.value_from, od.value_to) ==
            without_casts(now.tokens, nd.value_from, nd.value_to) &&
        od.type == nd.type) {
      continue;
    }
    // The old expression moved into a local the diff declares in the same function
    // (`input[row * cols + col]` -> `input[idx]` with `uint64_t idx = (uint64_t)row * cols +
    // col;`): the same value, perhaps widened, which is the width rule's question. A local
    // that lost or changed an operand on the way keeps the finding.
    if (od.type == nd.type) {
      const std::vector<Token> inlined = InlineNewLocals(now.tokens, nd.value_from, nd.value_to, a);
      if (!inlined.empty() && without_casts(was.tokens, od.value_from, od.value_to) ==
                                  without_casts(inlined, 0, inlined.size())) {
        continue;
      }
    }
    const bool value_changed = Tokenize(ov).size() != Tokenize(nv).size() || ov != nv;
    auto waits_on = [&](const Statement& st) {
      for (size_t i = nd.value_from; i < nd.value_to && i < st.tokens.size(); ++i) {
        if (st.tokens[i].text.find("wait") != std::string::npos) return true;
      }
      return false;
    };
    std::vector<CodeLine*> lines = {&a, const_cast<CodeLine*>(r)};
    std::string message;
    const std::string uses = UnchangedUses(a, nd.name, now, 3, true);
    if (type_changed) {
      message = "`" + nd.name + "` is now declared `" + nd.type + "` (was `" + od.type + "`)" +
                InFunction(lines) +
                ": the type decides its size, its layout in what holds it and how it converts. "
                "Do every copy, initializer and exchange of it (shuffles, shared memory, a struct "
                "passed to a kernel) agree with the new type?";
      if (!uses.empty()) message += " It is used unchanged at lines " + uses + ".";
    } else if (value_changed && (waits_on(now) || IndexOperands(was.tokens, od.value_from, od.value_to) !=
                                     IndexOperands(now.tokens, nd.value_from, nd.value_to))) {
      std::set<std::string> gone = Identifiers(was.tokens, od.value_from, od.value_to);
      for (const std::string& x :
           Identifiers(now.tokens, nd.value_from, nd.value_to)) {
        gone.erase(x);
      }
      std::string still;
      for (const std::string& id : gone) {
        if (IsPlainWord(id) || id == nd.name) continue;
        const std::string at = UnchangedUses(a, id, now, 2, false);
        if (!at.empty()) {
          still = " `" + id + "`, which it no longer reads, is still used at line" +
                  (at.find(", ") != std::string::npos ? "s " : " ") + at +
                  ": should those change too?";
          break;
        }
      }
      bool waits = false;
      for (size_t i = nd.value_from; i < nd.value_to && i < now.tokens.size(); ++i) {
        waits = waits || now.tokens[i].text.find("wait") != std::string::npos;
      }
      message = OldToNew(lines) + " (`" + Shorten(nd.lhs, 60) + "`)" + InFunction(lines);
      if (waits) {
        message +=
            ": the wait now watches another barrier. Does the arrive side signal this same "
            "barrier (the same stage), and is the phase the one that barrier flips?";
      } else if (!uses.empty()) {
        message += ": the value changed for every later reader. Do its unchanged uses at line" +
                   std::string(uses.find(", ") != std::string::npos ? "s " : " ") + uses +
                   " want the new value?";
      } else if (nd.lhs.find('[') != std::string::npos || nd.lhs.find("->") != std::string::npos ||
                 nd.lhs.find('.') != std::string::npos || od.type.empty()) {
        // A store to memory or to a member, the place unchanged: the value written changed,
        // and what reads it is elsewhere (another kernel, the host, a later call).
        message += ": the value written changed";
        const std::vector<std::string> plus = OperandsOnlyIn(
            IndexOperands(now.tokens, nd.value_from, nd.value_to),
            IndexOperands(was.tokens, od.value_from, od.value_to));
        std::string also;
        for (const std::string& id : plus) {
          if (IsPlainWord(id) || std::isdigit(static_cast<unsigned char>(id[0]))) continue;
          const std::string at = UnchangedFileLines(
              [&](const std::vector<Token>& t) {
                for (const Token& x : t) {
                  if (x.text == id) return true;
                }
                return false;
              },
              now, 2);
          if (!at.empty()) {
            also = " `" + id + "`, which it now reads, is also used at line" +
                   (at.find(", ") != std::string::npos ? "s " : " ") + at +
                   ": does the new value agree with them?";
            break;
          }
        }
        if (!plus.empty()) message += " (now also reads `" + plus.front() + "`)";
        message +=
            ". Does everything that reads it (the kernel or host code consuming this output, "
            "the places that compute the same quantity) expect the new value?" +
            also;
      } else {
        message +=
            ": which element does it address now? Is it right at the edges (the first and last "
            "tile, a length of 0 or 1, the largest shapes)?";
      }
      message += still;
    } else if (const TopComparison oc = TopComparisonOf(was.tokens, od.value_from, od.value_to),
               ncmp = TopComparisonOf(now.tokens, nd.value_from, nd.value_to);
               value_changed && !oc.op.empty() && oc.op == ncmp.op &&
               (oc.lhs == ncmp.lhs) != (oc.rhs == ncmp.rhs)) {
      // A test kept in a name (`alive = idx < count`): its bound was replaced.
      const bool left = oc.lhs != ncmp.lhs;
      message = "`" + nd.name + "` now tests `" + Shorten(nv, 80) + "` (bound `" +
                Shorten(left ? oc.lhs : oc.rhs, 60) + "` -> `" + Shorten(left ? ncmp.lhs : ncmp.rhs, 60) +
                "`)" + InFunction(lines) +
                ": the cases between the two bounds now get the other answer" +
                (uses.empty() ? std::string(".") : " where it is read (line" +
                     std::string(uses.find(", ") != std::string::npos ? "s " : " ") + uses + ").") +
                " Can the new bound lie beyond the old one (past what the grid or the buffers "
                "were sized for), and do the cases it now excludes still do what the others "
                "wait on (arrive at barriers, write their outputs)?";
    } else {
      continue;
    }
    // The rest of the statement's changed lines go with it.
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& x : *side) {
        const bool in_statement = x.added ? (x.side_line() >= now.first && x.side_line() <= now.last)
                                          : (x.side_line() >= was.first && x.side_line() <= was.last);
        if (in_statement && !x.claimed && &x != &a && &x != r) lines.push_back(&x);
      }
    }
    Report(kDefinition, lines, message);
  }
}

void FileReview::ChangedReturns(ChangeBlock& b) {
  if (!cpp()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed || a.tokens.size() < 3 || a.tokens[0].text != "return" || a.function.empty()) {
      continue;
    }
    const CodeLine* r = BestMatch(a, b, 0.2);
    if (r == nullptr || r->claimed || r->tokens.empty() || r->tokens[0].text != "return" ||
        r->function != a.function) {
      continue;
    }
    const Statement now = StatementAround(a), was = StatementAround(*r);
    // A causal or window test in attention code is the mask rule's question (it runs later).
    bool mask_words = IsMaskIdentifier(a.function, false);
    for (const auto* st : {&now, &was}) {
      for (const Token& t : st->tokens) {
        mask_words = mask_words || (t.kind == TokenKind::kIdentifier && IsMaskIdentifier(t.text, false));
      }
    }
    if (mask_words && !gemm()) continue;
    auto value_end = [](const std::vector<Token>& t) {
      for (size_t i = 1; i < t.size(); ++i) {
        if (t[i].text == ";") return i;
      }
      return t.size();
    };
    const size_t ne = value_end(now.tokens), oe = value_end(was.tokens);
    const std::string nv = Join(now.tokens, 1, ne), ov = Join(was.tokens, 1, oe);
    if (nv == ov) continue;
    const TopComparison nc = TopComparisonOf(now.tokens, 1, ne), oc = TopComparisonOf(was.tokens, 1, oe);
    const std::vector<std::string> no = IndexOperands(now.tokens, 1, ne),
                                   oo = IndexOperands(was.tokens, 1, oe);
    const std::string fn = a.function;
    // The callers: unchanged lines of the file that call the function.
    const std::string callers = UnchangedFileLines(
        [&](const std::vector<Token>& t) {
          for (size_t i = 0; i + 1 < t.size(); ++i) {
            if (t[i].text == fn && t[i + 1].text == "(") {
              // Not its own declaration (`bool fn(` / `int fn(`).
              // Not a declaration of it (`bool fn(int n) const {`, `T* fn(` ...).
              if (t.back().text == "{" || t.back().text == "const") return false;
              size_t p = i;
              while (p > 0 && (t[p - 1].text == "*" || t[p - 1].text == "&")) --p;
              return !(p > 0 && t[p - 1].kind == TokenKind::kIdentifier &&
                       t[p - 1].text != "return");
            }
          }
          return false;
        },
        now, 3);
    std::vector<CodeLine*> lines = {&a, const_cast<CodeLine*>(r)};
    std::string message;
    // A predicate: a comparison changed, or a constant answer became a test (`return true;`
    // -> `return n > 1;`). `x` -> `x != 0` asks the same question.
    const bool was_constant = oe == 2 && (was.tokens[1].kind == TokenKind::kNumber ||
                                          was.tokens[1].text == "true" || was.tokens[1].text == "false");
    if (!nc.op.empty() && (was_constant || (!oc.op.empty() && (oc.op != nc.op || oc.lhs != nc.lhs ||
                                                                oc.rhs != nc.rhs)))) {
      // A predicate: its answer changed for some inputs.
      message = "`" + fn + "()` now returns `" + Shorten(nv, 80) + "` (was `" + Shorten(ov, 60) +
                "`): the inputs where the two differ now take the other path at every caller" +
                (callers.empty() ? std::string("") : " (line" +
                     std::string(callers.find(", ") != std::string::npos ? "s " : " ") + callers + ")") +
                ". Which inputs are they, is the path they now take right for them, and does "
                "every place that decides the same thing (a host launcher and the kernel) still "
                "agree?";
    } else if (nc.op.empty() && oc.op.empty() && no != oo) {
      // An offset or size: every caller gets the new value; a sibling function computing the
      // same kind of value the old way may now disagree.
      std::set<std::string> calls;
      for (size_t i = 1; i + 1 < oe; ++i) {
        if (was.tokens[i].kind == TokenKind::kIdentifier && was.tokens[i + 1].text == "(") {
          calls.insert(was.tokens[i].text);
        }
      }
      std::string sibling;
      if (calls.size() >= 2 || (calls.size() == 1 && no.size() >= 1)) {
        sibling = UnchangedFileLines(
            [&](const std::vector<Token>& t) {
              if (t.empty() || t[0].text != "return") return false;
              size_t hit = 0;
              for (const Token& x : t) hit += calls.count(x.text);
              return hit >= calls.size();
            },
            now, 2);
      }
      // The first name it now reads that it did not (`data_end` in `data_end() + ...`).
      std::vector<std::string> plus;
      const std::set<std::string> old_ids = Identifiers(was.tokens, 1, oe);
      for (size_t i = 1; i < ne && plus.empty(); ++i) {
        if (IsIdentifierToken(now.tokens[i]) && !old_ids.count(now.tokens[i].text) &&
            !IsPlainWord(now.tokens[i].text)) {
          plus.push_back(now.tokens[i].text);
        }
      }
      message = "`" + fn + "()` now returns `" + Shorten(nv, 80) + "` (was `" + Shorten(ov, 60) +
                "`)" + (plus.empty() ? std::string("") : ", now also reading `" + plus.front() + "`") +
                ": every caller gets the new offset or size" +
                (callers.empty() ? std::string("") : " (line" +
                     std::string(callers.find(", ") != std::string::npos ? "s " : " ") + callers + ")") +
                ".";
      if (!sibling.empty()) {
        message += " The same computation is still made the old way at line" +
                   std::string(sibling.find(", ") != std::string::npos ? "s " : " ") + sibling +
                   ": should it change too?";
      }
      message +=
          " Does the buffer it indexes cover the new largest value, and do the writers and "
          "readers of that buffer (other kernels, the host) compute it the same way?";
    } else {
      continue;
    }
    Report(kDefinition, lines, message);
  }
}

void FileReview::ChangedStrideArguments(ChangeBlock& b) {
  if (!cpp()) return;
  // An argument list edited in place so that it now passes other strides
  // (`{_1{}, seqlen_q, ...}` -> `{_1{}, params.x_head_stride, ...}`): what changed is the
  // layout a tensor is described with.
  for (CodeLine& a : b.added) {
    // A branch's line is the condition rules'; a ternary inside an argument list is no
    // branch (`{_1{}, !varlen ? a : 0, ...}`).
    const bool branch = IsGuardLine(a) && std::none_of(a.tokens.begin(), a.tokens.end(),
                                                        [](const Token& t) {
                                                          return t.text == "?";
                                                        });
    const bool leads_with_branch =
        !a.tokens.empty() && (a.tokens[0].text == "if" || a.tokens[0].text == "for" ||
                              a.tokens[0].text == "while" || a.tokens[0].text == "}" ||
                              a.tokens[0].text == "else");
    if (a.claimed || a.in_signature || branch || leads_with_branch || a.tokens.empty() ||
        a.tokens[0].text == "return") {
      continue;
    }
    // A definition's value is the definition rule's; a signature is the interface rule's.
    if (DefinitionOf(StatementAround(a).tokens).found) continue;
    bool assigns = false;
    for (size_t i = 0, d = 0; i < a.tokens.size(); ++i) {
      if (IsOpen(a.tokens[i].text)) ++d;
      if (IsClose(a.tokens[i].text) && d > 0) --d;
      assigns = assigns || (d == 0 && a.tokens[i].text == "=");
    }
    if (assigns) continue;
    const CodeLine* r = BestMatch(a, b, 0.4);
    if (r == nullptr || r->claimed) continue;
    const std::vector<Token>& x = a.tokens;
    const std::vector<Token>& y = r->tokens;
    const auto [pre, suf] = CommonTokenEnds(x, y);
    auto strides = [](const std::vector<Token>& t, size_t from, size_t to) {
      std::set<std::string> out;
      for (size_t i = from; i < to; ++i) {
        if (t[i].kind == TokenKind::kIdentifier && HasWord(t[i].text, {"stride", "strides"})) {
          out.insert(t[i].text);
        }
      }
      return out;
    };
    const std::set<std::string> now = strides(x, pre, x.size() - suf),
                                was = strides(y, pre, y.size() - suf);
    if (now.empty() || now == was) continue;
    std::vector<CodeLine*> lines = {const_cast<CodeLine*>(r), &a};
    Report(kDefinition, lines,
           "strides passed: " + OldToNew(lines) + InFunction(lines) +
               ": the tensor is now described with `" + *now.begin() + "`" +
               (now.size() > 1 ? " and " + std::to_string(now.size() - 1) + " more" : std::string("")) +
               ". Do these strides match the layout the buffer was allocated with (per head, "
               "batch and split), and do its other writers and readers (a combine kernel, the "
               "host) use the same ones?");
  }
}

}  // namespace av
