// Model against model (CC Switch's use case): the same rounds over the same package with two
// models, each run's files under reports/agent_compare/<model>/, and
// reports/agent_compare.md: findings matched by file, overlapping line range and checklist
// item; which each model alone found; and for each whether the package's evidence confirms
// it (the failing case it cites, or a FAIL item of reports/acceptance.json on its item) —
// detection power, not length. Tokens per model are the runs' own counts. One thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agent/agent_package.h"
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
  std::string acceptance;           // which acceptance.json confirmed, or why none (stale)
  bool acceptance_current = false;  // its items were read
};

// reports/acceptance.json as this package's evidence now stands: current when every
// evidence file it records (evidence[], used) has the sha256 it recorded (the agent's own
// run.json, agent_review.json and token ledger aside: an agent run rewrites them). Stale,
// absent or not attnverify's: no item status is read, and `note` says why.
struct AcceptanceBinding {
  bool current = false;
  std::string note;
  std::map<int, std::string> item_status;  // item number -> "PASS", "FAIL", "MISSING"
};
AcceptanceBinding BindAcceptance(const AgentPackage& package);

Result<AgentCompareOutcome> RunAgentCompare(const AgentCompareOptions& options);

// Whether two kept findings name the same thing: same item, same file (both may have
// none), and overlapping line ranges when both have lines.
bool SameFinding(const AgentFinding& a, const AgentFinding& b);

}  // namespace av
