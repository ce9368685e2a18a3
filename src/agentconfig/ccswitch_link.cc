#include "agentconfig/ccswitch_link.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "llm/redact.h"

namespace av {
namespace {

// "https://taotoken.net/api" -> "https://taotoken.net".
std::string Homepage(const std::string& base_url) {
  size_t scheme = base_url.find("://");
  if (scheme == std::string::npos) return base_url;
  size_t slash = base_url.find('/', scheme + 3);
  return slash == std::string::npos ? base_url : base_url.substr(0, slash);
}

bool Blank(std::string_view s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string PercentEncode(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<std::string> CcSwitchDeepLink(const ProviderTable& p, std::string_view key) {
  if (Blank(key)) {
    return InvalidInput("$" + p.key_env +
                        " is not set (or blank): CC Switch refuses a provider link without a key");
  }
  for (unsigned char c : key) {
    if (c < 0x20 || c == 0x7f) {
      return InvalidInput("$" + p.key_env + " holds a control character: not a key");
    }
  }
  // Only `env` of the config survives CC Switch's import; the URL's own parameters
  // (endpoint, apiKey, the models) overwrite the same names in it.
  nlohmann::ordered_json config = {
      {"env", {{"ANTHROPIC_BASE_URL", p.base_url}, {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"}}}};
  const std::string notes =
      "attnverify review provider (" + p.config_path +
      "): only for local diff review and log explanation; never add production, database or "
      "deployment credentials to it.";
  const std::vector<std::pair<std::string, std::string>> params = {
      {"resource", "provider"},
      {"app", "claude"},
      {"name", p.name},
      {"homepage", Homepage(p.base_url)},
      {"endpoint", p.base_url},
      {"apiKey", std::string(key)},
      {"model", p.model_default},
      {"haikuModel", p.model_fast},
      {"sonnetModel", p.model_default},
      {"opusModel", p.model_review},
      {"notes", notes},
      {"config", Base64Encode(config.dump())},
      {"configFormat", "json"}};
  std::string link = "ccswitch://v1/import";
  char sep = '?';
  for (const auto& [name, value] : params) {
    link += sep + name + "=" + PercentEncode(value);
    sep = '&';
  }
  return link;
}

}  // namespace av
