#include "llm/provider_config.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace av {
namespace {

const char* kGood =
    "[provider]\n"
    "name = \"taotoken\"\n"
    "base_url = \"https://taotoken.net/api\"\n"
    "api = \"anthropic-messages\"\n"
    "key_env = \"TAOTOKEN_API_KEY\"\n"
    "models = { default = \"model-a\", fast = \"model-b\", review = \"model-c\" }\n"
    "timeout_s = 30\n"
    "max_retries = 2\n"
    "max_input_tokens_per_request = 1000\n"
    "max_total_tokens_per_run = 5000\n"
    "on_secret = \"refuse\"\n"
    "prices = { \"model-a\" = { input = 3.0, output = 15, cache_read = 0.3 } }\n";

Result<ProviderConfig> Parse(const std::string& text) {
  return ParseProviderConfig(text, "pkg/attnverify.toml");
}

// kGood with line `n` (1-based) replaced by `line`.
std::string WithLine(int n, const std::string& line) {
  std::string text = kGood;
  size_t start = 0;
  for (int i = 1; i < n; ++i) start = text.find('\n', start) + 1;
  size_t end = text.find('\n', start);
  return text.substr(0, start) + line + text.substr(end);
}

void ExpectError(const std::string& text, const std::string& says) {
  Result<ProviderConfig> c = Parse(text);
  ASSERT_FALSE(c.ok()) << text;
  EXPECT_NE(c.status().message().find(says), std::string::npos) << c.status().message();
}

TEST(ProviderConfigTest, ReadsEveryKey) {
  Result<ProviderConfig> c = Parse(kGood);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->name, "taotoken");
  EXPECT_EQ(c->Endpoint(), "https://taotoken.net/api/v1/messages");
  EXPECT_EQ(c->key_env, "TAOTOKEN_API_KEY");
  EXPECT_FALSE(c->bearer_auth);
  EXPECT_EQ(c->models.at("review"), "model-c");
  EXPECT_EQ(c->timeout_s, 30);
  EXPECT_EQ(c->max_retries, 2);
  EXPECT_EQ(c->max_input_tokens_per_request, 1000);
  EXPECT_EQ(c->max_total_tokens_per_run, 5000);
  EXPECT_TRUE(c->refuse_on_secret);
  EXPECT_DOUBLE_EQ(c->prices.at("model-a").output, 15);
  EXPECT_DOUBLE_EQ(c->prices.at("model-a").cache_write, 0);
  EXPECT_TRUE(c->warnings.empty());
  EXPECT_EQ(*c->ResolveModel("fast"), "model-b");
  EXPECT_EQ(*c->ResolveModel("model-c"), "model-c");
  EXPECT_FALSE(c->ResolveModel("gpt-unpinned").ok());
}

TEST(ProviderConfigTest, OpenAiChatUsesBearerAndItsPath) {
  Result<ProviderConfig> c = Parse(WithLine(4, "api = \"openai-chat\""));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->bearer_auth);
  EXPECT_EQ(c->Endpoint(), "https://taotoken.net/api/v1/chat/completions");
  ExpectError(WithLine(4, "api = \"openai-chat\"\nauth = \"x-api-key\""), "openai-chat always");
  Result<ProviderConfig> bearer =
      Parse(WithLine(4, "api = \"anthropic-messages\"\nauth = \"bearer\""));
  ASSERT_TRUE(bearer.ok());
  EXPECT_TRUE(bearer->bearer_auth);
}

TEST(ProviderConfigTest, FailsClosedOnTheBaseUrl) {
  ExpectError(WithLine(3, "base_url = \"https://taotoken.net/api?utm_source=guide\""),
              "pkg/attnverify.toml:3:12: \"base_url\" has a query string");
  ExpectError(WithLine(3, "base_url = \"http://taotoken.net/api\""), "plain http");
  ExpectError(WithLine(3, "base_url = \"https://me:pw@taotoken.net/api\""), "user info");
  ExpectError(WithLine(3, "base_url = \"https://taotoken.net/api#x\""), "fragment");
  Result<ProviderConfig> loop = Parse(WithLine(3, "base_url = \"http://127.0.0.1:8080\""));
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  ASSERT_EQ(loop->warnings.size(), 1u);
  EXPECT_NE(loop->warnings[0].find("plain http to loopback"), std::string::npos);
}

TEST(ProviderConfigTest, AKeyWrittenInTheTomlIsRefused) {
  for (const char* key : {"api_key", "key", "token", "auth_token", "password"}) {
    ExpectError(WithLine(6, std::string(key) + " = \"whatever\""),
                "pkg/attnverify.toml:6:1: [provider] \"" + std::string(key) +
                    "\": the key is never written in attnverify.toml");
  }
  // A secret-shaped value under any name.
  ExpectError(WithLine(2, "name = \"sk-ant-api03-" + std::string(40, 'x') + "\""),
              "looks like a secret (anthropic_key)");
  ExpectError(WithLine(6, "models = { default = \"m\", token = \"t\" }"),
              "[provider.models] \"token\"");
}

TEST(ProviderConfigTest, OtherErrorsNameFileLineAndKey) {
  ExpectError("[report]\ntitle = \"x\"\n", "no [provider] table");
  ExpectError(WithLine(5, "key_env = \"1BAD\""), "pkg/attnverify.toml:5:11: \"key_env\" must name");
  ExpectError(WithLine(5, "# no key_env"), "needs \"key_env\"");
  ExpectError(WithLine(6, "models = { fast = \"m\" }"), "needs a \"default\" model");
  ExpectError(WithLine(7, "timeout_s = 0"), "\"timeout_s\" must be an integer in 1..3600");
  ExpectError(WithLine(8, "max_retries = 99"), "max_retries");
  ExpectError(WithLine(11, "on_secret = \"ignore\""), "\"on_secret\" must be");
  ExpectError(WithLine(12, "prices = { \"model-a\" = { input = -1, output = 1 } }"),
              "USD per million");
  ExpectError(WithLine(12, "prices = { \"model-a\" = { input = 1 } }"), "needs \"output\"");
  ExpectError(WithLine(12, "colour = \"blue\""), "unknown key \"colour\" in [provider]");
  ExpectError(WithLine(12, "pinned_public_key = \"sha256//short\""), "pinned_public_key");
  ExpectError(WithLine(12, "proxy = \"http://u:p@proxy.example:3128\""), "user info");
  ExpectError(WithLine(12, "ca_bundle = \"missing.pem\""), "is not a file");
  ExpectError("[provider\n", "pkg/attnverify.toml:1:");
}

TEST(ProviderConfigTest, CaBundleIsRelativeToThePackage) {
  testing::TempDir dir;
  testing::RunShell("mkdir -p '" + dir.path() + "/pkg' && touch '" + dir.path() + "/pkg/ca.pem'");
  std::string text = WithLine(12, "ca_bundle = \"ca.pem\"");
  Result<ProviderConfig> c = ParseProviderConfig(text, dir.path() + "/pkg/attnverify.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ca_bundle, dir.path() + "/pkg/ca.pem");
}

TEST(ProviderConfigTest, EnvironmentChecks) {
  Result<ProviderConfig> c = Parse(kGood);
  ASSERT_TRUE(c.ok());
  std::map<std::string, std::string> env = {{"TAOTOKEN_API_KEY", "fake-key-123456"}};
  EXPECT_TRUE(CheckProviderEnvironment(*c, env, true).ok());

  Status unset = CheckProviderEnvironment(*c, {}, true);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.message().find("TAOTOKEN_API_KEY named by [provider] key_env "
                                 "(pkg/attnverify.toml:5:11) is not set"),
            std::string::npos)
      << unset.message();
  EXPECT_TRUE(CheckProviderEnvironment(*c, {}, false).ok());  // replay needs no key
  EXPECT_NE(CheckProviderEnvironment(*c, {{"TAOTOKEN_API_KEY", ""}}, true).message().find("empty"),
            std::string::npos);

  env["ANTHROPIC_BASE_URL"] = "https://api.anthropic.com";
  Status other = CheckProviderEnvironment(*c, env, true);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.message().find("ANTHROPIC_BASE_URL is set in the environment and points at "
                                 "host api.anthropic.com"),
            std::string::npos)
      << other.message();
  env["ANTHROPIC_BASE_URL"] = "https://taotoken.net/api/";
  EXPECT_TRUE(CheckProviderEnvironment(*c, env, true).ok());
  env["OPENAI_BASE_URL"] = "https://taotoken.net/api/v1";
  EXPECT_TRUE(CheckProviderEnvironment(*c, env, true).ok());
  env["OPENAI_BASE_URL"] = "https://elsewhere.example/v1";
  EXPECT_NE(CheckProviderEnvironment(*c, env, true).message().find("OPENAI_BASE_URL"),
            std::string::npos);
  env.erase("OPENAI_BASE_URL");
  env["SSLKEYLOGFILE"] = "/tmp/keys";
  EXPECT_NE(CheckProviderEnvironment(*c, env, true).message().find("SSLKEYLOGFILE"),
            std::string::npos);
}

TEST(ProviderConfigTest, KeyIdIsTwelveHexOfSha256) {
  // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
  EXPECT_EQ(KeyId("abc"), "ba7816bf8f01");
}

}  // namespace
}  // namespace av
