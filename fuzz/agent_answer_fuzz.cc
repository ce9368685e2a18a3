// libFuzzer target for the agent's answer parser (doc/formats/agent-findings.md): any bytes,
// read as the model's answer, either parse or give a non-empty error (never a crash, never
// a read outside the input). A parsed answer keeps the caps (findings, checks), items in
// 1..8, known severities and statuses, end_line never before line; the fence strip returns
// a view inside the input. Seeds: fuzz/corpus/agent_answer/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agent/agent_answer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string_view inner = av::StripJsonFence(text);
  if (!inner.empty() &&
      (inner.data() < text.data() || inner.data() + inner.size() > text.data() + text.size())) {
    __builtin_trap();
  }
  av::Result<av::AgentAnswer> r = av::ParseAgentAnswer(text);
  if (!r.ok()) {
    if (r.status().message().empty()) __builtin_trap();
    return 0;
  }
  if (r->findings.size() > av::kMaxAnswerFindings || r->checks.size() > av::kMaxAnswerFindings) {
    __builtin_trap();
  }
  for (const av::AgentFinding& f : r->findings) {
    if (f.item < 1 || f.item > 8 || f.claim.empty()) __builtin_trap();
    // The severity names one of the agent's words ("high", "medium", "low").
    if (!av::ParseAgentSeverity(av::AgentSeverityName(f.severity))) __builtin_trap();
    if (f.line < 0 || (f.line > 0 && f.end_line < f.line)) __builtin_trap();
    if (f.side != "new" && f.side != "old") __builtin_trap();
  }
  for (const av::AgentCheck& c : r->checks) {
    if (c.item < 1 || c.item > 8) __builtin_trap();
    if (!av::ParseAgentCheckStatus(av::AgentCheckStatusName(c.status))) __builtin_trap();
  }
  return 0;
}
