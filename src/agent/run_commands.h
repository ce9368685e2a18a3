// Closing the loop (the workflow's steps 5 and 6): the commands of the agent's surviving
// findings (evidence/agent_review.json), each decided again by the command policy now, and,
// when asked, the allowed ones run locally: argv as the policy parsed it (a shell only for a
// compound command the policy parsed and allowed in every part), a timeout, the scrubbed
// environment, output to logs/agent-cmd-NN.log (redacted). The next test_log and final
// rounds read those logs. Nothing that is ask or deny ever runs. One thread.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

struct RunCommandsOptions {
  std::string config_path = "attention-verify/attnverify.toml";
  bool execute = false;  // false: the plan only
  int timeout_s = 600;
  ProcessRunner* runner = nullptr;  // null: a PosixProcessRunner
};

struct CommandPlanEntry {
  std::string command;
  std::string source;    // "reports/agent_review_02.md (diff_review flashmla)"
  std::string decision;  // "allow", "ask", "deny"
  std::string reason;
  std::vector<std::string> argv;  // what would run (allowed ones)
  std::string log_file;           // package-relative, when it ran
  std::string status;             // "exit 0", "timed out after 600 s", "did not start: ..."
};

struct RunCommandsOutcome {
  std::string policy_source;
  std::vector<CommandPlanEntry> plan;  // each distinct command once, in findings order
};

// Errors: the package or its evidence/agent_review.json cannot be read (run `attnverify
// agent` first), a log cannot be written.
Result<RunCommandsOutcome> RunAgentCommands(const RunCommandsOptions& options);

}  // namespace av
