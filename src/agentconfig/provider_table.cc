#include "agentconfig/provider_table.h"

#include <cctype>

namespace av {
namespace {

bool IsProviderId(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// "path:line:col" -> line (0 when it has none).
int LineOf(const std::string& where) {
  size_t end = where.rfind(':');
  if (end == std::string::npos || end == 0) return 0;
  size_t begin = where.rfind(':', end - 1);
  if (begin == std::string::npos) return 0;
  int line = 0;
  for (size_t i = begin + 1; i < end; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(where[i]))) return 0;
    line = line * 10 + (where[i] - '0');
    if (line > 100'000'000) return 0;
  }
  return line;
}

}  // namespace

Result<ProviderTable> ProviderTableFrom(const ProviderConfig& config) {
  ProviderTable p;
  p.config_path = config.path;
  p.name = config.name;
  p.base_url = config.base_url.Normalized();
  p.base_url_line = LineOf(config.base_url_where);
  p.api = std::string(WireApiName(config.api));
  p.key_env = config.key_env;
  if (!IsProviderId(p.name)) {
    return InvalidInput(config.where + ": [provider] name \"" + p.name +
                        "\" must be letters, digits, '-' or '_' for the agent configs (it is "
                        "Codex's model_provider id)");
  }
  if (p.key_env.rfind("ANTHROPIC_", 0) == 0 || p.key_env.rfind("OPENAI_", 0) == 0) {
    return InvalidInput(config.key_env_where + ": \"key_env\" = \"" + p.key_env +
                        "\": the agent configs need a variable of this provider's own (e.g. "
                        "TAOTOKEN_API_KEY); ANTHROPIC_* and OPENAI_* are read by the tools "
                        "themselves and send the key to their default endpoints");
  }
  for (auto [alias, out] :
       {std::pair{"default", &p.model_default}, std::pair{"fast", &p.model_fast},
        std::pair{"review", &p.model_review}}) {
    auto it = config.models.find(alias);
    if (it == config.models.end()) {
      return InvalidInput(config.where + ": [provider] models has no \"" + alias +
                          "\" (the agent configs need default, fast and review)");
    }
    *out = it->second;
  }
  return p;
}

Result<ProviderTable> ParseProviderTable(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(ProviderConfig config, ParseProviderConfig(text, path));
  return ProviderTableFrom(config);
}

Result<ProviderTable> ReadProviderTable(const std::string& path) {
  AV_ASSIGN_OR_RETURN(ProviderConfig config, LoadProviderConfig(path));
  return ProviderTableFrom(config);
}

}  // namespace av
