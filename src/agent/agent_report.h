// Writers of the agent reviewer: one answer's report (reports/agent_review_NN.md: the
// findings kept, those dropped and why, the commands not allowed, the answer as received)
// and the run's summary (reports/agent_review.md with the dropped-conclusions appendix,
// evidence/agent_review.json, schema attnverify.agent_review/1, doc/agent.md). Nothing time-
// or run-dependent is written, so a replayed run writes the same bytes. Writers format; they
// compute nothing.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "agent/agent_run.h"
#include "findings/finding.h"
#include "llm/redact.h"

namespace av {

std::string AnswerMarkdown(const AgentRoundRecord& rec, const std::string& answer_text,
                           const AgentAnswer* parsed,
                           const std::vector<AgentFindingRecord>& findings,
                           const std::vector<AgentCheckRecord>& checks);

// The kept findings as review findings (ids A001..., rule "agent.<stage>"), labelled with
// stage, model and the ledger row's request id and report file: they join the built-in
// ones in the checklist items they feed.
std::vector<Finding> AgentFindingsAsReview(const AgentRunOutcome& out);

// The kept test_log findings per failure class ("numerical", "shape", "compile_cache",
// "other", and "unclassified" for an answer that gave none).
std::map<std::string, int> FailureClassCounts(const AgentRunOutcome& out);

nlohmann::json AgentSummaryJson(const AgentRunOutcome& out);
std::string AgentSummaryMarkdown(const AgentRunOutcome& out);

// Writes reports_dir/agent_review.md and `summary_json` (package-relative), redacted.
Status WriteAgentSummary(const std::string& package_dir, const std::string& reports_dir,
                         const std::string& summary_json, const AgentRunOutcome& out,
                         const RedactionContext& ctx);

}  // namespace av
