// The agent config audit: reads Claude Code settings.json layers (merged as Claude Code
// merges them), Codex config.toml files (with profiles) and CC Switch provider JSON, and
// raises findings, each with the file, the line and why: literal keys, Base URLs that
// differ from [provider] or from each other or carry a query, fragment or UTM parameters,
// ANTHROPIC_* in a Codex config, allow rules that grant arbitrary execution, deny rules that
// cannot hold, bypassPermissions, missing denies, deprecated Codex keys. Findings use the
// reviewer's model (findings/finding.h) and writers. doc/agent-configs.md lists every rule.
// Reads the files it is given; any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agentconfig/provider_table.h"
#include "core/status.h"
#include "findings/finding.h"

namespace av {

struct AuditedFile {
  std::string path;
  std::string sha256;  // of the bytes audited
  std::string kind;  // "claude-code settings (project layer)", "codex config", "cc-switch provider"
};

struct AuditReport {
  std::vector<AuditedFile> files;
  std::vector<Finding> findings;  // ids F001..., in file order
  bool provider_checked = false;  // a [provider] table was compared against
  std::string provider_path;

  size_t Errors() const;
};

// `provider` may be null: the files are then compared with each other only (and a note
// says so). An unreadable or unparsable file is an error, not a finding. `environment`
// (null: this process's, read now) supplies the secret values no finding may repeat:
// the variable [provider].key_env names and every secret-named variable
// (RedactionContext::FromEnvironment); a value equal to one is a key, never a placeholder.
Result<AuditReport> AuditAgentConfigs(
    const std::vector<std::string>& paths, const ProviderTable* provider,
    const std::map<std::string, std::string>* environment = nullptr);

}  // namespace av
