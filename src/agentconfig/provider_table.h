// What the agent configs are made from: the name, Base URL, wire format, key variable and
// models (default, fast, review) of attnverify.toml's [provider] table. The table is read
// and judged by llm's one parser (llm/provider_config.h, fail closed); this adds only what
// the three tools need on top: a name Codex accepts as a provider id, a key variable that
// no tool reads by itself (never ANTHROPIC_* or OPENAI_*), and all three model aliases.
// Reads one file; any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "llm/provider_config.h"

namespace av {

struct ProviderTable {
  std::string config_path;  // as given
  std::string name;         // "taotoken": Codex's model_provider id, CC Switch's name
  std::string base_url;     // normalised by llm's parser: scheme://host[:port]path
  std::string api = "anthropic-messages";  // or "openai-chat"
  std::string key_env;                     // "TAOTOKEN_API_KEY"
  std::string model_default, model_fast, model_review;
  int base_url_line = 0;  // where base_url sits, for messages
};

// Errors are "attnverify.toml:LINE:COL: what" (llm's, or the three checks above); a key
// written in the file is an error that never repeats the value.
Result<ProviderTable> ReadProviderTable(const std::string& config_path);
Result<ProviderTable> ParseProviderTable(std::string_view text, const std::string& config_path);
Result<ProviderTable> ProviderTableFrom(const ProviderConfig& config);

}  // namespace av
