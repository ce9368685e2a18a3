// Whose rules decide which of the agent's commands `agent run-commands` may run: the
// user's, never the repository under review's. The sources add up (deny > ask > allow):
// attnverify's built-in review rules, the user's Claude Code settings (--settings FILE...,
// else ~/.claude/settings.json and the managed settings when present), and [policy]
// agent_commands of the package's attnverify.toml as committed at the base revision. A
// pull request can commit .claude/settings.json granting `Bash`, or change the working
// tree's attnverify.toml; neither is read. doc/agent.md "Closing the loop". One thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_package.h"
#include "core/process.h"
#include "core/status.h"
#include "policy/command_policy.h"

namespace av {

struct RunCommandsPolicyOptions {
  // --settings files as the user gave them; empty: the user's own defaults below.
  std::vector<std::string> settings_files;
  std::string home;  // $HOME, for ~/.claude/settings.json; empty: no user file
  std::string managed_settings = "/etc/claude-code/managed-settings.json";
  std::string base;              // the trusted base revision (--base); empty: [slice] base
  ProcessRunner* git = nullptr;  // runs git for the base's attnverify.toml; null: a real one
};

struct RunCommandsPolicy {
  PermissionSettings settings;       // package_dir and cwd set
  std::vector<std::string> sources;  // what decided, one line each, most general first
  std::vector<std::string> ignored;  // what was deliberately not read, and why
};

// Errors: a --settings file that cannot be read, does not parse, or lies inside the
// repository under review; a rule of the base's [policy] agent_commands that does not
// parse. A package with no committed attnverify.toml at base simply adds no rules.
Result<RunCommandsPolicy> LoadRunCommandsPolicy(const AgentPackage& package,
                                                const RunCommandsPolicyOptions& options);

// Adds the least-privilege review rules `agent-config emit --tool claude-code` writes
// (agentconfig/agent_emit.h), each with the source "built-in review rules".
Status AddBuiltinReviewRules(PermissionSettings* settings);

// Adds the rules of [policy] agent_commands = { allow = [...], ask = [...], deny = [...] }
// of `toml_text` (Claude Code rule syntax) to `settings`; each rule's source is
// "WHERE:LINE". No [policy] or no agent_commands adds nothing. `where` names the file in
// messages ("attention-verify/attnverify.toml@1a2b3c4d5e6f").
Status AddPackageCommandRules(std::string_view toml_text, const std::string& where,
                              PermissionSettings* settings);

}  // namespace av
