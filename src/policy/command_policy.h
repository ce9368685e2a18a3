// The command policy: allow, ask or deny for one shell command string under Claude Code's
// permission rules (permission_rule.h), deny > ask > allow. The string is parsed as bash
// would (shell/shell_parse.h); every subcommand, nested or wrapped, is decided on its own, and the
// whole is allowed only when every subcommand is. Anything the parser or the policy does
// not understand is ask, never allow. `attnverify policy check` prints a Decision; the
// agent runner decides with it which suggested commands attnverify runs. doc/policy.md is
// the reference. Pure function of its inputs (it may lstat write targets); any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/permission_rule.h"

namespace av {

enum class Verdict { kAllow = 0, kAsk = 1, kDeny = 2 };  // ordered: the worst wins
std::string_view VerdictName(Verdict v);                 // "allow", "ask", "deny"

struct PermissionSettings {
  std::vector<PermissionRule> allow, ask, deny;  // every tool's; only Bash rules decide here
  // Absolute. A command may write files inside it (redirections, tee); any other write is
  // asked about. Empty: every file write is asked about.
  std::string package_dir;
  // Absolute: where the command runs; relative write targets resolve against it.
  std::string cwd;
  // lstat each existing part of a write target below package_dir: a symbolic link there
  // could point anywhere, so writing through one is asked about.
  bool check_symlinks = true;
};

struct SubcommandDecision {
  std::string text;  // the subcommand as written
  Verdict decision = Verdict::kAsk;
  std::string rule;    // the rule that decided, as written (with its file:line when known)
  std::string reason;  // why, in a phrase
};

struct Decision {
  Verdict decision = Verdict::kAsk;
  std::vector<SubcommandDecision> subcommands;
  std::string reason;  // the subcommand that decided and why
};

Decision DecideCommand(const PermissionSettings& settings, std::string_view command);

}  // namespace av
