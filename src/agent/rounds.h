// The agent reviewer's rounds as requests: diff_review (one request per component diff,
// split into whole hunk groups when over the per-request budget), test_log (failing cases
// and the logs cut to error windows), perf (resources.json and profiler logs), cross_module
// (every diff together, summarised to changed lines when over budget) and final (the
// checklist, the current report and the surviving findings). Each request carries only the
// context it needs and the RequestContext its findings are checked against. A round with
// nothing to judge yields no request but a reason. Pure functions of the package.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_package.h"
#include "agent/evidence_check.h"

namespace av {

// The stages in the order they run.
const std::vector<std::string>& AgentStages();
bool IsAgentStage(std::string_view name);

struct AgentRequest {
  std::string stage;
  std::string kernel;  // the component for diff_review, else ""
  int part = 0;        // 1.. when one component's diff needed several requests, else 0
  std::string system;  // the stage's prompt
  std::string user;    // the context
  RequestContext context;
};

struct AgentStagePlan {
  std::string stage;
  std::vector<AgentRequest> requests;
  std::string skipped;  // why no request was made ("" when there are requests)
};

struct RoundInputs {
  const AgentPackage* package = nullptr;
  std::string system;         // the stage's prompt text
  int64_t budget_tokens = 0;  // max_input_tokens_per_request
  // For final: the surviving findings of the earlier rounds, as JSON text.
  std::string earlier_findings;
  // The size in tokens of a request as it will be sent: the prompt and the text wrapped in
  // the wire format's JSON (llm's ProviderClient::EstimateRequestTokens). Every request a
  // plan holds is cut until this is at most budget_tokens - kRetryReserveTokens. Unset: the
  // JSON-escaped prompt and text plus kWireMarginTokens.
  std::function<int64_t(const std::string& system, const std::string& user)> request_tokens;
};

// Kept free in every request for the retry of a malformed answer (the parse error quoted).
inline constexpr int64_t kRetryReserveTokens = 256;
// The default measure's allowance for the wire format's keys around the text.
inline constexpr int64_t kWireMarginTokens = 128;

// The size of a request by `in.request_tokens`, or by the default measure.
int64_t RequestTokens(const RoundInputs& in, const std::string& system, const std::string& user);

AgentStagePlan PlanStage(const std::string& stage, const RoundInputs& in);

// A log cut to the windows around its error lines (3 lines each side, at most `max_lines`
// shown), each line prefixed with its own number: "logs/build.log:17: ...". `shown` gets
// the line numbers sent. Empty when the log has no error line.
std::string ErrorWindows(const std::string& rel, const std::string& text, size_t max_lines,
                         std::set<int64_t>* shown);

// The estimate the budget is checked against (llm's: one token per 3 bytes).
int64_t EstimateTokens(std::string_view text);

}  // namespace av
