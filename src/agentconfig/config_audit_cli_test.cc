// End to end: `attnverify agent-config audit` as a user runs it, with a key in the
// environment and the same key (or another secret) pasted into the files it audits. Every
// byte the run wrote (stdout, stderr, --md, --json, --sarif) is searched for the secrets
// and their base64 forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "llm/redact.h"
#include "testing/scoped_env.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::Av;
using testing::RunShell;
using testing::ScopedEnv;
using testing::TempDir;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A newcomer's hand-written settings.json held ANTHROPIC_AUTH_TOKEN = the value of
// $TAOTOKEN_API_KEY, "tt-fake-canary-123456789". Because it contained "fake" the audit
// called it a placeholder and printed it on stdout, in --md and in --json.
TEST(AgentConfigAuditCli, AKeyFromTheEnvironmentIsNeverPrintedWhateverItSays) {
  TempDir dir;
  const std::string key = std::string("tt-") + "fake-canary-" + "123456789";
  const std::string token = std::string("example-") + "deploy-token-" + "77aa88bb";
  const std::string slack = std::string("xoxb-") + "123456789012-" + "abcdefGHIJ";
  std::filesystem::create_directories(dir.File("repo/.claude"));
  std::filesystem::create_directories(dir.File("repo/attention-verify"));
  std::ofstream(dir.File("repo/attention-verify/attnverify.toml"))
      << "[provider]\nname = \"taotoken\"\nbase_url = \"https://taotoken.net/api\"\n"
         "api = \"anthropic-messages\"\nkey_env = \"TAOTOKEN_API_KEY\"\n"
         "models = { default = \"m1\", fast = \"m2\", review = \"m3\" }\n";
  std::ofstream(dir.File("repo/.claude/settings.json"))
      << "{\n  \"env\": {\n    \"ANTHROPIC_BASE_URL\": \"https://taotoken.net/api\",\n"
      << "    \"ANTHROPIC_AUTH_TOKEN\": \"" << key << "\",\n"
      << "    \"DEPLOY\": \"" << token << "\",\n"
      << "    \"SLACK\": \"" << slack << "\"\n  }\n}\n";
  ScopedEnv k("TAOTOKEN_API_KEY", key);
  ScopedEnv t("DEPLOY_TOKEN", token);
  const std::string out = dir.File("out");
  auto r = RunShell("cd '" + dir.File("repo") + "' && " +
                    Av("agent-config audit .claude/settings.json --md '" + out + ".md' --json '" +
                       out + ".json' --sarif '" + out + ".sarif'"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("agent_config.secret_literal"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("claude.token_placeholder"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the value of $TAOTOKEN_API_KEY"), std::string::npos) << r.output;
  nlohmann::json j = nlohmann::json::parse(ReadText(out + ".json"));
  int literals = 0;
  for (const auto& f : j["findings"]) literals += f["rule"] == "agent_config.secret_literal";
  EXPECT_EQ(literals, 3) << j.dump(2);  // the key, the token, the Slack token
  const std::string written =
      r.output + ReadText(out + ".md") + ReadText(out + ".json") + ReadText(out + ".sarif");
  for (const std::string& secret : {key, token, slack}) {
    for (const std::string& form :
         {secret, Base64Encode(secret, false, false), Base64Encode(secret, true, false)}) {
      EXPECT_EQ(written.find(form), std::string::npos) << form << " in\n" << written;
    }
  }
}

}  // namespace
}  // namespace av
