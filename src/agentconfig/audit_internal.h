// Shared by the audit's per-tool checks (audit_claude.cc, audit_codex.cc,
// audit_ccswitch.cc) and its driver (config_audit.cc); internal to agentconfig/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agentconfig/claude_settings.h"
#include "agentconfig/config_audit.h"
#include "llm/redact.h"

namespace av::audit_internal {

// What one file says about the provider, for the cross-file agreement checks.
struct ToolView {
  std::string tool;  // "claude-code", "codex", "cc-switch"
  std::string file;
  std::string base_url;  // as written; empty when the file names none
  int base_line = 0;
  bool codex_style = false;                         // Codex's base_url ends in the /v1 root
  std::vector<std::pair<std::string, int>> models;  // name, line
  std::string key_env;  // the variable the key is read from; empty when unknown
  int key_line = 0;
};

class AuditContext {
 public:
  // `secrets` holds the environment's secret values (the provider key and every
  // secret-named variable); not owned.
  AuditContext(const ProviderTable* provider, const RedactionContext* secrets,
               AuditReport* report)
      : provider_(provider), secrets_(secrets), report_(report) {}
  const ProviderTable* provider() const { return provider_; }
  const RedactionContext& secrets() const { return *secrets_; }
  // A placeholder by its shape (LooksLikePlaceholder) that is not the value of a secret
  // in the environment: a key that happens to read "YOUR_KEY" is still a key.
  bool IsPlaceholder(std::string_view value) const;
  // DescribeSecret(value), or "the value of $NAME (N characters)" when it is one.
  std::string DescribeSecret(std::string_view value) const;
  // Every text field of every finding with the environment's secrets and the credential
  // table's shapes replaced by [REDACTED:rule]: the last step, so that no message ever
  // repeats a key, whoever wrote it.
  void RedactFindings();
  void Add(std::string severity, std::string rule, std::string tool, std::string file, int line,
           std::string title, std::string message, std::string line_text = "");
  bool Has(const std::string& file, int line, const std::string& rule) const;
  void AddView(ToolView v) { views_.push_back(std::move(v)); }
  const std::vector<ToolView>& views() const { return views_; }

 private:
  const ProviderTable* provider_;
  const RedactionContext* secrets_;
  AuditReport* report_;
  std::vector<ToolView> views_;
};

// The text of 1-based `line` of `text`, trimmed, with anything that looks like a secret
// replaced by [REDACTED:rule].
std::string LineText(std::string_view text, int line);
// 1-based line of byte `offset`.
int LineAt(std::string_view text, size_t offset);

// Literal secrets anywhere in the file (the credential table's shapes and the values of
// the environment's secrets), one finding per line.
void CheckSecretPatterns(const std::string& tool, const std::string& file, std::string_view text,
                         AuditContext* ctx);
// A Base URL's own problems (scheme, user info, query, fragment).
void CheckUrl(const std::string& tool, const std::string& file, int line, const std::string& what,
              const std::string& url, std::string_view text, AuditContext* ctx);

// The variable an apiKeyHelper command prints ("printenv VAR", "echo $VAR"); empty when
// it is some other program.
std::string KeyEnvFromHelper(const std::string& helper);

void AuditClaude(const std::vector<SettingsDocument>& docs, AuditContext* ctx);
Status AuditCodex(const std::string& path, const std::string& text, AuditContext* ctx);
void AuditCcSwitch(const SettingsDocument& doc, AuditContext* ctx);
// Claude Code's env block (settings.json, CC Switch settingsConfig): Base URL, keys, models.
void AuditClaudeEnv(const SettingsDocument& doc, const std::string& pointer,
                    const std::string& tool, ToolView* view, AuditContext* ctx);

}  // namespace av::audit_internal
