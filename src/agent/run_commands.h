// Closing the loop (the workflow's steps 5 and 6): the commands of the agent's surviving
// findings, each decided again now under the user's policy (run_commands_policy.h: never
// the reviewed repository's settings), and, when asked, run locally. Only commands of the
// evidence/agent_review.json that the latest `attnverify agent` run wrote are considered
// (run_commands_binding.h); a hand-edited or committed file is refused. With --yes only
// `allow` commands run; without it each allow or ask command is shown and runs only on an
// interactive "y". Each runs in the sandbox of run_commands_sandbox.h (no network,
// repository and package read-only; an attnverify command over a scratch copy of the
// package), argv as the policy parsed it (a shell only for a compound command the policy
// parsed), a timeout, the scrubbed environment, output to logs/agent-cmd-NN.log (redacted).
// Nothing denied ever runs. One thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/run_commands_policy.h"
#include "core/process.h"
#include "core/status.h"

namespace av {

enum class RunCommandsMode {
  kPlan,     // print the plan; nothing runs
  kConfirm,  // allow and ask commands each run on confirm() == true
  kAllowed,  // --yes: the allowed commands run; ask ones are listed, not run
};

struct CommandPlanEntry {
  std::string command;
  std::string source;    // "reports/agent_review_02.md (diff_review flashmla)"
  std::string decision;  // "allow", "ask", "deny"
  std::string reason;
  std::vector<std::string> argv;  // what would run (allow and ask ones)
  bool scratch_package = false;   // runs over a scratch copy of the package
  std::string log_file;           // package-relative, when it ran
  std::string status;  // "exit 0", "timed out after 600 s", "did not start: ...", "not run: ..."
};

struct RunCommandsOptions {
  std::string config_path = "attention-verify/attnverify.toml";
  RunCommandsMode mode = RunCommandsMode::kPlan;
  RunCommandsPolicyOptions policy;
  // kConfirm: asked once per allow or ask command, after the plan is known; true runs it.
  std::function<bool(const CommandPlanEntry&)> confirm;
  // false (--allow-no-sandbox): run without bwrap when it is missing or broken, attnverify
  // commands excepted (nothing could keep them off the package's evidence).
  bool require_sandbox = true;
  int timeout_s = 600;
  ProcessRunner* runner = nullptr;  // null: a PosixProcessRunner
  // The bwrap to use; null: core/sandbox.h FindWorkingBwrap.
  std::function<Result<std::string>()> find_bwrap;
  std::string attnverify_binary;  // what `attnverify` runs; empty: this program
  std::string scratch_root;       // where scratch folders go; empty: $TMPDIR or /tmp
};

struct RunCommandsOutcome {
  RunCommandsPolicy policy;
  std::string bound;    // which agent run the commands come from
  std::string sandbox;  // how they ran ("bwrap ...: ..." / "none: --allow-no-sandbox ...")
  std::vector<CommandPlanEntry> plan;  // each distinct command once, in findings order
};

// Errors: the package or its evidence/agent_review.json cannot be read (run `attnverify
// agent` first) or is not bound to an agent run, the policy's files are bad, the sandbox
// is needed and missing, a log cannot be written.
Result<RunCommandsOutcome> RunAgentCommands(const RunCommandsOptions& options);

}  // namespace av
