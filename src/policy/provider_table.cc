#include "policy/provider_table.h"

#include <cctype>

#include "core/file.h"
#include "core/toml_config.h"
#include "policy/base_url.h"
#include "policy/secret_scan.h"

namespace av {
namespace {

bool IsEnvName(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isupper(static_cast<unsigned char>(c)) &&
        !std::isdigit(static_cast<unsigned char>(c)) && c != '_')
      return false;
  }
  return true;
}

bool IsProviderId(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

Status CheckNoLiteralKey(const TomlTableReader& r, const toml::table& table,
                         const std::string& where) {
  for (const auto& [key, value] : table) {
    std::string k(key.str());
    if (const toml::table* sub = value.as_table()) {
      AV_RETURN_IF_ERROR(CheckNoLiteralKey(r, *sub, where + "." + k));
      continue;
    }
    auto s = value.value<std::string>();
    if (k != "key_env" && IsSecretFieldName(k)) {
      return r.Error(value, where + "." + k + " holds " + (s ? DescribeSecret(*s) : "a value") +
                                ": the key belongs in the environment variable named by key_env, "
                                "never in attnverify.toml");
    }
    if (s && !FindSecrets(*s).empty()) {
      return r.Error(value, where + "." + k + " holds " + DescribeSecret(*s) +
                                ": a key belongs in the environment, never in attnverify.toml");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ProviderTable> ParseProviderTable(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(toml::table doc, ParseTomlConfig(text, path));
  TomlTableReader r(path);
  AV_ASSIGN_OR_RETURN(const toml::table* t, r.OptionalTable(doc, "provider"));
  if (t == nullptr) {
    return InvalidInput(path +
                        ": no [provider] table (doc/formats/attnverify-toml-provider.md); "
                        "the agent configs are made from it");
  }
  AV_RETURN_IF_ERROR(CheckNoLiteralKey(r, *t, "[provider]"));
  ProviderTable p;
  p.config_path = path;
  auto required = [&](const char* key) -> Result<const toml::node*> {
    const toml::node* n = t->get(key);
    if (n == nullptr) {
      return InvalidInput(path + ":" + std::to_string(t->source().begin.line) +
                          ": [provider] has no \"" + key + "\"");
    }
    return n;
  };
  AV_ASSIGN_OR_RETURN(const toml::node* name, required("name"));
  AV_ASSIGN_OR_RETURN(p.name, r.String(*name, "name"));
  if (!IsProviderId(p.name)) {
    return r.Error(*name,
                   "\"name\" must be letters, digits, '-' or '_' (it is Codex's provider id)");
  }
  AV_ASSIGN_OR_RETURN(const toml::node* base, required("base_url"));
  AV_ASSIGN_OR_RETURN(p.base_url, r.String(*base, "base_url"));
  p.base_url_line = static_cast<int>(base->source().begin.line);
  for (const UrlProblem& problem : CheckBaseUrl(p.base_url)) {
    if (problem.error) return r.Error(*base, "base_url " + problem.message);
  }
  if (const toml::node* api = t->get("api")) {
    AV_ASSIGN_OR_RETURN(p.api, r.String(*api, "api"));
    if (p.api != "anthropic-messages" && p.api != "openai-chat") {
      return r.Error(*api, "\"api\" must be \"anthropic-messages\" or \"openai-chat\"");
    }
  }
  AV_ASSIGN_OR_RETURN(const toml::node* key_env, required("key_env"));
  AV_ASSIGN_OR_RETURN(p.key_env, r.String(*key_env, "key_env"));
  if (!IsEnvName(p.key_env)) {
    return r.Error(*key_env, "\"key_env\" must name an environment variable (A-Z, 0-9, _)");
  }
  if (p.key_env.rfind("ANTHROPIC_", 0) == 0 || p.key_env.rfind("OPENAI_", 0) == 0) {
    return r.Error(*key_env,
                   "\"key_env\" = \"" + p.key_env +
                       "\": use a variable of this provider's own "
                       "(e.g. TAOTOKEN_API_KEY); ANTHROPIC_* and OPENAI_* are read by the tools "
                       "themselves and send the key to their default endpoints");
  }
  AV_ASSIGN_OR_RETURN(const toml::node* models_node, required("models"));
  const toml::table* models = models_node->as_table();
  if (models == nullptr)
    return r.Error(*models_node, "\"models\" must be a table { default, fast, review }");
  for (auto [key, out] : {std::pair{"default", &p.model_default}, std::pair{"fast", &p.model_fast},
                          std::pair{"review", &p.model_review}}) {
    const toml::node* m = models->get(key);
    if (m == nullptr) {
      return r.Error(*models_node, std::string("models has no \"") + key +
                                       "\" (default, fast and review are all needed)");
    }
    AV_ASSIGN_OR_RETURN(*out, r.String(*m, std::string("models.") + key));
  }
  return p;
}

Result<ProviderTable> ReadProviderTable(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseProviderTable(text, path);
}

}  // namespace av
