#include "core/shell_quote.h"

namespace av {
namespace {

bool IsPlain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' ||
         c == '%' || c == '+' || c == '=' || c == ':' || c == ',' || c == '.' || c == '/' ||
         c == '-' || c == '_';
}

}  // namespace

std::string ShellQuote(std::string_view arg) {
  // '~' expands only at the start of a word: "HEAD~1" is plain, "~/x" is not.
  bool plain = !arg.empty() && arg[0] != '~';
  for (char c : arg) plain = plain && (IsPlain(c) || c == '~');
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string ShellJoin(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(a);
  }
  return out;
}

}  // namespace av
