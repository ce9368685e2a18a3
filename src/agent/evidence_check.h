// Held to evidence: the checklist's eighth item applied mechanically to each finding the
// model returns, before it may appear in any report. A finding's place must be a line of
// what that request was given (a diff line on the side it claims, or a line of a log or
// evidence file it was shown), its evidence must name a package file and an existing case
// or line, every number of a claim about measured quantities must occur in what it was
// given (after unit normalisation), and its command is decided by the command policy: a
// denied or asked command is dropped, the finding kept, the reason recorded. doc/agent.md
// lists the rules. Pure functions of their inputs (the policy may lstat write targets).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/agent_answer.h"
#include "agent/agent_package.h"
#include "agent/quantities.h"
#include "policy/command_policy.h"

namespace av {

// What one request was given, as the check needs it.
struct RequestContext {
  std::string stage, kernel;
  // path -> line numbers present in the hunks sent: new side (context and added lines)
  // and old side (context and deleted lines).
  std::map<std::string, std::set<int64_t>> new_lines, old_lines;
  // Package files shown with their own line numbers ("logs/build.log" -> lines shown).
  std::map<std::string, std::set<int64_t>> file_lines;
  QuantityIndex numbers;  // every number of the content sent (not of our line numbering)
  bool had_diff = false;
};

// Why a finding was dropped; kKept when it survives.
enum class DropReason { kKept, kNoSuchLine, kNoSuchEvidence, kUnsupportedNumber };
std::string_view DropReasonName(DropReason r);  // "no_such_line", ...

struct CheckedFinding {
  AgentFinding finding;
  DropReason drop = DropReason::kKept;
  std::string why;  // for a drop: what was not found ("line 90 is not in the diff sent")
  // The command's policy decision ("allow", "ask", "deny"; "" when there was none) and,
  // when it is not allowed, why; `command_dropped` then holds the command as suggested.
  std::string command_decision;
  std::string command_reason;
  std::string command_dropped;
};

CheckedFinding CheckFinding(const AgentFinding& finding, const RequestContext& context,
                            const AgentPackage& package, const PermissionSettings& policy);

// The policy the agent's commands are decided under while the answers are checked: the
// least-privilege review rules `agent-config emit` writes, never the reviewed repository's
// .claude/ settings. `agent run-commands` decides again under the user's own policy
// (run_commands_policy.h). package_dir and cwd set.
Result<PermissionSettings> AgentCommandPolicy(const AgentPackage& package, std::string* source);

}  // namespace av
