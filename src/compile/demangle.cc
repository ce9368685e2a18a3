#include "compile/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace av {
namespace {

// Index of the '(' that opens the parameter list: the last top-level '(' (angle and
// round brackets balanced), or npos.
size_t ParameterListStart(std::string_view s) {
  int angle = 0, round = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == '(') {
      if (angle == 0 && round == 0) found = i;
      ++round;
    }
    if (c == ')' && round > 0) --round;
  }
  return found;
}

}  // namespace

std::string DemangleKernelName(std::string_view mangled) {
  if (mangled.size() < 3 || mangled.substr(0, 2) != "_Z" || mangled.size() > kMaxDemangleInput) {
    return std::string(mangled);
  }
  std::string input(mangled);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return input;
  return std::string(out.get());
}

std::string KernelShortName(std::string_view demangled) {
  size_t paren = ParameterListStart(demangled);
  std::string_view head = paren == std::string_view::npos ? demangled : demangled.substr(0, paren);
  // Drop a return type: the last top-level space outside template brackets and
  // parentheses ("(anonymous namespace)::k" keeps its space).
  int angle = 0, round = 0;
  size_t cut = std::string_view::npos;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++angle;
    if (head[i] == '>' && angle > 0) --angle;
    if (head[i] == '(') ++round;
    if (head[i] == ')' && round > 0) --round;
    if (head[i] == ' ' && angle == 0 && round == 0) cut = i;
  }
  if (cut != std::string_view::npos) head = head.substr(cut + 1);
  return std::string(head);
}

std::string KernelQualifiedName(std::string_view demangled) {
  std::string shortname = KernelShortName(demangled);
  std::string out;
  int angle = 0;
  for (char c : shortname) {
    if (c == '<') {
      ++angle;
    } else if (c == '>' && angle > 0) {
      --angle;
    } else if (angle == 0) {
      out += c;
    }
  }
  return out;
}

std::string KernelBaseName(std::string_view demangled) {
  std::string qualified = KernelQualifiedName(demangled);
  size_t colon = qualified.rfind("::");
  return colon == std::string::npos ? qualified : qualified.substr(colon + 2);
}

std::vector<std::string> KernelTemplateArguments(std::string_view demangled) {
  std::string shortname = KernelShortName(demangled);
  std::vector<std::string> args;
  if (shortname.empty() || shortname.back() != '>') return args;
  // The kernel's own list is the last top-level <...>.
  int depth = 0;
  size_t open = std::string::npos;
  for (size_t i = shortname.size(); i-- > 0;) {
    if (shortname[i] == '>') ++depth;
    if (shortname[i] == '<' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return args;
  std::string_view inner(shortname.data() + open + 1, shortname.size() - open - 2);
  int level = 0;
  size_t start = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    char c = i < inner.size() ? inner[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++level;
    if ((c == '>' || c == ')' || c == ']') && level > 0) --level;
    if (c == ',' && level == 0) {
      std::string_view a = inner.substr(start, i - start);
      while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      args.emplace_back(a);
      start = i + 1;
    }
  }
  return args;
}

}  // namespace av
