#include "llm/provider_config.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "core/package_config.h"
#include "core/toml_config.h"
#include "llm/redact.h"

namespace av {
namespace {

constexpr std::string_view kFormatDoc = "doc/formats/attnverify-toml-provider.md";

// Names under which people write a key into a config file.
bool IsKeyHoldingName(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view n : {"key", "api_key", "apikey", "api-key", "x-api-key", "token",
                             "auth_token", "access_token", "api_token", "secret", "api_secret",
                             "password", "bearer", "authorization", "credential", "credentials"}) {
    if (lower == n) return true;
  }
  return false;
}

std::string Where(const std::string& path, const toml::source_region& src) {
  return path + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
}

// No key may be written into the toml: neither under a key-holding name, nor as a value
// that has the shape of a known secret. `table_name` is "[provider]" or "[provider.x]".
Status RefuseWrittenSecrets(const TomlTableReader& r, const toml::table& table,
                            const std::string& table_name) {
  RedactionContext patterns_only;
  for (const auto& [key, value] : table) {
    if (IsKeyHoldingName(key.str())) {
      return r.ErrorAt(key.source(),
                       table_name + " \"" + std::string(key.str()) +
                           "\": the key is never written in attnverify.toml; put it in an "
                           "environment variable and name that variable with key_env");
    }
    if (const toml::table* sub = value.as_table()) {
      AV_RETURN_IF_ERROR(RefuseWrittenSecrets(
          r, *sub,
          table_name.substr(0, table_name.size() - 1) + "." + std::string(key.str()) + "]"));
    } else if (auto s = value.value<std::string>()) {
      RedactionResult found = RedactSecrets(*s, patterns_only);
      if (found.count > 0) {
        return r.Error(value, table_name + " \"" + std::string(key.str()) +
                                  "\" holds what looks like a secret (" +
                                  found.by_rule.begin()->first +
                                  "); keys live only in the environment variable named by "
                                  "key_env");
      }
    }
  }
  return Status::Ok();
}

bool ValidEnvName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// "sha256//<44 base64 chars>" (several joined by ';').
bool ValidPin(std::string_view pin) {
  size_t start = 0;
  while (start <= pin.size()) {
    size_t end = pin.find(';', start);
    if (end == std::string_view::npos) end = pin.size();
    std::string_view one = pin.substr(start, end - start);
    if (!one.starts_with("sha256//") || one.size() != 8 + 44 || one.back() != '=') return false;
    for (char c : one.substr(8, 43)) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/') return false;
    }
    start = end + 1;
  }
  return true;
}

Result<double> Price(const TomlTableReader& r, const toml::node& node, const std::string& key) {
  auto v = node.value<double>();
  if (!v || !(*v >= 0) || *v > 1e6) {
    return r.Error(node, "\"" + key + "\" must be a number of USD per million tokens, >= 0");
  }
  return *v;
}

Status ReadPrices(const TomlTableReader& r, const toml::node& node, ProviderConfig* config) {
  const toml::table* t = node.as_table();
  if (t == nullptr) {
    return r.Error(node, "\"prices\" must be a table of model = { input, output, ... }");
  }
  for (const auto& [model, value] : *t) {
    const toml::table* p = value.as_table();
    const std::string name(model.str());
    if (p == nullptr) {
      return r.Error(value,
                     "prices.\"" + name + "\" must be a table { input = ..., output = ... }");
    }
    AV_RETURN_IF_ERROR(r.CheckKeys(*p, "prices.\"" + name + "\"",
                                   {"input", "output", "cache_read", "cache_write"}));
    ModelPrice price;
    for (const auto& [field, out] : {std::pair<const char*, double*>{"input", &price.input},
                                     {"output", &price.output},
                                     {"cache_read", &price.cache_read},
                                     {"cache_write", &price.cache_write}}) {
      const toml::node* v = p->get(field);
      if (v == nullptr) {
        if (std::string_view(field) == "input" || std::string_view(field) == "output") {
          return r.Error(value, "prices.\"" + name + "\" needs \"" + field + "\"");
        }
        continue;
      }
      AV_ASSIGN_OR_RETURN(*out, Price(r, *v, field));
    }
    config->prices[name] = price;
  }
  return Status::Ok();
}

Status ReadModels(const TomlTableReader& r, const toml::node& node, ProviderConfig* config) {
  const toml::table* t = node.as_table();
  if (t == nullptr) return r.Error(node, "\"models\" must be a table: { default = \"...\", ... }");
  for (const auto& [alias, value] : *t) {
    const std::string a(alias.str());
    AV_ASSIGN_OR_RETURN(std::string model, r.String(value, "models." + a));
    if (std::any_of(model.begin(), model.end(),
                    [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == ','; })) {
      return r.Error(value, "\"models." + a +
                                "\" must not contain spaces, commas or control "
                                "characters");
    }
    config->models[a] = model;
  }
  if (!config->models.count("default")) {
    return r.Error(node, "\"models\" needs a \"default\" model");
  }
  return Status::Ok();
}

// auth, models and the optional limits, TLS, proxy, secret and price keys.
Status ReadOptionalKeys(const TomlTableReader& r, const toml::table& t, ProviderConfig* config) {
  if (const toml::node* v = t.get("auth")) {
    AV_ASSIGN_OR_RETURN(std::string auth, r.String(*v, "auth"));
    if (auth == "bearer") {
      config->bearer_auth = true;
    } else if (auth == "x-api-key") {
      if (config->api == WireApi::kOpenAiChat) {
        return r.Error(*v,
                       "\"auth\" = \"x-api-key\" is for api = \"anthropic-messages\"; "
                       "openai-chat always sends Authorization: Bearer");
      }
      config->bearer_auth = false;
    } else {
      return r.Error(*v, "\"auth\" must be \"x-api-key\" or \"bearer\", got \"" + auth + "\"");
    }
  }
  AV_RETURN_IF_ERROR(ReadModels(r, *t.get("models"), config));
  if (const toml::node* v = t.get("timeout_s")) {
    AV_ASSIGN_OR_RETURN(int64_t s, r.Integer(*v, "timeout_s", 1, 3600));
    config->timeout_s = static_cast<int>(s);
  }
  if (const toml::node* v = t.get("max_retries")) {
    AV_ASSIGN_OR_RETURN(int64_t n, r.Integer(*v, "max_retries", 0, 10));
    config->max_retries = static_cast<int>(n);
  }
  if (const toml::node* v = t.get("max_input_tokens_per_request")) {
    AV_ASSIGN_OR_RETURN(config->max_input_tokens_per_request,
                        r.Integer(*v, "max_input_tokens_per_request", 1, 100'000'000));
  }
  if (const toml::node* v = t.get("max_total_tokens_per_run")) {
    AV_ASSIGN_OR_RETURN(config->max_total_tokens_per_run,
                        r.Integer(*v, "max_total_tokens_per_run", 1, 100'000'000'000));
  }
  if (const toml::node* v = t.get("ca_bundle")) {
    AV_ASSIGN_OR_RETURN(std::string ca, r.String(*v, "ca_bundle"));
    std::filesystem::path p(ca);
    if (p.is_relative()) p = std::filesystem::path(config->package_dir) / p;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) {
      return r.Error(*v, "\"ca_bundle\": " + p.lexically_normal().string() + " is not a file");
    }
    config->ca_bundle = p.lexically_normal().string();
  }
  if (const toml::node* v = t.get("pinned_public_key")) {
    AV_ASSIGN_OR_RETURN(config->pinned_public_key, r.String(*v, "pinned_public_key"));
    if (!ValidPin(config->pinned_public_key)) {
      return r.Error(*v,
                     "\"pinned_public_key\" must be \"sha256//<base64 of the SHA-256 of the "
                     "DER public key>\" (several joined by ';')");
    }
  }
  if (const toml::node* v = t.get("proxy")) {
    AV_ASSIGN_OR_RETURN(config->proxy, r.String(*v, "proxy"));
    std::string_view p = config->proxy;
    std::string_view authority =
        p.substr(p.find("://") == std::string_view::npos ? 0 : p.find("://") + 3);
    authority = authority.substr(0, authority.find('/'));
    if (!(p.starts_with("http://") || p.starts_with("https://"))) {
      return r.Error(*v, "\"proxy\" must be an http:// or https:// URL");
    }
    if (authority.find('@') != std::string_view::npos) {
      return r.Error(*v, "\"proxy\" has user info; credentials never go in attnverify.toml");
    }
  }
  if (const toml::node* v = t.get("on_secret")) {
    AV_ASSIGN_OR_RETURN(std::string mode, r.String(*v, "on_secret"));
    if (mode != "redact" && mode != "refuse") {
      return r.Error(*v, "\"on_secret\" must be \"redact\" or \"refuse\", got \"" + mode + "\"");
    }
    config->refuse_on_secret = mode == "refuse";
  }
  if (const toml::node* v = t.get("prices")) AV_RETURN_IF_ERROR(ReadPrices(r, *v, config));
  return Status::Ok();
}

}  // namespace

std::string ProviderConfig::Endpoint() const {
  return base_url.Normalized() + std::string(EndpointPath(api));
}

Result<std::string> ProviderConfig::ResolveModel(const std::string& name_or_alias) const {
  auto it = models.find(name_or_alias);
  if (it != models.end()) return it->second;
  for (const auto& [alias, model] : models) {
    if (model == name_or_alias) return model;
  }
  std::string list;
  for (const auto& [alias, model] : models)
    list += (list.empty() ? "" : ", ") + alias + " = " + model;
  return InvalidInput("model \"" + name_or_alias + "\" is not one of [provider] models (" + list +
                      ") in " + path);
}

Result<ProviderConfig> ParseProviderConfig(const PackageConfig& package) {
  const std::string& path = package.path();
  TomlTableReader r(path);
  AV_ASSIGN_OR_RETURN(const toml::table* t, package.Table("provider"));
  if (t == nullptr) {
    return InvalidInput(path + ": no [provider] table; the agent provider is configured there (" +
                        std::string(kFormatDoc) + ")");
  }
  ProviderConfig config;
  config.path = path;
  config.package_dir =
      std::filesystem::absolute(std::filesystem::path(path)).parent_path().lexically_normal();
  config.where = Where(path, t->source());
  AV_RETURN_IF_ERROR(RefuseWrittenSecrets(r, *t, "[provider]"));
  AV_RETURN_IF_ERROR(
      r.CheckKeys(*t, "[provider]",
                  {"name", "base_url", "api", "key_env", "auth", "models", "timeout_s",
                   "max_retries", "max_input_tokens_per_request", "max_total_tokens_per_run",
                   "ca_bundle", "pinned_public_key", "proxy", "on_secret", "prices"}));
  for (const char* required : {"name", "base_url", "api", "key_env", "models"}) {
    if (t->get(required) == nullptr) {
      return InvalidInput(config.where + ": [provider] needs \"" + required + "\" (" +
                          std::string(kFormatDoc) + ")");
    }
  }
  AV_ASSIGN_OR_RETURN(config.name, r.String(*t->get("name"), "name"));

  const toml::node& url_node = *t->get("base_url");
  AV_ASSIGN_OR_RETURN(std::string url_text, r.String(url_node, "base_url"));
  Result<BaseUrl> url = ParseBaseUrl(url_text);
  if (!url.ok()) return r.Error(url_node, "\"base_url\" " + url.status().message());
  config.base_url = *url;
  config.base_url_where = Where(path, url_node.source());
  if (config.base_url.scheme == "http") {
    config.warnings.push_back(config.base_url_where +
                              ": base_url uses plain http to loopback host " +
                              config.base_url.host + " (allowed for tests only)");
  }

  const toml::node& api_node = *t->get("api");
  AV_ASSIGN_OR_RETURN(std::string api, r.String(api_node, "api"));
  if (api == "anthropic-messages") {
    config.api = WireApi::kAnthropicMessages;
  } else if (api == "openai-chat") {
    config.api = WireApi::kOpenAiChat;
    config.bearer_auth = true;
  } else {
    return r.Error(
        api_node, "\"api\" must be \"anthropic-messages\" or \"openai-chat\", got \"" + api + "\"");
  }

  const toml::node& key_node = *t->get("key_env");
  AV_ASSIGN_OR_RETURN(config.key_env, r.String(key_node, "key_env"));
  if (!ValidEnvName(config.key_env)) {
    return r.Error(key_node,
                   "\"key_env\" must name an environment variable (letters, digits, "
                   "'_'), got \"" +
                       config.key_env + "\"");
  }
  config.key_env_where = Where(path, key_node.source());

  AV_RETURN_IF_ERROR(ReadOptionalKeys(r, *t, &config));
  return config;
}

Result<ProviderConfig> ParseProviderConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, path));
  return ParseProviderConfig(package);
}

Result<ProviderConfig> LoadProviderConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseProviderConfig(package);
}

Status CheckProviderEnvironment(const ProviderConfig& config,
                                const std::map<std::string, std::string>& env, bool need_key) {
  auto trimmed = [](std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
  };
  const std::string base = config.base_url.Normalized();
  for (const char* name : {"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"}) {
    auto it = env.find(name);
    if (it == env.end() || it->second.empty()) continue;
    Result<BaseUrl> theirs = ParseBaseUrl(it->second);
    std::string value = theirs.ok() ? theirs->Normalized() : trimmed(it->second);
    if (value == base || value == base + "/v1") continue;
    std::string host = theirs.ok() ? theirs->host : UrlHost(it->second);
    return InvalidInput(std::string(name) + " is set in the environment and points at " +
                        (host.empty() ? std::string("another URL") : "host " + host) +
                        ", not at [provider] base_url " + base + " (" + config.base_url_where +
                        "); unset it or make it equal, so no tool sends this run's requests "
                        "elsewhere");
  }
  auto keylog = env.find("SSLKEYLOGFILE");
  if (keylog != env.end() && !keylog->second.empty()) {
    return InvalidInput(
        "SSLKEYLOGFILE is set: TLS session keys would be written to a file, and traffic "
        "carrying the provider key could be decrypted from it; unset it");
  }
  if (need_key) {
    auto key = env.find(config.key_env);
    if (key == env.end()) {
      return InvalidInput("the environment variable " + config.key_env +
                          " named by [provider] key_env (" + config.key_env_where +
                          ") is not set; export the provider key there");
    }
    if (key->second.empty()) {
      return InvalidInput("the environment variable " + config.key_env +
                          " named by [provider] key_env (" + config.key_env_where + ") is empty");
    }
  }
  return Status::Ok();
}

std::string KeyId(std::string_view key) { return Sha256Hex(key).substr(0, 12); }

}  // namespace av
