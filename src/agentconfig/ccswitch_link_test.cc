// The CC Switch deep link checked against the rules CC Switch's import applies, as read in
// its source (farion1231/cc-switch: src-tauri/src/deeplink/parser.rs and provider.rs):
// written here from that reading, as our own parser of the link, not copied.
#include "agentconfig/ccswitch_link.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "llm/redact.h"

namespace av {
namespace {

// application/x-www-form-urlencoded, as CC Switch's URL library reads a query: '+' is a
// space, %XX a byte.
std::string FormDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Standard or URL-safe base64, padding optional (CC Switch tries all four).
std::optional<std::string> Base64Decode(std::string s) {
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (!s.empty() && s.back() == '=') s.pop_back();
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    size_t v = kAlphabet.find(c);
    if (v == std::string::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

bool HttpUrl(const std::string& u) {
  return (u.rfind("http://", 0) == 0 && u.size() > 7) || (u.rfind("https://", 0) == 0 && u.size() > 8);
}

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// What CC Switch would store for a Claude provider link: its name, website and
// settings_config; or the reason it refuses the link.
struct Imported {
  std::string error;
  std::string name, website_url, notes;
  nlohmann::json settings_config;
};

Imported ImportLikeCcSwitch(const std::string& link) {
  Imported r;
  auto fail = [&](std::string why) {
    r.error = std::move(why);
    return r;
  };
  const std::string prefix = "ccswitch://";
  if (link.rfind(prefix, 0) != 0) return fail("Invalid scheme");
  std::string rest = link.substr(prefix.size());
  size_t q = rest.find('?');
  std::string authority_path = rest.substr(0, q);
  size_t slash = authority_path.find('/');
  if (authority_path.substr(0, slash) != "v1") return fail("Unsupported protocol version");
  if (slash == std::string::npos || authority_path.substr(slash) != "/import") {
    return fail("Invalid path");
  }
  std::map<std::string, std::string> params;
  if (q != std::string::npos) {
    std::string query = rest.substr(q + 1);
    size_t start = 0;
    while (start <= query.size()) {
      size_t amp = query.find('&', start);
      std::string pair = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
      if (!pair.empty()) {
        size_t eq = pair.find('=');
        std::string k = FormDecode(pair.substr(0, eq));
        std::string v = eq == std::string::npos ? "" : FormDecode(pair.substr(eq + 1));
        params.emplace(k, v);  // the link names each parameter once
      }
      if (amp == std::string::npos) break;
      start = amp + 1;
    }
  }
  auto get = [&](const std::string& k) -> std::optional<std::string> {
    auto it = params.find(k);
    return it == params.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (get("resource") != "provider") return fail("Unsupported resource type");
  static const std::set<std::string> kApps = {"claude",   "codex",    "gemini", "grokbuild",
                                              "opencode", "openclaw", "hermes"};
  std::optional<std::string> app = get("app");
  if (!app) return fail("Missing 'app' parameter");
  if (!kApps.count(*app)) return fail("Invalid provider app type");
  std::optional<std::string> name = get("name");
  if (!name) return fail("Missing 'name' parameter");
  std::optional<std::string> homepage = get("homepage"), endpoint = get("endpoint"),
                             api_key = get("apiKey");
  if (homepage && !homepage->empty() && !HttpUrl(*homepage)) return fail("Invalid URL for homepage");
  if (endpoint) {
    size_t start = 0;
    while (true) {
      size_t comma = endpoint->find(',', start);
      std::string e = Trim(endpoint->substr(start, comma == std::string::npos ? std::string::npos
                                                                              : comma - start));
      if (!e.empty() && !HttpUrl(e)) return fail("Invalid URL for endpoint");
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  // The inline config: base64 JSON; for claude an `env` object that fills what the URL lacks.
  nlohmann::json env = nlohmann::json::object();
  if (std::optional<std::string> config = get("config")) {
    if (get("configFormat").value_or("json") != "json") return fail("config format");
    std::optional<std::string> text = Base64Decode(*config);
    if (!text) return fail("config: Base64 decode failed");
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded()) return fail("Invalid JSON config");
    if (!j.contains("env") || !j["env"].is_object()) return fail("Claude config must have 'env' object");
    env = j["env"];
    if ((!api_key || api_key->empty()) && env.contains("ANTHROPIC_AUTH_TOKEN") &&
        env["ANTHROPIC_AUTH_TOKEN"].is_string()) {
      api_key = env["ANTHROPIC_AUTH_TOKEN"].get<std::string>();
    }
    if ((!endpoint || endpoint->empty()) && env.contains("ANTHROPIC_BASE_URL") &&
        env["ANTHROPIC_BASE_URL"].is_string()) {
      endpoint = env["ANTHROPIC_BASE_URL"].get<std::string>();
    }
  }
  if (!api_key) return fail("API key is required (either in URL or config file)");
  if (api_key->empty()) return fail("API key cannot be empty");
  if (!endpoint) return fail("Endpoint is required (either in URL or config file)");
  std::string primary = Trim(endpoint->substr(0, endpoint->find(',')));
  if (primary.empty()) return fail("Endpoint cannot be empty");
  if (!homepage || homepage->empty()) homepage = primary;  // inferred from the endpoint
  // Only `env` is kept: the URL's fields overwrite the config's.
  env["ANTHROPIC_AUTH_TOKEN"] = *api_key;
  env["ANTHROPIC_BASE_URL"] = primary;
  if (auto m = get("model")) env["ANTHROPIC_MODEL"] = *m;
  if (auto m = get("haikuModel")) env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] = *m;
  if (auto m = get("sonnetModel")) env["ANTHROPIC_DEFAULT_SONNET_MODEL"] = *m;
  if (auto m = get("opusModel")) env["ANTHROPIC_DEFAULT_OPUS_MODEL"] = *m;
  r.name = *name;
  r.website_url = *homepage;
  r.notes = get("notes").value_or("");
  r.settings_config = {{"env", env}};
  return r;
}

ProviderTable Table() {
  Result<ProviderTable> p = ParseProviderTable(
      "[provider]\nname = \"taotoken\"\nbase_url = \"https://taotoken.net/api\"\n"
      "api = \"anthropic-messages\"\nkey_env = \"TAOTOKEN_API_KEY\"\n"
      "models = { default = \"claude-sonnet-4-5\", fast = \"claude-haiku-4-5\", "
      "review = \"claude-opus-4-1\" }\n",
      "attention-verify/attnverify.toml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : ProviderTable{};
}

// Obviously fake, with the characters a query mangles ('+' read as a space, '&', '=', '%').
std::string FakeKey() { return std::string("sk-FAKE+test/") + "key=1&x%20y ~"; }

TEST(CcSwitchLink, CcSwitchImportsItAsTheClaudeProviderWithTheKeyFromTheEnvironment) {
  ProviderTable p = Table();
  Result<std::string> link = CcSwitchDeepLink(p, FakeKey());
  ASSERT_TRUE(link.ok()) << link.status().message();
  Imported got = ImportLikeCcSwitch(*link);
  ASSERT_EQ(got.error, "") << *link;
  EXPECT_EQ(got.name, "taotoken");
  EXPECT_EQ(got.website_url, "https://taotoken.net");
  EXPECT_NE(got.notes.find("never add production"), std::string::npos) << got.notes;
  const nlohmann::json& env = got.settings_config["env"];
  EXPECT_EQ(env["ANTHROPIC_AUTH_TOKEN"], FakeKey());  // byte for byte, '+' included
  EXPECT_EQ(env["ANTHROPIC_BASE_URL"], "https://taotoken.net/api");
  EXPECT_EQ(env["ANTHROPIC_MODEL"], "claude-sonnet-4-5");
  EXPECT_EQ(env["ANTHROPIC_DEFAULT_SONNET_MODEL"], "claude-sonnet-4-5");
  EXPECT_EQ(env["ANTHROPIC_DEFAULT_HAIKU_MODEL"], "claude-haiku-4-5");
  EXPECT_EQ(env["ANTHROPIC_DEFAULT_OPUS_MODEL"], "claude-opus-4-1");
  EXPECT_EQ(env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"], "1");
  // No placeholder anywhere: CC Switch expands none, Claude Code would send it as the key.
  EXPECT_EQ(link->find("%24%7B"), std::string::npos);
  EXPECT_EQ(got.settings_config.dump().find("${"), std::string::npos);
}

TEST(CcSwitchLink, WithoutAKeyThereIsNoLinkAndCcSwitchWouldRefuseOne) {
  ProviderTable p = Table();
  for (const char* blank : {"", "   ", "\t\n"}) {
    Result<std::string> link = CcSwitchDeepLink(p, blank);
    ASSERT_FALSE(link.ok());
    EXPECT_NE(link.status().message().find("$TAOTOKEN_API_KEY"), std::string::npos);
  }
  EXPECT_FALSE(CcSwitchDeepLink(p, "sk-FAKE\nsecond-line").ok());
  // The control: the same link with its apiKey removed is refused by the import's rules.
  Result<std::string> link = CcSwitchDeepLink(p, FakeKey());
  ASSERT_TRUE(link.ok());
  std::string keyless = *link;
  size_t at = keyless.find("&apiKey=");
  ASSERT_NE(at, std::string::npos);
  keyless.erase(at, keyless.find('&', at + 1) - at);
  EXPECT_EQ(ImportLikeCcSwitch(keyless).error, "API key is required (either in URL or config file)");
}

TEST(CcSwitchLink, TheTestsDecodersReadWhatTheLinkEncodes) {
  EXPECT_EQ(Base64Decode(Base64Encode("\xff\xfe\xfd\xfc")), "\xff\xfe\xfd\xfc");
  EXPECT_EQ(Base64Decode(Base64Encode("{\"env\": {\"A\": \"+/?\"}}")), "{\"env\": {\"A\": \"+/?\"}}");
  EXPECT_EQ(PercentEncode("a+b c/d~e"), "a%2Bb%20c%2Fd~e");
  EXPECT_EQ(FormDecode(PercentEncode("a+b c&=%")), "a+b c&=%");
}

}  // namespace
}  // namespace av
