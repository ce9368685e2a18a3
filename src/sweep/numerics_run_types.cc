#include "sweep/numerics_run_types.h"

#include <algorithm>

#include "core/utf8.h"

namespace av {

int64_t NumericsRun::passed() const {
  return std::count_if(cases.begin(), cases.end(),
                       [](const CaseResult& c) { return c.verdict == CaseVerdict::kPass; });
}
int64_t NumericsRun::failed() const { return static_cast<int64_t>(cases.size()) - passed(); }

std::string StderrTail(const std::string& text, size_t max_bytes) {
  // The candidate's bytes go into JSON evidence: never cut inside a character, and any
  // byte that is not UTF-8 replaced (M1).
  if (text.size() <= max_bytes) return ReplaceInvalidUtf8(text);
  size_t start = text.size() - max_bytes;
  size_t nl = text.find('\n', start);
  if (nl != std::string::npos && nl + 1 < text.size()) start = nl + 1;
  return "..." + ReplaceInvalidUtf8(Utf8Tail(text, text.size() - start));
}

}  // namespace av
