// The agent's answer: one JSON object of findings (a place, the checklist item, a claim, the
// evidence it rests on, the command that verifies it) and checks (per checklist item what is
// there and what is missing). doc/formats/agent-findings.md is the format. The model's text
// is untrusted: the parser tolerates a ```json fence around the object and nothing else, and
// every error names the JSON path at fault. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/outcome.h"

namespace av {

struct AgentFinding {
  std::string file;  // repository- or package-relative; "" when the finding has no place
  int64_t line = 0;
  int64_t end_line = 0;      // == line when not given
  std::string side = "new";  // "new", or "old" for deleted lines
  int item = 0;              // checklist item 1..8
  // Written "high", "medium", "low" (schema/outcome.h AgentSeverityName).
  Severity severity = Severity::kWarning;
  std::string claim;
  std::string evidence;  // "diff", "evidence/numerics.json#<id>", "logs/build.log:<line>"
  std::string command;   // "" when none was suggested
  // What kind of failure a test_log finding says it is (kFailureClasses); "" when the
  // answer gave none (answers written before the field existed read the same way).
  std::string failure_class;
};

// The values of `failure_class`: "numerical" (error over tolerance), "shape" (a shape,
// stride or layout mismatch), "compile_cache" (a stale build or JIT cache), "other".
const std::vector<std::string>& FailureClasses();
// The count key of a finding without a class.
inline constexpr const char* kUnclassified = "unclassified";

struct AgentCheck {
  int item = 0;
  // Written "ok", "missing", "fail" (schema/outcome.h AgentCheckStatusName).
  CheckStatus status = CheckStatus::kMissing;
  std::string needs;
  std::string command;
};

struct AgentAnswer {
  std::vector<AgentFinding> findings;
  std::vector<AgentCheck> checks;
};

// Caps on what an answer may hold; more is a parse error (a model that loops).
inline constexpr size_t kMaxAnswerBytes = size_t{1} << 20;
inline constexpr size_t kMaxAnswerFindings = 200;

// The object, or an InvalidInput error such as "$.findings[2].line: not a positive integer"
// or "not JSON: syntax error at byte 17". Unknown keys are ignored.
Result<AgentAnswer> ParseAgentAnswer(std::string_view text);

// The text between a leading ```json (or ```) fence and its closing fence, trimmed; the
// trimmed text itself when it has no fence.
std::string_view StripJsonFence(std::string_view text);

}  // namespace av
