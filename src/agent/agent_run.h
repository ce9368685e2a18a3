// `attnverify agent` as a library call: plans the rounds over the package, sends each
// request through llm's ProviderClient (one ledger row per attempt, report_file the answer's
// file), saves each request's input (redacted) as reports/agent_requests/NN-<stage>-<kernel>.json
// and its answer as reports/agent_review_NN.md, parses the answer (one retry quoting the
// parse error), holds every finding to the evidence and writes the summary
// (reports/agent_review.md, evidence/agent_review.json). Nothing here decides a verdict:
// findings are questions for the checklist. One thread; one run per package at a time.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/agent_answer.h"
#include "agent/evidence_check.h"
#include "core/package_config.h"
#include "core/status.h"
#include "llm/http_transport.h"

namespace av {

struct AgentRunOptions {
  std::string config_path = "attention-verify/attnverify.toml";
  // config_path already parsed by the caller (not owned); null: RunAgentReview loads it.
  const PackageConfig* config = nullptr;
  std::vector<std::string> stages;     // empty: every stage, in order
  std::string model = "default";       // a [provider] alias or model name
  HttpTransport* transport = nullptr;  // required; not owned (curl, or a cassette wrapper)
  bool replay = false;                 // answers come from a cassette: no key, no ledger row
  // Where the files go, package-relative: reports_dir/agent_review_NN.md,
  // reports_dir/agent_requests/, reports_dir/agent_review.md and `summary_json`.
  std::string reports_dir = "reports";
  std::string summary_json = "evidence/agent_review.json";
  int max_tokens = 4096;  // per answer
  // Tests: the environment the client and the redaction read (default: this process's).
  std::function<std::map<std::string, std::string>()> environment;
  std::function<void(int64_t ms)> sleep;  // the client's backoff (tests: none)
};

struct AgentRoundRecord {
  int n = 0;  // the request number NN; 0 for a skipped stage
  std::string stage, kernel;
  int part = 0;
  AgentRoundStatus status = AgentRoundStatus::kOk;  // schema/outcome.h names its words
  std::string reason;                               // why failed / skipped / not run
  std::string request_file, report_file;            // package-relative
  std::string model, request_id, prompt_source;
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0;
  int kept = 0, dropped = 0;
};

struct AgentFindingRecord {
  CheckedFinding checked;
  std::string stage, kernel, model, request_id, report_file;
};

struct AgentCheckRecord {
  AgentCheck check;
  std::string stage, report_file;
};

struct AgentRunOutcome {
  std::string provider, model;
  std::string policy_source;
  std::vector<AgentRoundRecord> stages;
  std::vector<AgentFindingRecord> findings;  // kept and dropped, in answer order
  std::vector<AgentCheckRecord> checks;
  std::map<std::string, int> dropped_by_reason;
  bool failed = false;               // some stage failed
  std::vector<std::string> written;  // package-relative files
};

// An error (exit 2) when the config, the provider table or a package file is bad; a failed
// stage (a provider error, an answer malformed twice) is recorded in the outcome instead
// and the summary is written all the same.
Result<AgentRunOutcome> RunAgentReview(const AgentRunOptions& options);

}  // namespace av
