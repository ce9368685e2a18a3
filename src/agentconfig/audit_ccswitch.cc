// The audit of CC Switch provider JSON: the workflow's triad (provider, models, scope),
// CC Switch's own stored provider (settingsConfig.env, meta.apiKeyField, alone, inside
// "ccSwitchProvider", or in a "providers" map), and credentials that do not belong there.
#include "agentconfig/audit_internal.h"

#include <nlohmann/json.hpp>
#include "agentconfig/secret_scan.h"

namespace av::audit_internal {
namespace {

const std::string kTool = "cc-switch";

std::string KeyEnvFromPlaceholder(const std::string& v) {
  if (v.size() > 3 && v[0] == '$' && v[1] == '{' && v.back() == '}')
    return v.substr(2, v.size() - 3);
  if (v.size() > 1 && v[0] == '$') return v.substr(1);
  if (v.rfind("env:", 0) == 0) return v.substr(4);
  return "";
}

// Names of production, database and deployment credentials.
bool IsForeignCredential(const std::string& name) {
  std::string u;
  for (char c : name) u += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* m : {"DATABASE", "DB_", "PGPASSWORD", "MYSQL", "POSTGRES", "REDIS", "MONGO",
                        "AWS_", "AZURE_", "GCP_", "GOOGLE_APPLICATION", "KUBE", "DEPLOY", "PROD",
                        "SSH_", "DOCKER_", "NPM_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"}) {
    if (u.find(m) != std::string::npos) return true;
  }
  return false;
}

void WalkForeign(const SettingsDocument& doc, const nlohmann::json& j, const std::string& pointer,
                 AuditContext* ctx) {
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    std::string at = pointer + "/" + JsonPointerToken(key);
    if (IsForeignCredential(key)) {
      ctx->Add(
          "error", "ccswitch.foreign_credentials", kTool, doc.path, doc.lines.LineOf(at),
          "a production or deployment credential in the entry",
          key +
              " sits in the same provider entry as the review's key. The workflow's rule: "
              "never put production, database or deployment credentials in this entry; a review "
              "agent that can read them can use them.",
          LineText(doc.text, doc.lines.LineOf(at)));
    }
    WalkForeign(doc, value, at, ctx);
  }
}

void AuditStored(const SettingsDocument& doc, const std::string& pointer, AuditContext* ctx) {
  const nlohmann::json& p = doc.json->at(nlohmann::json::json_pointer(pointer));
  if (!p.is_object()) return;
  ToolView view;
  view.tool = kTool;
  view.file = doc.path;
  std::string sc = pointer + "/settingsConfig";
  if (p.contains("settingsConfig") && p["settingsConfig"].is_object()) {
    const nlohmann::json& cfg = p["settingsConfig"];
    if (cfg.contains("env")) AuditClaudeEnv(doc, sc + "/env", kTool, &view, ctx);
    if (cfg.contains("apiKeyHelper") && cfg["apiKeyHelper"].is_string()) {
      view.key_env = KeyEnvFromHelper(cfg["apiKeyHelper"].get<std::string>());
      view.key_line = doc.lines.LineOf(sc + "/apiKeyHelper");
    }
    if (!cfg.contains("env") || !cfg["env"].is_object() ||
        !cfg["env"].contains("ANTHROPIC_BASE_URL")) {
      ctx->Add("error", "ccswitch.base_url_missing", kTool, doc.path, doc.lines.LineOf(sc),
               "no ANTHROPIC_BASE_URL",
               "settingsConfig.env has no ANTHROPIC_BASE_URL: once CC Switch "
               "writes this provider, Claude Code sends requests to its default endpoint.");
    }
  }
  if (p.contains("meta") && p["meta"].is_object() && p["meta"].contains("apiKeyField")) {
    const nlohmann::json& f = p["meta"]["apiKeyField"];
    if (f != "ANTHROPIC_AUTH_TOKEN" && f != "ANTHROPIC_API_KEY") {
      ctx->Add("warning", "ccswitch.api_key_field", kTool, doc.path,
               doc.lines.LineOf(pointer + "/meta/apiKeyField"), "an unknown apiKeyField",
               "meta.apiKeyField is \"ANTHROPIC_AUTH_TOKEN\" or "
               "\"ANTHROPIC_API_KEY\" in CC Switch; anything else leaves the key field unset.");
    }
  }
  ctx->AddView(view);
}

}  // namespace

void AuditCcSwitch(const SettingsDocument& doc, AuditContext* ctx) {
  CheckSecretPatterns(kTool, doc.path, doc.text, ctx);
  const nlohmann::json& j = doc.json.get();
  WalkForeign(doc, j, "", ctx);
  if (j.contains("provider") && j["provider"].is_object()) {
    const nlohmann::json& p = j["provider"];
    ToolView view;
    view.tool = kTool;
    view.file = doc.path;
    if (p.contains("baseUrl") && p["baseUrl"].is_string()) {
      view.base_url = p["baseUrl"].get<std::string>();
      view.base_line = doc.lines.LineOf("/provider/baseUrl");
      CheckUrl(kTool, doc.path, view.base_line, "provider.baseUrl", view.base_url, doc.text, ctx);
    } else {
      ctx->Add("error", "ccswitch.base_url_missing", kTool, doc.path, doc.lines.LineOf("/provider"),
               "no provider.baseUrl", "The provider entry names no Base URL to pin.");
    }
    if (p.contains("apiKey") && p["apiKey"].is_string()) {
      std::string key = p["apiKey"].get<std::string>();
      int line = doc.lines.LineOf("/provider/apiKey");
      if (!ctx->IsPlaceholder(key)) {
        if (!ctx->Has(doc.path, line, "agent_config.secret_literal")) {
          ctx->Add("error", "agent_config.secret_literal", kTool, doc.path, line,
                   "a literal key in provider.apiKey",
                   "provider.apiKey holds " + ctx->DescribeSecret(key) +
                       ". CC Switch stores keys in plain "
                       "text; write a placeholder (\"${" +
                       (ctx->provider() ? ctx->provider()->key_env : std::string("KEY_ENV")) +
                       "}\") and keep the key in the environment. Revoke this one.");
        }
      } else {
        view.key_env = KeyEnvFromPlaceholder(key);
        view.key_line = line;
      }
    }
    if (p.contains("keyEnv") && p["keyEnv"].is_string() && view.key_env.empty()) {
      view.key_env = p["keyEnv"].get<std::string>();
      view.key_line = doc.lines.LineOf("/provider/keyEnv");
    }
    if (j.contains("models") && j["models"].is_object()) {
      for (const char* role : {"default", "fast", "review"}) {
        std::string at = std::string("/models/") + role;
        if (j["models"].contains(role) && j["models"][role].is_string()) {
          view.models.emplace_back(j["models"][role].get<std::string>(), doc.lines.LineOf(at));
        } else {
          ctx->Add("warning", "ccswitch.models", kTool, doc.path, doc.lines.LineOf("/models"),
                   std::string("no ") + role + " model",
                   std::string("models.") + role +
                       " is missing; the workflow names default, fast and review.");
        }
      }
    }
    ctx->AddView(view);
  }
  if (j.contains("scope") && j["scope"].is_object()) {
    const nlohmann::json& s = j["scope"];
    if (!s.contains("env") || s["env"] != "local") {
      ctx->Add("warning", "ccswitch.scope", kTool, doc.path, doc.lines.LineOf("/scope"),
               "the entry is not scoped to local use",
               "scope.env should be \"local\": this entry is for local diff review and log "
               "explanation, never a shared or production environment.");
    }
    if (!s.contains("note")) {
      ctx->Add("note", "ccswitch.scope", kTool, doc.path, doc.lines.LineOf("/scope"),
               "no scope note",
               "scope.note should say the entry is only for local review and never carries "
               "production, database or deployment credentials.");
    }
  }
  if (j.contains("settingsConfig")) AuditStored(doc, "", ctx);
  if (j.contains("ccSwitchProvider")) AuditStored(doc, "/ccSwitchProvider", ctx);
  if (j.contains("providers") && j["providers"].is_object()) {
    for (const auto& [id, unused] : j["providers"].items()) {
      AuditStored(doc, "/providers/" + JsonPointerToken(id), ctx);
    }
  }
}

}  // namespace av::audit_internal
