// The checklist: the eight acceptance items (doc/report.md) judged from an Evidence value.
// ComputeChecklist is a pure function (evidence + config -> ChecklistReport); every
// writer (md, json, html, sarif) renders the report it returns and computes nothing.
// A PASS or FAIL check always cites evidence (file, sha256, command, case or kernel); a
// MISSING check says what is absent and the command that would produce it. The item
// → check table and the verdict rule are documented in doc/report.md. Any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/evidence.h"
#include "report/report_config.h"
#include "schema/outcome.h"

namespace av {

inline constexpr const char* kAcceptanceJsonSchema = "attnverify.acceptance/1";

// CheckStatus and CheckStatusName ("PASS", "FAIL", "MISSING") live in schema/outcome.h.

struct Citation {
  std::string file;  // package-relative
  std::string sha256;
  std::string command;  // the command that produced the file
  std::string subject;  // case id, kernel@arch, gate, finding id; empty: the whole file
};

struct Check {
  std::string id;     // "2.window" (doc/report.md)
  std::string title;  // "sliding window"
  CheckStatus status = CheckStatus::kMissing;
  bool required = true;              // false: optional, or waived by [policy] waive
  std::string waiver;                // the policy's reason when waived
  std::string summary;               // one line
  std::vector<std::string> details;  // further lines (worst elements, hints, gate failures)
  std::vector<Citation> citations;
  std::string missing_command;  // MISSING: the command that would produce the evidence
  // Checks this one's failing cases are attributed to (doc/report.md, "Attribution"): set
  // when every failure here is explained by another check, which FAILs with them.
  std::vector<std::string> attributed_to;
};

// Which run an evidence file came from, and whether the checklist used it (doc/report.md,
// "Evidence bound to its run"). A file is used only when evidence/run.json's entry for the
// stage that writes it ended ok or rejected, has the run id of the file's provenance, and
// recorded the file's sha256 among the stage's outputs.
struct EvidenceBinding {
  std::string file;    // package-relative: "evidence/resources.json"
  std::string stage;   // the stage that writes it: "build"
  std::string run_id;  // the run it came from (its provenance); empty when unbound
  std::string head_commit;
  bool used = false;
  std::string refused;  // why it is not used; empty when used
  std::string rerun;    // the command that runs its stage again
};

// A finding of the agent reviewer that survived the evidence checks (evidence/agent_review.json,
// doc/agent.md), listed under the item it names (1-7; any other item under 8) with where it
// came from. It is a question, never a verdict: a high-severity one is *open* until the
// local command it names ran and exited 0 (logs/agent-cmd-NN.log) or [policy] waives the
// item's N.agent_questions check; an open one keeps that check MISSING (doc/report.md).
struct AgentQuestion {
  std::string id;  // "A001": its place among the kept findings of agent_review.json
  int item = 0;    // as the agent named it (0 when it named none)
  // Written "high", "medium", "low" (AgentSeverityWord); unset for any other word.
  std::optional<Severity> severity;
  std::string claim;
  std::string place;     // "src/x.h:63-64", "" when none
  std::string evidence;  // what it cites: "diff", "evidence/numerics.json#case", "logs/b.log:12"
  std::string stage, kernel, model, request_id, report_file;
  std::string ledger_row;  // "evidence/token_ledger.csv:4" (the answer's row), "" when not found
  std::string command;     // the suggested command (also when the policy removed it)
  std::string command_decision;  // "allow", "ask", "deny"; "" when it suggested none
  std::string command_reason;    // why not allowed
  std::string command_log;       // logs/agent-cmd-NN.log when `agent run-commands` ran it
  std::string command_status;    // "exit 0", "exit 1", "timed out after 600 s"
  bool open = false;             // high severity and not resolved
  std::string resolution;        // how it was resolved, or why it is still open
};

// A question's severity as the writers show it: "high", "medium", "low"; "" for a word
// agent_review.json should not hold.
inline const char* AgentSeverityWord(const std::optional<Severity>& s) {
  return s ? AgentSeverityName(*s) : "";
}

struct ItemResult {
  int number = 0;
  std::string title;
  CheckStatus status = CheckStatus::kMissing;
  bool required = true;
  std::string reason;  // one line for the item table
  std::vector<Check> checks;
  std::vector<Finding> findings;              // the reviewer's questions this item answers
  std::vector<AgentQuestion> agent_findings;  // the agent's questions on this item
  // The runs its checks' evidence came from: "evidence/numerics.json: run 2026...-3f9a1c".
  std::vector<std::string> evidence_runs;
  // What the evidence says beside the checks (the build's warnings, which tolerances
  // judged the cases).
  std::vector<std::string> notes;
};

// Numerics coverage for the HTML grid: one cell per (op, category).
struct CoverageCell {
  std::string op, category;
  int passed = 0, failed = 0;
};

// Shared memory per kernel and arch, base -> head, against the arch's cap.
struct ResourceBar {
  std::string kernel, arch;
  int64_t base_smem = -1, head_smem = -1, cap = -1;
  bool overflow = false;
};

// Time per kernel and shape, base -> head, from evidence/perf.json (item 4's table and chart).
struct PerfBar {
  std::string kernel, shape;
  CheckStatus status = CheckStatus::kMissing;  // the time gate (written as GateStatusName)
  int64_t base_n = 0, head_n = 0;
  double base_median_ns = 0, base_min_ns = 0, base_spread = 0;
  double head_median_ns = 0, head_min_ns = 0, head_spread = 0;
  double ratio = 0, ratio_lo = 0, ratio_hi = 0;  // head/base median, 95% interval
  // Where the figures came from: the profiler exports perf.json imported ("ncu_base.csv
  // (ncu) -> ncu_head.csv (ncu)", file names only); the table and chart show it, so an
  // example or hand-made export never reads as a measurement of this package.
  std::string source;
};

struct ChecklistReport {
  std::string title, tool_version, config;
  ReportVerdict verdict = ReportVerdict::kIncomplete;
  std::string verdict_reason;
  std::vector<int> required;
  std::vector<ItemResult> items;       // always eight, in order
  std::vector<EvidenceFile> evidence;  // every file read (refused ones say why)
  std::vector<EvidenceBinding> bindings;
  std::vector<std::string> warnings;  // e.g. evidence from different head commits
  std::vector<Finding> findings;      // every finding of review.json
  std::vector<CoverageCell> coverage;
  std::vector<ResourceBar> resources;
  std::vector<PerfBar> perf;
  std::vector<HeatmapSvg> heatmaps;
};

ChecklistReport ComputeChecklist(const Evidence& evidence, const ReportConfig& config,
                                 const std::string& tool_version);

// Exit code of `attnverify report`: 0 accepted, 1 rejected or incomplete.
int VerdictExitCode(const ChecklistReport& report);

}  // namespace av
