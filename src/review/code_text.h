// Source text helpers for the built-in reviewer: which language a path holds, whether it
// is a test or documentation file, comment stripping that carries /* */ and Python
// docstring state from line to line, and a small tokenizer (identifiers, numbers,
// strings, operators) so rules compare code, not whitespace. Pure functions and
// single-owner state objects.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

enum class SourceLanguage { kCpp, kPython, kOther };  // kCpp covers CUDA, C and headers

SourceLanguage LanguageOfPath(std::string_view path);

// For a Python hunk that may begin inside a docstring: the delimiter that closes the
// docstring the first of `lines` are in, or "" when they start in code. Decided by the
// first triple quote: one that closes (a lone `"""`, or prose before it) means inside.
std::string OpenDocstringAtStart(const std::vector<std::string_view>& lines);

// Python prose (docstring or comment text without its quotes): three names in a row
// with nothing between, which Python code never has outside keywords.
bool LooksLikeProse(std::string_view python_code);

// Tests, docs and examples of tests: the reviewer raises nothing there.
bool IsTestOrDocPath(std::string_view path);

// Strips comments line by line. One stripper per side of a diff (old, new), fed lines
// in order; a "/*" or a Python triple quote left open carries over to the next line.
class CommentStripper {
 public:
  explicit CommentStripper(SourceLanguage language) : language_(language) {}
  // The line without comments (string literals kept), trimmed. With `source`, also the
  // line as written from its first code character to its last: comments between code
  // are kept verbatim, leading and trailing ones dropped ("" when the line has no code).
  std::string Strip(std::string_view line, std::string* source = nullptr);
  // The text starts inside a Python triple-quoted string closed by `delimiter`.
  void StartInsideString(std::string delimiter) { triple_ = std::move(delimiter); }

 private:
  SourceLanguage language_;
  bool in_block_comment_ = false;  // C++ "/* ..."
  std::string triple_;             // Python: the open docstring's delimiter, or empty
};

enum class TokenKind { kIdentifier, kNumber, kString, kOperator };

struct Token {
  TokenKind kind;
  std::string text;
};

std::vector<Token> Tokenize(std::string_view code);

// How many tokens two versions of a line share at the front (`prefix`) and, after that, at
// the back (`suffix`): what lies between is what the edit changed, in each version.
struct CommonEnds {
  size_t prefix = 0;
  size_t suffix = 0;
};
CommonEnds CommonTokenEnds(const std::vector<Token>& x, const std::vector<Token>& y);

// Tokens joined by single spaces: equal for lines that differ only in whitespace.
std::string NormalizeCode(std::string_view code);

// Tokens joined by single spaces in a canonical form, so that spellings that mean the same
// thing compare equal: `T x = {}` is `T x{}`; `typename std::X<A>::type` is `std::X_t<A>`
// and `std::X<A>::value` is `std::X_v<A>`.
std::string CanonicalCode(const std::vector<Token>& tokens);

// Identifiers of a line, in order.
std::vector<std::string> Identifiers(std::string_view code);

// Lowercase copy.
std::string ToLower(std::string_view s);

// Width of a line's leading whitespace, a tab counting 8.
int IndentOf(std::string_view raw);

}  // namespace av
