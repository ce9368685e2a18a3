// arith.width_changed: size or offset arithmetic widened to 64 bits (a cast, a 64-bit
// literal, a declaration made wider, `sizeof` moved to the front of a product), with what a
// widening leaves behind: the 32-bit declaration it is stored back in, a struct passed to a
// kernel by value that grows, and a cast followed by `+` that lost the operand it meant to
// widen.
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

// A C cast to an integer type followed by `+` (`row * (uint64_t) + column`): it casts a
// unary plus, `+column`, so the operand the product meant to widen is missing. Asked on the
// added line, under arith.width_changed (it is how a widening goes wrong).
void FileReview::CastsWithoutOperand(ChangeBlock& b) {
  if (!cpp()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const std::vector<Token>& t = a.tokens;
    for (size_t i = 1; i + 3 < t.size(); ++i) {
      if (t[i].text != "(" || !IsIntegerTypeName(t[i + 1].text) || t[i + 2].text != ")" ||
          t[i + 3].text != "+") {
        continue;
      }
      // After an operator: a cast that starts an operand, not a call `f(int) + x`.
      const std::string& before = t[i - 1].text;
      if (before != "*" && before != "+" && before != "-" && before != "/" && before != "=" &&
          before != "(" && before != ",") {
        continue;
      }
      std::vector<CodeLine*> lines = {&a};
      const std::string cast = "(" + t[i + 1].text + ")";
      const std::string lead = statement::Join(t, i >= 2 ? i - 2 : i - 1, i);
      Report(kWidth, lines,
             "`" + Shorten(a.code, 100) + "`" + InFunction(lines) + ": `" + cast +
                 " +` casts the unary plus of what follows, so this reads `" + lead + " " + cast +
                 "(+...)`: an operand between `" + cast + "` and `+` is missing (a row stride, a "
                 "column count). Is every term of the index still in it?");
      break;
    }
  }
}

void FileReview::Widths(ChangeBlock& b) {
  if (!cpp()) return;
  auto is_wide = [](const std::string& x) {
    return x == "uint64_t" || x == "int64_t" || x == "size_t" || x == "index_t" || x == "int64" ||
           x == "ptrdiff_t" || x == "uint64";
  };
  auto is_narrow = [](const std::string& x) {
    return x == "int" || x == "uint32_t" || x == "int32_t" || x == "unsigned";
  };
  // Casts to a 64-bit type: static_cast<int64_t>(x), (int64_t)x, int64_t(x).
  auto casts = [&](const CodeLine& l) {
    int n = 0;
    const auto& t = l.tokens;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!is_wide(t[i].text)) continue;
      const bool static_cast_arg = i >= 2 && t[i - 1].text == "<" && t[i - 2].text == "static_cast";
      const bool c_cast =
          i >= 1 && t[i - 1].text == "(" && i + 1 < t.size() && t[i + 1].text == ")";
      const bool functional = i + 1 < t.size() && t[i + 1].text == "(" &&
                              (i == 0 || t[i - 1].kind != TokenKind::kIdentifier);
      n += static_cast_arg || c_cast || functional;
    }
    // 64-bit literals: `128ll * bidb`, `1ull << k`.
    for (const Token& x : t) {
      if (x.kind != TokenKind::kNumber || x.text.size() < 3) continue;
      std::string suffix;
      for (size_t k = x.text.size(); k > 0 && std::isalpha(static_cast<unsigned char>(x.text[k - 1])); --k)
        suffix.insert(suffix.begin(), static_cast<char>(std::tolower(x.text[k - 1])));
      n += suffix == "ll" || suffix == "ull" || suffix == "llu" || suffix == "ul" || suffix == "lu";
    }
    return n;
  };
  auto arithmetic = [](const CodeLine& l) {
    for (const Token& t : l.tokens) {
      if (t.text == "*" || t.text == "+=" || t.text == "*=" || t.text == "+") return true;
    }
    return false;
  };
  auto sizeof_at = [](const CodeLine& l) -> size_t {
    for (size_t i = 0; i < l.tokens.size(); ++i) {
      if (l.tokens[i].text == "sizeof") return i;
    }
    return l.tokens.size();
  };
  std::vector<CodeLine*> widened;
  for (CodeLine& a : b.added) {
    // A kernel's parameter is its interface first (kernel.interface_changed asks).
    if (a.claimed || a.in_kernel_signature) continue;
    CodeLine* r = const_cast<CodeLine*>(BestMatch(a, b, 0.5));
    if (r == nullptr || r->claimed) continue;
    // `B*H*Q * sizeof(T)` -> `sizeof(T) * B*H*Q`: the product now starts in size_t.
    const bool sizeof_first = r->token_hashes == a.token_hashes && sizeof_at(a) < sizeof_at(*r);
    // `int sum_k = 0;` -> `uint64_t sum_k = 0;`: the same name declared wider.
    const bool declared_wide = a.tokens.size() >= 2 && r->tokens.size() >= 2 &&
                               is_narrow(r->tokens[0].text) && is_wide(a.tokens[0].text) &&
                               a.tokens[1].text == r->tokens[1].text;
    const bool cast = casts(a) > casts(*r) && arithmetic(a);
    if (sizeof_first || declared_wide || cast) {
      widened.push_back(r);
      widened.push_back(&a);
      // The rest of a statement split over lines goes with it (one question, not a second
      // rule's on its continuation lines).
      const Statement now = StatementAround(a), was = StatementAround(*r);
      for (auto* side : {&b.removed, &b.added}) {
        for (CodeLine& x : *side) {
          const Statement& st = x.added ? now : was;
          if (!x.claimed && &x != &a && &x != r && x.side_line() >= st.first &&
              x.side_line() <= st.last) {
            widened.push_back(&x);
          }
        }
      }
    }
  }
  if (widened.empty()) return;
  Report(kWidth, widened, [&](const std::vector<CodeLine*>& run) {
    // A member array of a struct widened: such metadata structs are often passed to a
    // kernel by value, where all parameters share a 4 KB limit.
    bool struct_array = false;
    for (const CodeLine* l : run) {
      // `int64_t sizes[N];`: a declared array, no value assigned.
      const auto& t = l->tokens;
      const bool declaration = t.size() >= 5 && t.back().text == ";" &&
                               l->code.find('=') == std::string::npos;
      bool array_member = false;
      for (size_t i = 2; declaration && i < t.size(); ++i) {
        if (t[i].text == "[") {
          array_member = t[i - 1].kind == TokenKind::kIdentifier &&
                         t[i - 2].kind == TokenKind::kIdentifier;
          break;
        }
      }
      struct_array = struct_array ||
                     (l->added && array_member && l->function.empty() &&
                      (l->scope_keyword == "struct" || l->scope_keyword == "class"));
    }
    // `int end = min((int64_t)a + b, n);`: computed in 64 bits, stored back in 32.
    std::string narrowed;
    for (const CodeLine* l : run) {
      const auto& t = l->tokens;
      if (!l->added || t.size() < 4) continue;
      size_t k = t[0].text == "const" ? 1 : 0;
      if (k + 2 < t.size() && is_narrow(t[k].text) && t[k + 1].kind == TokenKind::kIdentifier &&
          t[k + 2].text == "=" && casts(*l) > 0) {
        narrowed = " The 64-bit value is stored in `" + t[k].text + " " + t[k + 1].text +
                   "`: does it fit there, or does the overflow come back at the assignment?";
        break;
      }
    }
    return OldToNew(run) + InFunction(run) +
           ": the size or offset is now computed in 64 bits, so the 32-bit result overflowed for "
           "large shapes (2^31 elements or bytes). Do the other products of the same sizes "
           "(offsets, strides, workspace sizes, grid dims) still use 32 bits, and does a swept "
           "shape come near 2^31?" + narrowed +
           (struct_array ? std::string(" The member array doubles in size: if the struct is "
                                       "passed to a kernel by value, do it and the other "
                                       "arguments stay under the 4 KB parameter limit?")
                         : std::string(""));
  });
}

}  // namespace av
