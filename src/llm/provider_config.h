// The [provider] table of attnverify.toml: the one pinned provider every agent request
// goes to (name, Base URL, wire format, the environment variable holding the key,
// models, limits, TLS options, prices), judged fail-closed when read, and the checks of
// the environment made just before a request. doc/formats/attnverify-toml-provider.md
// is the format. Plain values; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"
#include "llm/base_url.h"
#include "llm/wire_format.h"

namespace av {

struct ModelPrice {  // USD per million tokens
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
};

struct ProviderConfig {
  std::string path;         // the attnverify.toml it came from
  std::string package_dir;  // the folder holding it
  std::string where;        // "attnverify.toml:3:1" of [provider], for messages
  std::string base_url_where;
  std::string key_env_where;

  std::string name;
  BaseUrl base_url;
  WireApi api = WireApi::kAnthropicMessages;
  std::string key_env;
  bool bearer_auth = false;  // Authorization: Bearer instead of x-api-key (Anthropic format)
  std::map<std::string, std::string> models;  // alias -> model name; "default" always there
  int timeout_s = 120;
  int max_retries = 4;
  int64_t max_input_tokens_per_request = 60'000;
  int64_t max_total_tokens_per_run = 400'000;
  std::string ca_bundle;  // absolute; empty: the system store
  std::string pinned_public_key;
  std::string proxy;              // empty: none, proxy variables in the environment ignored
  bool refuse_on_secret = false;  // on_secret = "refuse"
  std::map<std::string, ModelPrice> prices;  // model name -> price
  std::vector<std::string> warnings;         // plain http to loopback, ...

  // {base_url}/v1/messages or {base_url}/v1/chat/completions.
  std::string Endpoint() const;
  // An alias ("review") or one of the configured model names; an error otherwise
  // (the provider is pinned: its models too).
  Result<std::string> ResolveModel(const std::string& name_or_alias) const;
};

// Reads [provider] from the text of attnverify.toml at `path`. Errors are
// "path:line:col: ..." naming the key; a missing [provider] table is an error too.
Result<ProviderConfig> ParseProviderConfig(const PackageConfig& package);
Result<ProviderConfig> ParseProviderConfig(std::string_view text, const std::string& path);
Result<ProviderConfig> LoadProviderConfig(const std::string& path);

// Just before a request: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, when set, must name the
// same Base URL; SSLKEYLOGFILE must be unset; and (when `need_key`) key_env must be set
// and non-empty. Each error says which variable and what to do.
Status CheckProviderEnvironment(const ProviderConfig& config,
                                const std::map<std::string, std::string>& env, bool need_key);

// The ledger's key identifier: the first 12 hex digits of sha256(key).
std::string KeyId(std::string_view key);

}  // namespace av
