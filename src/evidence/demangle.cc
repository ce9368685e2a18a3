#include "evidence/demangle.h"

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
  // Drop a return type: the last top-level space outside template brackets.
  int angle = 0;
  size_t cut = std::string_view::npos;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++angle;
    if (head[i] == '>' && angle > 0) --angle;
    if (head[i] == ' ' && angle == 0) cut = i;
  }
  if (cut != std::string_view::npos) head = head.substr(cut + 1);
  return std::string(head);
}

std::string KernelBaseName(std::string_view demangled) {
  std::string shortname = KernelShortName(demangled);
  size_t lt = shortname.find('<');
  std::string_view base = std::string_view(shortname).substr(0, lt);
  size_t colon = base.rfind("::");
  if (colon != std::string_view::npos) base = base.substr(colon + 2);
  return std::string(base);
}

}  // namespace av
