// The audit of a Codex config.toml: the provider it selects (top level and each profile),
// that provider's base_url, env_key and wire_api, ANTHROPIC_* anywhere, literal tokens,
// and the sandbox and approval settings a read-only review should keep.
#include <set>

#include "agentconfig/audit_internal.h"
#include "agentconfig/secret_scan.h"
#include "core/toml_config.h"

namespace av::audit_internal {
namespace {

const std::string kTool = "codex";

int Line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::string Str(const toml::node* n) {
  if (n == nullptr) return "";
  auto s = n->value<std::string>();
  return s ? *s : "";
}

// ANTHROPIC_* names and literal credentials anywhere in the file.
void Walk(const toml::node& node, const std::string& path, const std::string& file,
          const std::string& text, AuditContext* ctx) {
  if (const toml::table* t = node.as_table()) {
    for (const auto& [key, value] : *t) {
      std::string k(key.str());
      std::string child = path.empty() ? k : path + "." + k;
      if (k.find("ANTHROPIC_") != std::string::npos) {
        ctx->Add(
            "error", "codex.anthropic_variable", kTool, file,
            static_cast<int>(key.source().begin.line), "an ANTHROPIC_* name in a Codex config",
            child +
                ": Codex never reads ANTHROPIC_* variables for its provider; mixing the two "
                "tools' variables sends requests to the wrong endpoint or fails to authenticate.",
            LineText(text, static_cast<int>(key.source().begin.line)));
      }
      if (k != "env_key" && IsSecretFieldName(k) && value.is_string() &&
          !ctx->IsPlaceholder(Str(&value)) &&
          !ctx->Has(file, Line(value), "agent_config.secret_literal")) {
        ctx->Add("error", "agent_config.secret_literal", kTool, file, Line(value),
                 "a literal key in the file",
                 child + " holds " + ctx->DescribeSecret(Str(&value)) +
                     "; Codex should read the key from the "
                     "variable env_key names. Revoke this one.");
      }
      Walk(value, child, file, text, ctx);
    }
    return;
  }
  if (const toml::array* a = node.as_array()) {
    if (path == "shell_environment_policy.exclude") return;  // excluding ANTHROPIC_* is fine
    for (const toml::node& item : *a) Walk(item, path, file, text, ctx);
    return;
  }
  std::string v = Str(&node);
  if (v.find("ANTHROPIC_") != std::string::npos) {
    ctx->Add("error", "codex.anthropic_variable", kTool, file, Line(node),
             "an ANTHROPIC_* name in a Codex config",
             path + " = \"" + v + "\": Codex does not read ANTHROPIC_* variables; " +
                 (path.size() > 8 && path.compare(path.size() - 8, 8, ".env_key") == 0
                      ? "env_key must name the provider's own variable ([provider].key_env)."
                      : "a Claude Code variable here means the two tools' settings were mixed."),
             LineText(text, Line(node)));
  }
}

void CheckModes(const toml::table& t, const std::string& where, const std::string& file,
                const std::string& text, AuditContext* ctx) {
  if (const toml::node* s = t.get("sandbox_mode")) {
    std::string v = Str(s);
    if (v == "danger-full-access") {
      ctx->Add("error", "codex.sandbox", kTool, file, Line(*s), "no sandbox",
               where +
                   "sandbox_mode = \"danger-full-access\" lets every command write anywhere and "
                   "reach the network; a review is read-only.",
               LineText(text, Line(*s)));
    } else if (v == "workspace-write") {
      ctx->Add("warning", "codex.sandbox", kTool, file, Line(*s), "the sandbox allows writes",
               where + "sandbox_mode = \"workspace-write\"; a review needs \"read-only\".",
               LineText(text, Line(*s)));
    }
  }
  if (const toml::node* a = t.get("approval_policy")) {
    std::string v = Str(a);
    if (v == "never") {
      ctx->Add("warning", "codex.approval", kTool, file, Line(*a), "never asks",
               where + "approval_policy = \"never\": commands run without a human seeing them.",
               LineText(text, Line(*a)));
    } else if (v == "on-failure") {
      ctx->Add("warning", "codex.deprecated_key", kTool, file, Line(*a),
               "a deprecated approval policy",
               where +
                   "approval_policy = \"on-failure\" is deprecated in current Codex releases; "
                   "use \"untrusted\" or \"on-request\".",
               LineText(text, Line(*a)));
    }
  }
}

// The providers and models the file puts in use: the top level's, then each profile's
// (id or name, line of the key).
struct CodexUse {
  std::vector<std::pair<std::string, int>> providers, models;
};

// The top level: the provider pinned or not, the model keys, and what reaches commands.
void CheckTopLevel(const toml::table& doc, const std::string& path, const std::string& text,
                   AuditContext* ctx, CodexUse* use) {
  const toml::node* top = doc.get("model_provider");
  if (top == nullptr) {
    ctx->Add("error", "codex.provider_not_pinned", kTool, path, 1, "no model_provider",
             "Without model_provider Codex uses its built-in \"openai\" provider: requests and the "
             "key go to OpenAI's endpoint, not the pinned gateway.");
  } else {
    use->providers.emplace_back(Str(top), Line(*top));
  }
  for (const char* key : {"model", "review_model"}) {
    if (const toml::node* m = doc.get(key)) use->models.emplace_back(Str(m), Line(*m));
  }
  CheckModes(doc, "", path, text, ctx);
  if (const toml::node* s = doc["shell_environment_policy"]["ignore_default_excludes"].node()) {
    if (s->value_exact<bool>().value_or(false)) {
      ctx->Add("warning", "codex.key_reaches_commands", kTool, path, Line(*s),
               "commands see the key",
               "ignore_default_excludes = true passes variables named *KEY*, *SECRET* and *TOKEN* "
               "(the provider key among them) to every command the agent runs.",
               LineText(text, Line(*s)));
    }
  }
  if (const toml::node* n = doc["sandbox_workspace_write"]["network_access"].node()) {
    if (n->value_exact<bool>().value_or(false)) {
      ctx->Add("warning", "codex.sandbox", kTool, path, Line(*n),
               "the sandbox allows network access",
               "sandbox_workspace_write.network_access = true lets commands reach the network.",
               LineText(text, Line(*n)));
    }
  }
}

// [profiles.*]: the default profile must exist; each profile's provider and model are in use.
void CheckProfiles(const toml::table& doc, const std::string& path, const std::string& text,
                   AuditContext* ctx, CodexUse* use) {
  const toml::table* profiles = doc["profiles"].as_table();
  if (const toml::node* p = doc.get("profile")) {
    if (profiles == nullptr || profiles->get(Str(p)) == nullptr) {
      ctx->Add("error", "codex.profile_missing", kTool, path, Line(*p),
               "the default profile is not defined",
               "profile = \"" + Str(p) + "\" names no [profiles." + Str(p) + "] table.",
               LineText(text, Line(*p)));
    }
  }
  if (profiles == nullptr) return;
  for (const auto& [name, node] : *profiles) {
    const toml::table* prof = node.as_table();
    if (prof == nullptr) continue;
    std::string where = "[profiles." + std::string(name.str()) + "] ";
    if (const toml::node* mp = prof->get("model_provider")) {
      use->providers.emplace_back(Str(mp), Line(*mp));
    }
    if (const toml::node* m = prof->get("model")) use->models.emplace_back(Str(m), Line(*m));
    CheckModes(*prof, where, path, text, ctx);
  }
}

void CheckWireApi(const toml::table& p, const std::string& where, const std::string& path,
                  const std::string& text, AuditContext* ctx) {
  const toml::node* wire = p.get("wire_api");
  if (wire == nullptr) {
    ctx->Add("warning", "codex.wire_api", kTool, path, Line(p), "no wire_api",
             where +
                 "does not say wire_api; older Codex releases default to \"chat\", current ones "
                 "accept only \"responses\". Write wire_api = \"responses\".");
  } else if (Str(wire) == "chat") {
    ctx->Add("error", "codex.deprecated_key", kTool, path, Line(*wire),
             "wire_api = \"chat\" is no longer supported",
             where +
                 "wire_api = \"chat\": current Codex releases refuse to load it (\"`wire_api = "
                 "\\\"chat\\\"` is no longer supported\"); use \"responses\" and a gateway that "
                 "serves "
                 "{base}/v1/responses.",
             LineText(text, Line(*wire)));
  } else if (Str(wire) != "responses") {
    ctx->Add("error", "codex.wire_api", kTool, path, Line(*wire), "an unknown wire_api",
             where + "wire_api = \"" + Str(wire) + "\" is not \"responses\".",
             LineText(text, Line(*wire)));
  }
}

// What the provider adds to every request: query parameters, literal keys in headers.
void CheckRequestExtras(const toml::table& p, const std::string& where, const std::string& path,
                        const std::string& text, AuditContext* ctx) {
  if (const toml::table* q = p.get_as<toml::table>("query_params"); q != nullptr && !q->empty()) {
    ctx->Add("error", "agent_config.base_url", kTool, path, Line(*q),
             "query parameters on every request",
             where +
                 "query_params adds a query string to every request; like UTM parameters in a "
                 "Base URL, it does not belong to the pinned endpoint.",
             LineText(text, Line(*q)));
  }
  const toml::table* h = p.get_as<toml::table>("http_headers");
  if (h == nullptr) return;
  for (const auto& [name, value] : *h) {
    std::string lower(name.str());
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((lower == "authorization" || lower == "x-api-key") &&
        !ctx->IsPlaceholder(Str(&value)) &&
        !ctx->Has(path, Line(value), "agent_config.secret_literal")) {
      ctx->Add("error", "agent_config.secret_literal", kTool, path, Line(value),
               "a literal key in a header",
               where + "http_headers." + std::string(name.str()) + " holds " +
                   ctx->DescribeSecret(Str(&value)) + "; use env_key (or env_http_headers) instead.");
    }
  }
}

// One [model_providers.<id>] table: its endpoint and key variable become a ToolView.
ToolView CheckProvider(const std::string& id, const toml::table& p, const std::string& path,
                       const std::string& text, AuditContext* ctx) {
  std::string where = "[model_providers." + id + "] ";
  ToolView view;
  view.tool = kTool;
  view.file = path;
  view.codex_style = true;
  if (const toml::node* b = p.get("base_url")) {
    view.base_url = Str(b);
    view.base_line = Line(*b);
    CheckUrl(kTool, path, view.base_line, where + "base_url", view.base_url, text, ctx);
  } else {
    ctx->Add("error", "codex.base_url_missing", kTool, path, Line(p), "no base_url",
             where + "has no base_url: requests go to Codex's default endpoint.");
  }
  if (const toml::node* k = p.get("env_key")) {
    view.key_env = Str(k);
    view.key_line = Line(*k);
  } else {
    ctx->Add("error", "codex.env_key_missing", kTool, path, Line(p), "no env_key",
             where +
                 "has no env_key, so Codex authenticates with its stored login or "
                 "OPENAI_API_KEY instead of the provider's own variable.");
  }
  CheckWireApi(p, where, path, text, ctx);
  CheckRequestExtras(p, where, path, text, ctx);
  return view;
}

}  // namespace

Status AuditCodex(const std::string& path, const std::string& text, AuditContext* ctx) {
  AV_ASSIGN_OR_RETURN(toml::table doc, ParseTomlConfig(text, path));
  CheckSecretPatterns(kTool, path, text, ctx);
  Walk(doc, "", path, text, ctx);
  CodexUse use;
  CheckTopLevel(doc, path, text, ctx, &use);
  CheckProfiles(doc, path, text, ctx, &use);
  const toml::table* providers = doc["model_providers"].as_table();
  std::set<std::string> seen;
  bool first_view = true;
  for (const auto& [id, line] : use.providers) {
    if (!seen.insert(id).second) continue;
    const toml::table* p = providers ? providers->get_as<toml::table>(id) : nullptr;
    if (p == nullptr) {
      ctx->Add(
          "error", "codex.provider_not_pinned", kTool, path, line, "model_provider names no table",
          "model_provider = \"" + id + "\" has no [model_providers." + id +
              "] table, so Codex "
              "falls back to a built-in provider (or refuses to start): not the pinned gateway.",
          LineText(text, line));
      continue;
    }
    ToolView view = CheckProvider(id, *p, path, text, ctx);
    if (first_view) view.models = use.models;  // the models go with the top-level provider
    first_view = false;
    ctx->AddView(view);
  }
  return Status::Ok();
}

}  // namespace av::audit_internal
