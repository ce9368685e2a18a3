// The few keys of attnverify.toml's [provider] table the agent configs are made from:
// name, base_url, api, key_env and models (default, fast, review). The full table and its
// fail-closed checks belong to src/llm/ (doc/formats/attnverify-toml-provider.md); until
// that reader lands this one reads these keys with core's TomlTableReader and applies the
// same rules to them, so the two can be merged: https Base URL without query, fragment or
// user info; key_env a variable name; no key written in the file. Other keys are left to
// the llm reader. Reads one file; any thread.
#pragma once

#include <string>

#include "core/status.h"

namespace av {

struct ProviderTable {
  std::string config_path;  // as given
  std::string name;         // "taotoken": Codex's model_provider id, CC Switch's name
  std::string base_url;     // exactly as written
  std::string api = "anthropic-messages";  // or "openai-chat"
  std::string key_env;                     // "TAOTOKEN_API_KEY"
  std::string model_default, model_fast, model_review;
  int base_url_line = 0;  // where base_url sits, for messages
};

// Errors are "attnverify.toml:LINE:COL: what"; a key written in the file is an error that
// never repeats the value.
Result<ProviderTable> ReadProviderTable(const std::string& config_path);
Result<ProviderTable> ParseProviderTable(std::string_view text, const std::string& config_path);

}  // namespace av
