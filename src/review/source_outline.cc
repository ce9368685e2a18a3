#include "review/source_outline.h"

#include <algorithm>
#include <set>

namespace av {
namespace {

// Lines longer than this are outlined on their first bytes (a 50 MB line is data, not code).
constexpr size_t kMaxOutlineLineBytes = 16 << 10;
// A declaration header longer than this many tokens is not a signature.
constexpr size_t kMaxHeaderTokens = 2048;

bool IsControlWord(std::string_view s) {
  static const std::set<std::string_view> kWords = {
      "if",        "for",      "while",    "switch",        "catch",  "return",  "sizeof",
      "else",      "do",       "try",      "static_assert", "typeid", "alignof", "decltype",
      "case",      "default",  "new",      "delete",        "throw",  "goto",    "constexpr",
      "co_return", "requires", "noexcept", "operator",      "using",  "typedef"};
  return kWords.count(s) > 0;
}

// Attribute-like macros written before a function's name: their parentheses are not the
// parameter list ("__global__ void __launch_bounds__(256, 1) k(...)").
bool IsAttributeWord(std::string_view s) {
  static const std::set<std::string_view> kWords = {
      "__launch_bounds__", "__attribute__", "alignas",        "__align__",  "__declspec",
      "__cluster_dims__",  "__maxnreg__",   "CUTLASS_DEVICE", "CUTE_DEVICE"};
  return kWords.count(s) > 0;
}

struct HeaderToken {
  const Token* token;
  int64_t line;
};

// Skips a balanced "<...>" starting at h[i] == "<"; returns the index after it.
size_t SkipAngles(const std::vector<HeaderToken>& h, size_t i) {
  int depth = 0;
  for (; i < h.size(); ++i) {
    const std::string& t = h[i].token->text;
    if (t == "<") ++depth;
    if (t == ">" && --depth == 0) return i + 1;
    if (t == "(" || t == ")" || t == ";") return i + 1;  // not a template list after all
  }
  return i;
}

// Skips a balanced "(...)" starting at h[i] == "("; returns the index after it.
size_t SkipParens(const std::vector<HeaderToken>& h, size_t i) {
  int depth = 0;
  for (; i < h.size(); ++i) {
    const std::string& t = h[i].token->text;
    if (t == "(") ++depth;
    if (t == ")" && --depth == 0) return i + 1;
  }
  return i;
}

enum class HeaderKind { kBlock, kFunction, kScope };

struct Classified {
  HeaderKind kind = HeaderKind::kBlock;
  std::string name, keyword;
  FunctionKind function_kind = FunctionKind::kHost;
  int64_t header_line = 0, signature_line = 0;
};

Classified ClassifyHeader(const std::vector<HeaderToken>& h) {
  Classified c;
  if (h.empty()) return c;
  c.header_line = h.front().line;
  size_t i = 0;
  // template <...> (possibly several) and [[attributes]].
  while (i < h.size()) {
    if (h[i].token->text == "template" && i + 1 < h.size() && h[i + 1].token->text == "<") {
      i = SkipAngles(h, i + 1);
    } else if (h[i].token->text == "[" && i + 1 < h.size() && h[i + 1].token->text == "[") {
      while (i < h.size() && h[i].token->text != "]") ++i;
      i += 2;
    } else {
      break;
    }
  }
  if (i >= h.size()) return c;
  const std::string& first = h[i].token->text;
  if (first == "namespace" || first == "extern") {
    c.kind = first == "namespace" ? HeaderKind::kScope : HeaderKind::kBlock;
    c.keyword = "namespace";
    for (size_t k = i + 1; k < h.size(); ++k) {
      if (h[k].token->kind == TokenKind::kIdentifier) c.name = h[k].token->text;
    }
    return c;
  }
  // enum / struct / class / union before any '(' or '='.
  for (size_t k = i; k < h.size(); ++k) {
    const std::string& t = h[k].token->text;
    if (t == "(" || t == "=" || t == "return") break;
    if (t == "enum" || t == "struct" || t == "class" || t == "union") {
      c.kind = HeaderKind::kScope;
      c.keyword = t == "enum" ? "enum" : t;
      size_t n = k + 1;
      while (n < h.size() && (h[n].token->text == "class" || h[n].token->text == "struct")) ++n;
      if (n < h.size() && h[n].token->kind == TokenKind::kIdentifier &&
          h[n].token->text != "alignas") {
        c.name = h[n].token->text;
      }
      return c;
    }
  }
  // A function: the first '(' at top level that is not an attribute's.
  bool device = false, global = false;
  for (size_t k = i; k < h.size();) {
    const Token& t = *h[k].token;
    if (t.text == "__global__") global = true;
    if (t.text == "__device__" || t.text == "CUTLASS_DEVICE" || t.text == "CUTE_DEVICE" ||
        t.text == "CUTLASS_HOST_DEVICE" || t.text == "CUTE_HOST_DEVICE") {
      device = true;
    }
    if (t.kind == TokenKind::kIdentifier && IsControlWord(t.text) && t.text != "constexpr" &&
        t.text != "noexcept" && t.text != "operator") {
      return c;  // if/for/while/return ... {
    }
    if (t.text == "=" || t.text == "]" || t.text == "{") return c;  // initializer or lambda
    if (t.kind == TokenKind::kIdentifier && IsAttributeWord(t.text)) {
      k = k + 1 < h.size() && h[k + 1].token->text == "(" ? SkipParens(h, k + 1) : k + 1;
      continue;
    }
    if (t.text == "<" && k > i && h[k - 1].token->kind == TokenKind::kIdentifier) {
      k = SkipAngles(h, k);  // a template-id in the return type or the name
      continue;
    }
    if (t.text == "(") {
      if (k == i) return c;
      const Token& name = *h[k - 1].token;
      if (name.kind != TokenKind::kIdentifier || IsControlWord(name.text)) return c;
      if (k >= i + 2) {
        const std::string& before = h[k - 2].token->text;
        if (before == "." || before == "->") return c;  // a call: x.f(...) {
      }
      c.kind = HeaderKind::kFunction;
      c.name = name.text;
      c.signature_line = h[k - 1].line;
      c.function_kind = global   ? FunctionKind::kKernel
                        : device ? FunctionKind::kDevice
                                 : FunctionKind::kHost;
      return c;
    }
    ++k;
  }
  return c;
}

void OutlineCpp(SourceOutline* out) {
  struct Open {
    HeaderKind kind;
    int32_t index;
  };
  std::vector<Open> stack;
  std::vector<std::vector<Token>> line_tokens(out->lines.size());
  std::vector<HeaderToken> header;
  int paren_depth = 0;
  bool continued_directive = false;
  size_t freed = 0;  // line_tokens[0, freed) are released
  CommentStripper strip(SourceLanguage::kCpp);
  for (size_t li = 0; li < out->lines.size(); ++li) {
    const int64_t line_no = static_cast<int64_t>(li) + 1;
    std::string_view raw = out->lines[li];
    if (raw.size() > kMaxOutlineLineBytes) raw = raw.substr(0, kMaxOutlineLineBytes);
    std::string code = strip.Strip(raw);
    const bool directive = continued_directive || (!code.empty() && code[0] == '#');
    continued_directive = directive && !raw.empty() && raw.back() == '\\';
    if (directive || code.empty()) continue;
    line_tokens[li] = Tokenize(code);
    for (const Token& t : line_tokens[li]) {
      if (t.kind == TokenKind::kOperator && t.text == "{") {
        if (paren_depth > 0) {  // a brace inside parentheses: an initializer argument
          header.push_back({&t, line_no});
          continue;
        }
        Classified c = ClassifyHeader(header);
        if (c.kind == HeaderKind::kFunction) {
          OutlineFunction f;
          f.name = c.name;
          f.kind = c.function_kind;
          f.header_line = c.header_line;
          f.signature_line = c.signature_line;
          f.open_line = line_no;
          f.close_line = static_cast<int64_t>(out->lines.size());
          out->functions.push_back(std::move(f));
          stack.push_back({HeaderKind::kFunction, static_cast<int32_t>(out->functions.size() - 1)});
        } else if (c.kind == HeaderKind::kScope) {
          out->scopes.push_back(
              {c.keyword, c.name, line_no, static_cast<int64_t>(out->lines.size())});
          stack.push_back({HeaderKind::kScope, static_cast<int32_t>(out->scopes.size() - 1)});
        } else {
          stack.push_back({HeaderKind::kBlock, -1});
        }
        header.clear();
        continue;
      }
      if (t.kind == TokenKind::kOperator && t.text == "}") {
        if (paren_depth > 0) {
          header.push_back({&t, line_no});
          continue;
        }
        if (!stack.empty()) {
          const Open o = stack.back();
          stack.pop_back();
          if (o.kind == HeaderKind::kFunction) out->functions[o.index].close_line = line_no;
          if (o.kind == HeaderKind::kScope) out->scopes[o.index].close_line = line_no;
        }
        header.clear();
        paren_depth = 0;
        continue;
      }
      if (t.text == "(") ++paren_depth;
      if (t.text == ")" && paren_depth > 0) --paren_depth;
      if (t.text == ";" && paren_depth == 0) {
        header.clear();
        continue;
      }
      // "public:" and "case X:" end nothing; keep the header small.
      if (header.size() < kMaxHeaderTokens) header.push_back({&t, line_no});
    }
    // Tokens of lines no header points into are not needed again.
    const size_t live = header.empty() ? li + 1 : static_cast<size_t>(header.front().line - 1);
    for (; freed < live; ++freed) std::vector<Token>().swap(line_tokens[freed]);
  }
}

void OutlinePython(SourceOutline* out) {
  struct Open {
    int indent;
    int32_t index;  // function index, or -1 - scope index
  };
  std::vector<Open> stack;
  CommentStripper strip(SourceLanguage::kPython);
  int paren_depth = 0;
  int64_t last_code_line = 0;
  auto close_to = [&](int indent) {
    while (!stack.empty() && stack.back().indent >= indent) {
      const Open o = stack.back();
      stack.pop_back();
      if (o.index >= 0) {
        out->functions[o.index].close_line = last_code_line;
      } else {
        out->scopes[-1 - o.index].close_line = last_code_line;
      }
    }
  };
  for (size_t li = 0; li < out->lines.size(); ++li) {
    const int64_t line_no = static_cast<int64_t>(li) + 1;
    std::string_view raw = out->lines[li];
    if (raw.size() > kMaxOutlineLineBytes) raw = raw.substr(0, kMaxOutlineLineBytes);
    std::string code = strip.Strip(raw);
    if (code.empty()) continue;
    std::vector<Token> tokens = Tokenize(code);
    if (paren_depth == 0) {
      const int indent = IndentOf(raw);
      close_to(indent);
      size_t k = 0;
      if (tokens.size() > 1 && tokens[0].text == "async") k = 1;
      if (k + 1 < tokens.size() && tokens[k + 1].kind == TokenKind::kIdentifier &&
          (tokens[k].text == "def" || tokens[k].text == "class")) {
        if (tokens[k].text == "def") {
          OutlineFunction f;
          f.name = tokens[k + 1].text;
          f.kind = FunctionKind::kPython;
          f.header_line = f.signature_line = f.open_line = line_no;
          f.close_line = line_no;
          out->functions.push_back(std::move(f));
          stack.push_back({indent, static_cast<int32_t>(out->functions.size() - 1)});
        } else {
          out->scopes.push_back({"class", tokens[k + 1].text, line_no, line_no});
          stack.push_back({indent, -1 - static_cast<int32_t>(out->scopes.size() - 1)});
        }
      }
    }
    for (const Token& t : tokens) {
      if (t.text == "(" || t.text == "[" || t.text == "{") ++paren_depth;
      if ((t.text == ")" || t.text == "]" || t.text == "}") && paren_depth > 0) --paren_depth;
    }
    last_code_line = line_no;
  }
  close_to(-1);
}

}  // namespace

std::string SignatureName(const std::vector<Token>& t, std::string_view code,
                          bool allow_bare_name) {
  if (t.empty() || code.empty() || code.back() == ';' || code[0] == '#') return "";
  if (t[0].kind == TokenKind::kIdentifier && IsControlWord(t[0].text)) return "";
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == TokenKind::kOperator &&
        (t[i].text == "=" || t[i].text == "<<" || t[i].text == "." || t[i].text == "->")) {
      return "";
    }
    if (t[i].kind == TokenKind::kIdentifier && IsAttributeWord(t[i].text) && i + 1 < t.size() &&
        t[i + 1].text == "(") {
      int depth = 0;
      for (++i; i < t.size(); ++i) {
        if (t[i].text == "(") ++depth;
        if (t[i].text == ")" && --depth == 0) break;
      }
      continue;
    }
    if (t[i].text == "(") {
      if (i == 0 || t[i - 1].kind != TokenKind::kIdentifier || IsControlWord(t[i - 1].text)) {
        return "";
      }
      // "bool f(", "__global__ void k(": a type before the name. git's hunk header shows
      // a line that starts at column 0; "name(" there is a signature whose return type is
      // on the line before ("fp8_gemm_kernel(__nv_bfloat16* gmem_d, ...").
      if (i < 2 && !allow_bare_name) return "";
      return t[i - 1].text;
    }
  }
  return "";
}

const OutlineFunction* SourceOutline::FunctionAt(int64_t line) const {
  if (line < 1 || line > static_cast<int64_t>(function_of_line.size())) return nullptr;
  const int32_t i = function_of_line[static_cast<size_t>(line - 1)];
  return i < 0 ? nullptr : &functions[static_cast<size_t>(i)];
}

const OutlineScope* SourceOutline::ScopeAt(int64_t line) const {
  if (line < 1 || line > static_cast<int64_t>(scope_of_line.size())) return nullptr;
  const int32_t i = scope_of_line[static_cast<size_t>(line - 1)];
  return i < 0 ? nullptr : &scopes[static_cast<size_t>(i)];
}

std::string_view SourceOutline::Line(int64_t line) const {
  if (line < 1 || line > static_cast<int64_t>(lines.size())) return {};
  return lines[static_cast<size_t>(line - 1)];
}

SourceOutline BuildSourceOutline(std::string_view text, SourceLanguage language) {
  SourceOutline out;
  size_t pos = 0;
  while (pos < text.size() && static_cast<int64_t>(out.lines.size()) < kMaxOutlineLines) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.lines.emplace_back(line);
    pos = nl + 1;
  }
  if (language == SourceLanguage::kCpp) OutlineCpp(&out);
  if (language == SourceLanguage::kPython) OutlinePython(&out);
  out.function_of_line.assign(out.lines.size(), -1);
  out.scope_of_line.assign(out.lines.size(), -1);
  // Created outer before inner, so inner ranges overwrite their enclosing ones.
  for (size_t i = 0; i < out.functions.size(); ++i) {
    const OutlineFunction& f = out.functions[i];
    for (int64_t l = std::max<int64_t>(f.header_line, 1);
         l <= f.close_line && l <= static_cast<int64_t>(out.lines.size()); ++l) {
      out.function_of_line[static_cast<size_t>(l - 1)] = static_cast<int32_t>(i);
    }
  }
  for (size_t i = 0; i < out.scopes.size(); ++i) {
    const OutlineScope& s = out.scopes[i];
    if (s.keyword == "namespace") continue;
    for (int64_t l = std::max<int64_t>(s.open_line, 1);
         l <= s.close_line && l <= static_cast<int64_t>(out.lines.size()); ++l) {
      out.scope_of_line[static_cast<size_t>(l - 1)] = static_cast<int32_t>(i);
    }
  }
  return out;
}

}  // namespace av
