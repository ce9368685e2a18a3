#include "profile/kernel_name.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace av::profile {
namespace {

bool IsIdent(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string Demangle(std::string_view raw) {
  // A name from a hostile binary: only a plausible length goes to the demangler.
  if (raw.size() < 3 || raw.size() > 4096 || raw.substr(0, 2) != "_Z") return std::string(raw);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(std::string(raw).c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(raw);
}

std::string ReplaceAll(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != s.npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// "(bool)0" -> "0", "(unsigned long)2" -> "2": a parenthesised type before a number.
std::string DropValueCasts(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') {
      size_t j = i + 1;
      while (j < s.size() && (IsIdent(s[j]) || s[j] == ' ')) ++j;
      if (j < s.size() && s[j] == ')' && j > i + 1 && j + 1 < s.size() &&
          ((s[j + 1] >= '0' && s[j + 1] <= '9') || s[j + 1] == '-')) {
        i = j;  // skip "(type)"
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// One space only between two identifier characters ("unsigned int"); none elsewhere.
std::string SquashSpaces(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ' ' && s[i] != '\t') {
      out.push_back(s[i]);
      continue;
    }
    size_t j = i;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    if (!out.empty() && j < s.size() && IsIdent(out.back()) && IsIdent(s[j])) out.push_back(' ');
    i = j - 1;
  }
  return out;
}

// Removes every "ident::" qualifier (namespaces, classes); keeps "X<...>::type".
std::string DropQualifiers(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (IsIdent(s[i]) && (out.empty() || !IsIdent(out.back()))) {
      size_t j = i;
      while (j < s.size() && IsIdent(s[j])) ++j;
      if (s.compare(j, 2, "::") == 0) {
        i = j + 2;
        continue;
      }
      out.append(s, i, j - i);
      i = j;
      continue;
    }
    out.push_back(s[i++]);
  }
  return out;
}

// "f<a>(int, T1)" -> "f<a>": the trailing balanced parameter list.
std::string DropParameters(const std::string& s) {
  if (s.empty() || s.back() != ')') return s;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i == 0 ? s : s.substr(0, i);
  }
  return s;
}

// Drops a leading return type ("void ", "enable_if<!T7,void>::type "): what precedes the
// last space outside template brackets.
std::string DropReturnType(const std::string& s) {
  int depth = 0;
  size_t cut = s.npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (s[i] == '(' && depth == 0) break;
    if (s[i] == ' ' && depth == 0) cut = i;
  }
  return cut == s.npos ? s : s.substr(cut + 1);
}

std::string ShortName(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '<' || c == '(') break;
    out.push_back(c);
  }
  return out.empty() ? key : out;
}

}  // namespace

KernelName NormaliseKernelName(std::string_view raw) {
  KernelName k;
  k.raw = std::string(raw);
  k.demangled = Demangle(raw);
  std::string s = ReplaceAll(k.demangled, "(anonymous namespace)::", "");
  s = ReplaceAll(s, "<unnamed>::", "");
  s = SquashSpaces(DropValueCasts(s));
  s = DropReturnType(DropParameters(DropQualifiers(s)));
  k.key = s.empty() ? k.demangled : s;
  k.short_name = ShortName(k.key);
  return k;
}

}  // namespace av::profile
