// Model against model (CC Switch's use case): the same rounds over the same package with two
// models, each run's files under reports/agent_compare/<model>/, and
// reports/agent_compare.md: findings matched by file, overlapping line range and checklist
// item; which each model alone found; and for each whether the package's evidence confirms
// it (the failing case it cites, or a FAIL item of reports/acceptance.json on its item) —
// detection power, not length. Tokens per model are the runs' own counts. One thread.
#pragma once

#include <string>
#include <vector>

#include "agent/agent_run.h"

namespace av {

struct AgentCompareOptions {
  std::string config_path = "attention-verify/attnverify.toml";
  std::vector<std::string> stages;
  std::vector<std::string> models;  // two
  HttpTransport* transport = nullptr;
  bool replay = false;
  std::function<std::map<std::string, std::string>()> environment;
  std::function<void(int64_t ms)> sleep;
};

struct AgentCompareOutcome {
  std::vector<AgentRunOutcome> runs;  // one per model
  std::string report_file;            // package-relative
  int matched = 0, only_a = 0, only_b = 0;
};

Result<AgentCompareOutcome> RunAgentCompare(const AgentCompareOptions& options);

// Whether two kept findings name the same thing: same item, same file (both may have
// none), and overlapping line ranges when both have lines.
bool SameFinding(const AgentFinding& a, const AgentFinding& b);

}  // namespace av
