#include "review/code_text.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace av {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

}  // namespace

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

SourceLanguage LanguageOfPath(std::string_view path) {
  std::string p = ToLower(path);
  for (std::string_view ext : {".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".c", ".cc", ".cpp",
                               ".cxx", ".inl", ".ipp", ".tcc", ".cutlass"}) {
    if (EndsWith(p, ext)) return SourceLanguage::kCpp;
  }
  if (EndsWith(p, ".py") || EndsWith(p, ".pyi")) return SourceLanguage::kPython;
  return SourceLanguage::kOther;
}

bool IsTestOrDocPath(std::string_view path) {
  std::string p = "/";
  p += ToLower(path);
  for (std::string_view dir : {"/test/", "/tests/", "/testing/", "/unittest/", "/unittests/",
                               "/docs/", "/doc/", "/testdata/", "/benchmarks/tests/"}) {
    if (p.find(dir) != std::string::npos) return true;
  }
  size_t slash = p.rfind('/');
  std::string_view base = std::string_view(p).substr(slash + 1);
  if (base.substr(0, 5) == "test_" || base == "conftest.py") return true;
  for (std::string_view suffix : {"_test.cc", "_test.cpp", "_test.cu", "_test.py", "_tests.py",
                                  "_test.h", "_unittest.cc", ".md", ".rst", ".txt"}) {
    if (EndsWith(base, suffix)) return true;
  }
  return false;
}

std::string OpenDocstringAtStart(const std::vector<std::string_view>& lines) {
  for (std::string_view raw : lines) {
    for (std::string_view delim : {"\"\"\"", "\'\'\'"}) {
      size_t at = raw.find(delim);
      if (at == std::string_view::npos) continue;
      std::string_view before = Trim(raw.substr(0, at));
      size_t count = 0;
      for (size_t p = raw.find(delim); p != std::string_view::npos; p = raw.find(delim, p + 3))
        ++count;
      if (count % 2 == 0) return "";  // """one line""": opens and closes
      std::string_view after = Trim(raw.substr(at + 3));
      // Opening: `"""Text`, `x = """`, `f("""`, `r"""`. Closing: a lone `"""` after
      // prose, or `text."""`.
      bool opening = (before.empty() && !after.empty()) || before == "r" || before == "b" ||
                     before == "f" ||
                     (!before.empty() &&
                      (before.back() == '=' || before.back() == '(' || before.back() == ','));
      if (opening) return "";
      return std::string(delim);
    }
  }
  return "";
}

bool LooksLikeProse(std::string_view code) {
  static const char* kKeywords[] = {
      "and",    "as",   "assert", "async",  "await",    "break", "class", "continue", "def",
      "del",    "elif", "else",   "except", "finally",  "for",   "from",  "global",   "if",
      "import", "in",   "is",     "lambda", "nonlocal", "not",   "or",    "pass",     "raise",
      "return", "try",  "while",  "with",   "yield",    "match", "case",  "print"};
  int run = 0;
  for (const Token& t : Tokenize(code)) {
    bool keyword = false;
    for (const char* k : kKeywords) keyword = keyword || t.text == k;
    if (t.kind == TokenKind::kIdentifier && !keyword) {
      if (++run >= 3) return true;
    } else {
      run = 0;
    }
  }
  return false;
}

std::string CommentStripper::Strip(std::string_view line, std::string* source) {
  std::string out;
  size_t i = 0;
  const size_t n = line.size();
  // The raw span [first, last] of the code characters kept in `out`.
  size_t first = std::string_view::npos, last = 0;
  auto keep = [&](size_t from, size_t count) {
    out.append(line.substr(from, count));
    for (size_t k = from; k < from + count && k < n; ++k) {
      if (std::isspace(static_cast<unsigned char>(line[k]))) continue;
      if (first == std::string_view::npos) first = k;
      last = k;
    }
  };
  // A quoted literal starting at i, kept whole (a comment marker inside is text).
  auto keep_literal = [&] {
    const char quote = line[i];
    size_t j = i + 1;
    while (j < n && line[j] != quote) j += line[j] == '\\' ? 2 : 1;
    keep(i, std::min(j + 1, n) - i);
    i = j + 1;
  };
  auto done = [&] {
    if (source != nullptr) {
      *source = first == std::string_view::npos ? std::string()
                                                : std::string(line.substr(first, last - first + 1));
    }
    return std::string(Trim(out));
  };
  if (language_ == SourceLanguage::kPython) {
    while (i < n) {
      if (!triple_.empty()) {
        size_t end = line.find(triple_, i);
        if (end == std::string_view::npos) return done();
        i = end + 3;
        triple_.clear();
        continue;
      }
      char c = line[i];
      if (c == '#') break;
      if ((c == '"' || c == '\'') && i + 2 < n && line[i + 1] == c && line[i + 2] == c) {
        // A triple-quoted string is a docstring or text: not code the rules look at.
        triple_ = std::string(3, c);
        i += 3;
        continue;
      }
      if (c == '"' || c == '\'') {
        keep_literal();
        continue;
      }
      keep(i, 1);
      ++i;
    }
    return done();
  }
  if (language_ != SourceLanguage::kCpp) {
    keep(0, n);
    return done();
  }
  while (i < n) {
    if (in_block_comment_) {
      size_t end = line.find("*/", i);
      if (end == std::string_view::npos) return done();
      i = end + 2;
      in_block_comment_ = false;
      out += ' ';
      continue;
    }
    char c = line[i];
    if (c == '/' && i + 1 < n && line[i + 1] == '/') break;
    if (c == '/' && i + 1 < n && line[i + 1] == '*') {
      in_block_comment_ = true;
      i += 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      keep_literal();
      continue;
    }
    keep(i, 1);
    ++i;
  }
  return done();
}

CommonEnds CommonTokenEnds(const std::vector<Token>& x, const std::vector<Token>& y) {
  CommonEnds e;
  while (e.prefix < x.size() && e.prefix < y.size() && x[e.prefix].text == y[e.prefix].text) {
    ++e.prefix;
  }
  while (e.suffix < x.size() - e.prefix && e.suffix < y.size() - e.prefix &&
         x[x.size() - 1 - e.suffix].text == y[y.size() - 1 - e.suffix].text) {
    ++e.suffix;
  }
  return e;
}

std::vector<Token> Tokenize(std::string_view code) {
  static constexpr std::array<std::string_view, 22> kOps = {
      "<<=", ">>=", "...", "->*", "<=", ">=", "==", "!=", "&&", "||", "->",
      "::",  "++",  "--",  "+=",  "-=", "*=", "/=", "%=", "|=", "&=", "^="};
  std::vector<Token> tokens;
  size_t i = 0;
  const size_t n = code.size();
  while (i < n) {
    char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (IsIdentStart(c)) {
      size_t j = i + 1;
      while (j < n && IsIdentChar(code[j])) ++j;
      tokens.push_back({TokenKind::kIdentifier, std::string(code.substr(i, j - i))});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(code[i + 1])))) {
      size_t j = i + 1;
      while (j < n &&
             (IsIdentChar(code[j]) || code[j] == '.' || code[j] == '\'' ||
              ((code[j] == '+' || code[j] == '-') && (code[j - 1] == 'e' || code[j - 1] == 'E') &&
               !(code[i] == '0' && i + 1 < n && (code[i + 1] == 'x' || code[i + 1] == 'X'))))) {
        ++j;
      }
      tokens.push_back({TokenKind::kNumber, std::string(code.substr(i, j - i))});
      i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && code[j] != c) j += code[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, n);
      tokens.push_back({TokenKind::kString, std::string(code.substr(i, j - i))});
      i = j;
      continue;
    }
    size_t len = 1;
    for (std::string_view op : kOps) {
      if (code.substr(i, op.size()) == op) {
        len = op.size();
        break;
      }
    }
    tokens.push_back({TokenKind::kOperator, std::string(code.substr(i, len))});
    i += len;
  }
  return tokens;
}

std::string NormalizeCode(std::string_view code) {
  std::string out;
  for (const Token& t : Tokenize(code)) {
    if (!out.empty()) out += ' ';
    out += t.text;
  }
  return out;
}

std::string CanonicalCode(const std::vector<Token>& tokens) {
  std::vector<std::string_view> t;
  t.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& x = tokens[i].text;
    if (x == "=" && i + 1 < tokens.size() && tokens[i + 1].text == "{" && i > 0 &&
        tokens[i - 1].kind == TokenKind::kIdentifier) {
      continue;
    }
    t.push_back(x);
  }
  std::string out;
  std::vector<std::string> owned;  // storage for rewritten names
  owned.reserve(8);
  for (size_t i = 0; i < t.size(); ++i) {
    std::string_view x = t[i];
    // typename std :: NAME < ... > :: type  ->  std :: NAME_t < ... >
    const bool type_trait =
        x == "typename" && i + 3 < t.size() && t[i + 1] == "std" && t[i + 2] == "::";
    const bool value_trait = x == "std" && i + 2 < t.size() && t[i + 1] == "::";
    if (type_trait || value_trait) {
      const size_t name = type_trait ? i + 3 : i + 2;
      if (name + 1 < t.size() && t[name + 1] == "<") {
        int depth = 0;
        size_t close = name + 1;
        for (; close < t.size(); ++close) {
          if (t[close] == "<") ++depth;
          if (t[close] == ">" && --depth == 0) break;
        }
        if (close + 2 < t.size() && t[close + 1] == "::" &&
            ((type_trait && t[close + 2] == "type") || (value_trait && t[close + 2] == "value"))) {
          owned.push_back(std::string(t[name]) + (type_trait ? "_t" : "_v"));
          for (std::string_view part :
               {std::string_view("std"), std::string_view("::"), std::string_view(owned.back())}) {
            if (!out.empty()) out += ' ';
            out += part;
          }
          for (size_t k = name + 1; k <= close; ++k) {
            out += ' ';
            out += t[k];
          }
          i = close + 2;
          continue;
        }
      }
    }
    if (!out.empty()) out += ' ';
    out += x;
  }
  return out;
}

std::vector<std::string> Identifiers(std::string_view code) {
  std::vector<std::string> out;
  for (Token& t : Tokenize(code)) {
    if (t.kind == TokenKind::kIdentifier) out.push_back(std::move(t.text));
  }
  return out;
}

int IndentOf(std::string_view raw) {
  int n = 0;
  for (char c : raw) {
    if (c == ' ') {
      ++n;
    } else if (c == '\t') {
      n += 8;
    } else {
      break;
    }
  }
  return n;
}

}  // namespace av
