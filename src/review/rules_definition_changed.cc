// value.definition_changed: a definition or assignment read whole (also over several
// lines) whose index arithmetic, wait barrier or declared type changed, with the unchanged
// lines that still read the name and the operands it no longer reads. It runs before the
// rules that match words, so an index fix is not asked about "the interface" because it
// names a stride.
#include <algorithm>
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
    d.type = Join(t, 0, lhs_from);
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

}  // namespace

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
    const bool type_changed = !od.type.empty() && !nd.type.empty() && od.type != nd.type;
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
      } else {
        message +=
            ": which element does it address now? Is it right at the edges (the first and last "
            "tile, a length of 0 or 1, the largest shapes)?";
      }
      message += still;
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

}  // namespace av
