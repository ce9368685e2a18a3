// The audit's driver: loads each file, tells its kind from its content, runs the per-tool
// checks, then the cross-file ones (the same Base URL, key variable and models as
// [provider] and as each other), and numbers the findings.
#include "agentconfig/config_audit.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "agentconfig/audit_internal.h"
#include "agentconfig/base_url.h"
#include "agentconfig/secret_scan.h"
#include "core/file.h"
#include "core/sha256.h"

namespace av {
namespace audit_internal {

void AuditContext::Add(std::string severity, std::string rule, std::string tool, std::string file,
                       int line, std::string title, std::string message, std::string line_text) {
  Finding f;
  f.rule = std::move(rule);
  // An unknown word is an error: the audit fails closed.
  f.severity = ParseSeverity(severity).value_or(Severity::kError);
  f.component = std::move(tool);
  f.file = std::move(file);
  f.line = line < 1 ? 1 : line;
  f.end_line = f.line;
  f.checklist_item = 8;  // evidence: which provider, key and permissions produced the review
  f.title = std::move(title);
  f.message = std::move(message);
  f.new_text = std::move(line_text);
  f.verify = {"attnverify", "agent-config", "audit", f.file};
  report_->findings.push_back(std::move(f));
}

bool AuditContext::IsPlaceholder(std::string_view value) const {
  if (!LooksLikePlaceholder(value)) return false;
  for (const RedactionContext::Literal& l : secrets_->literals()) {
    if (l.value == value) return false;
  }
  return true;
}

std::string AuditContext::DescribeSecret(std::string_view value) const {
  for (const RedactionContext::Literal& l : secrets_->literals()) {
    if (l.value != value) continue;
    std::string name = l.rule == "provider_key" && provider_ ? provider_->key_env
                       : l.rule.starts_with("env:")           ? l.rule.substr(4)
                                                              : "";
    if (!name.empty()) {
      return "the value of $" + name + " (" + std::to_string(value.size()) + " characters)";
    }
  }
  return av::DescribeSecret(value);
}

void AuditContext::RedactFindings() {
  for (Finding& f : report_->findings) {
    for (std::string* text : {&f.title, &f.message, &f.old_text, &f.new_text, &f.function,
                              &f.component, &f.file}) {
      *text = RedactedText(*text, *secrets_);
    }
    for (std::string& arg : f.verify) arg = RedactedText(arg, *secrets_);
  }
}

bool AuditContext::Has(const std::string& file, int line, const std::string& rule) const {
  for (const Finding& f : report_->findings) {
    if (f.file == file && f.line == line && f.rule == rule) return true;
  }
  return false;
}

int LineAt(std::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

std::string LineText(std::string_view text, int line) {
  size_t pos = 0;
  for (int l = 1; l < line && pos != std::string_view::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos || pos >= text.size()) return "";
  size_t end = text.find('\n', pos);
  std::string s(
      text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
  // Every shape of the credential table, placeholders-looking ones included: a line is
  // shown to locate the finding, and a redacted example costs nothing.
  static const RedactionContext kPatternsOnly;
  s = RedactedText(s, kPatternsOnly);
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  s = s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

void CheckSecretPatterns(const std::string& tool, const std::string& file, std::string_view text,
                         AuditContext* ctx) {
  struct Hit {
    size_t offset;
    std::string what;  // "a anthropic_key (108 characters ...)", "the value of $NAME"
  };
  std::vector<Hit> hits;
  for (const SecretMatch& m : FindSecrets(text)) {
    hits.push_back({m.offset, "what looks like a " + m.rule + " (" + std::to_string(m.length) +
                                  " characters; not repeated here)"});
  }
  // A secret of the environment pasted anywhere, whatever its shape (or its base64).
  for (const RedactionContext::Literal& l : ctx->secrets().literals()) {
    size_t at = text.find(l.value);
    if (at == std::string_view::npos) continue;
    hits.push_back({at, ctx->DescribeSecret(l.value) + " (not repeated here)"});
  }
  std::sort(hits.begin(), hits.end(),
            [](const Hit& a, const Hit& b) { return a.offset < b.offset; });
  int last_line = 0;
  for (const Hit& h : hits) {
    int line = LineAt(text, h.offset);
    if (line == last_line) continue;
    last_line = line;
    ctx->Add("error", "agent_config.secret_literal", tool, file, line, "a literal secret in the file",
             "Line " + std::to_string(line) + " holds " + h.what +
                 ". A key belongs only in the environment variable [provider].key_env names; "
                 "revoke this one, since the file may already be in a commit, a diff or a "
                 "screenshot.",
             LineText(text, line));
  }
}

void CheckUrl(const std::string& tool, const std::string& file, int line, const std::string& what,
              const std::string& url, std::string_view text, AuditContext* ctx) {
  for (const UrlProblem& p : CheckBaseUrl(url)) {
    ctx->Add(p.error ? "error" : "warning", "agent_config.base_url", tool, file, line,
             what + " " + p.title, what + " \"" + url + "\" " + p.message + ".",
             LineText(text, line));
  }
}

}  // namespace audit_internal

namespace {

using audit_internal::AuditContext;
using audit_internal::ToolView;

bool IsCcSwitch(const nlohmann::json& j) {
  return j.contains("settingsConfig") || j.contains("ccSwitchProvider") ||
         j.contains("providers") ||
         (j.contains("provider") && (j.contains("models") || j.contains("scope")));
}

std::string StripSlash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// The gateway a view names: Codex's base_url without its "/v1" root, others as written.
std::string Gateway(const ToolView& v) {
  std::string g = StripSlash(v.base_url);
  if (v.codex_style && g.size() > 3 && g.compare(g.size() - 3, 3, "/v1") == 0)
    g.resize(g.size() - 3);
  return g;
}

void CheckBaseUrlAgreement(const ToolView& v, const std::string& reference,
                           const std::string& source, AuditContext* ctx) {
  if (v.codex_style) {
    int cmp = CompareCodexBaseUrl(v.base_url, reference);
    if (cmp == 1) {
      ctx->Add("warning", "agent_config.base_url_mismatch", v.tool, v.file, v.base_line,
               "Codex base_url lacks the /v1 root",
               "Codex appends /responses to base_url, so \"" + v.base_url + "\" sends to " +
                   StripSlash(v.base_url) + "/responses; the gateway pinned by " + source +
                   " serves its OpenAI-style API at " + CodexBaseUrlFor(reference) + ".");
    } else if (cmp == 2) {
      ctx->Add("error", "agent_config.base_url_mismatch", v.tool, v.file, v.base_line,
               "Base URL differs from the pinned provider",
               "base_url \"" + v.base_url + "\" is not the gateway pinned by " + source + " (\"" +
                   reference + "\", which Codex writes as \"" + CodexBaseUrlFor(reference) +
                   "\"): requests and token figures would go to another endpoint.");
    }
    return;
  }
  if (v.base_url == reference) return;
  bool slash_only = StripSlash(v.base_url) == StripSlash(reference);
  ctx->Add(slash_only ? "warning" : "error", "agent_config.base_url_mismatch", v.tool, v.file,
           v.base_line,
           slash_only ? "Base URL differs by a trailing slash"
                      : "Base URL differs from the pinned provider",
           "\"" + v.base_url + "\" is not \"" + reference + "\" (" + source + ")" +
               (slash_only ? ": some clients then request //v1/messages."
                           : ": every tool must use the one pinned Base URL, or requests and "
                             "token figures go to another endpoint."));
}

// The views' Base URL, key variable and models against [provider], or else against the
// first file that names each.
void CheckAgreement(AuditContext* ctx) {
  const ProviderTable* p = ctx->provider();
  const ToolView* first_url = nullptr;
  const ToolView* first_key = nullptr;
  for (const ToolView& v : ctx->views()) {
    if (!v.base_url.empty()) {
      if (p) {
        CheckBaseUrlAgreement(v, p->base_url, "[provider].base_url in " + p->config_path, ctx);
      } else if (first_url == nullptr) {
        first_url = &v;
      } else {
        CheckBaseUrlAgreement(v, Gateway(*first_url), first_url->file, ctx);
      }
    }
    if (!v.key_env.empty()) {
      std::string reference = p ? p->key_env : first_key ? first_key->key_env : "";
      if (!p && !first_key) first_key = &v;
      if (!reference.empty() && v.key_env != reference) {
        ctx->Add("error", "agent_config.key_env_mismatch", v.tool, v.file, v.key_line,
                 "the key comes from another variable",
                 "this file reads the key from $" + v.key_env + ", but " +
                     (p ? "[provider].key_env in " + p->config_path : first_key->file) +
                     " names $" + reference + ": one credential, in one variable, for every tool.");
      }
    }
    if (p) {
      for (const auto& [model, line] : v.models) {
        if (model == p->model_default || model == p->model_fast || model == p->model_review)
          continue;
        ctx->Add("warning", "agent_config.model_mismatch", v.tool, v.file, line,
                 "a model [provider] does not name",
                 "model \"" + model + "\" is not one of [provider].models (" + p->model_default +
                     ", " + p->model_fast + ", " + p->model_review +
                     "): token figures of different tools "
                     "would not be comparable.");
      }
    }
  }
}

}  // namespace

size_t AuditReport::Errors() const {
  size_t n = 0;
  for (const Finding& f : findings) n += f.severity == Severity::kError;
  return n;
}

Result<AuditReport> AuditAgentConfigs(const std::vector<std::string>& paths,
                                      const ProviderTable* provider,
                                      const std::map<std::string, std::string>* environment) {
  AuditReport report;
  const std::string key_env = provider ? provider->key_env : "";
  const RedactionContext secrets =
      environment ? RedactionContext::FromEnvironment(*environment, key_env)
                  : RedactionContext::FromProcessEnvironment(key_env);
  AuditContext ctx(provider, &secrets, &report);
  if (provider) {
    report.provider_checked = true;
    report.provider_path = provider->config_path;
  }
  std::vector<SettingsDocument> claude;
  std::vector<std::pair<SettingsDocument, size_t>> ccswitch;
  std::vector<std::pair<std::string, std::string>> codex;
  for (const std::string& path : paths) {
    AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
    if (text.size() > (4 << 20))
      return InvalidInput(path + ": larger than 4 MiB; not a config file");
    bool toml = path.size() >= 5 && path.compare(path.size() - 5, 5, ".toml") == 0;
    if (toml) {
      report.files.push_back({path, Sha256Hex(text), "codex config"});
      codex.emplace_back(path, std::move(text));
      continue;
    }
    SettingsLayer layer = GuessSettingsLayer(path);
    AV_ASSIGN_OR_RETURN(SettingsDocument doc, ParseSettingsDocument(std::move(text), path, layer));
    if (IsCcSwitch(doc.json.get())) {
      report.files.push_back({path, Sha256Hex(doc.text), "cc-switch provider"});
      ccswitch.emplace_back(std::move(doc), 0);
    } else {
      report.files.push_back(
          {path, Sha256Hex(doc.text),
           "claude-code settings (" + std::string(SettingsLayerName(layer)) + " layer)"});
      claude.push_back(std::move(doc));
    }
  }
  if (!provider) {
    ctx.Add("note", "agent_config.no_provider", "attnverify", paths.empty() ? "" : paths[0], 1,
            "no [provider] table to compare with",
            "No attnverify.toml was given (--config) or found, so Base URLs, key variables and "
            "models are compared only among the files audited.");
  }
  if (!claude.empty()) audit_internal::AuditClaude(claude, &ctx);
  for (const auto& [path, text] : codex)
    AV_RETURN_IF_ERROR(audit_internal::AuditCodex(path, text, &ctx));
  for (const auto& [doc, unused] : ccswitch) audit_internal::AuditCcSwitch(doc, &ctx);
  CheckAgreement(&ctx);
  ctx.RedactFindings();
  char id[32];
  for (size_t i = 0; i < report.findings.size(); ++i) {
    std::snprintf(id, sizeof id, "F%03zu", i + 1);
    report.findings[i].id = id;
  }
  return report;
}

}  // namespace av
