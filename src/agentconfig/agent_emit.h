// The three agent tool configurations made from one [provider] table, so they agree by
// construction (same Base URL, model names and key variable) and grant least privilege:
// Claude Code's project .claude/settings.json, Codex's config.toml and a CC Switch provider
// entry. No file holds a key: Claude Code gets it from apiKeyHelper printing $key_env,
// Codex from env_key. CC Switch imports no file: the entry is for reading and for
// `agent-config audit` (its "${KEY_ENV}" is not a key, and CC Switch would store it
// literally); the import is the deep link `agent-config ccswitch-link` prints, with the key
// from $key_env (agentconfig/ccswitch_link.h). doc/agent-configs.md shows all of them and
// says where each field's meaning comes from. Pure functions.
#pragma once

#include <string>
#include <vector>

#include "agentconfig/provider_table.h"

namespace av {

// The permission rules the Claude Code settings carry: what a read-only review of a kernel
// refactor needs (read, git diff/status, compile, test, profile, attnverify) and denies for
// push, delete, network and edits.
const std::vector<std::string>& ReviewAllowRules();
const std::vector<std::string>& ReviewDenyRules();

std::string EmitClaudeSettings(const ProviderTable& p);
std::string EmitCodexConfig(const ProviderTable& p);
// `project` names the repository the entry is scoped to ("attention-kernel-refactor").
std::string EmitCcSwitchProvider(const ProviderTable& p, const std::string& project);

// "claude-code", "codex", "cc-switch" -> the file's path relative to the repository root.
std::string DefaultEmitPath(const std::string& tool);

}  // namespace av
