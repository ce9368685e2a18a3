#include "agentconfig/agent_emit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "agentconfig/config_audit.h"
#include "agentconfig/provider_table.h"
#include "core/file.h"
#include "core/private_file.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string HowToToml() {
  return testing::SourceDir() + "/testdata/policy/howto/attention-verify/attnverify.toml";
}

TEST(AgentEmit, TheThreeFilesAgree) {
  Result<ProviderTable> p = ReadProviderTable(HowToToml());
  ASSERT_TRUE(p.ok()) << p.status().message();
  nlohmann::json claude = nlohmann::json::parse(EmitClaudeSettings(*p));
  toml::table codex = toml::parse(EmitCodexConfig(*p));
  nlohmann::json cc = nlohmann::json::parse(EmitCcSwitchProvider(*p, "attention-kernel-refactor"));

  EXPECT_EQ(claude["env"]["ANTHROPIC_BASE_URL"], p->base_url);
  EXPECT_EQ(cc["provider"]["baseUrl"], p->base_url);
  EXPECT_EQ(cc["ccSwitchProvider"]["settingsConfig"]["env"]["ANTHROPIC_BASE_URL"], p->base_url);
  EXPECT_EQ(codex["model_providers"]["taotoken"]["base_url"].value_or(std::string()),
            p->base_url + "/v1");

  EXPECT_EQ(claude["apiKeyHelper"], "printenv TAOTOKEN_API_KEY");
  EXPECT_EQ(codex["model_providers"]["taotoken"]["env_key"].value_or(std::string()),
            "TAOTOKEN_API_KEY");
  EXPECT_EQ(cc["provider"]["apiKey"], "${TAOTOKEN_API_KEY}");

  EXPECT_EQ(claude["env"]["ANTHROPIC_MODEL"], p->model_default);
  EXPECT_EQ(claude["env"]["ANTHROPIC_DEFAULT_HAIKU_MODEL"], p->model_fast);
  EXPECT_EQ(claude["env"]["ANTHROPIC_DEFAULT_OPUS_MODEL"], p->model_review);
  EXPECT_EQ(codex["model"].value_or(std::string()), p->model_default);
  EXPECT_EQ(codex["review_model"].value_or(std::string()), p->model_review);
  EXPECT_EQ(codex["profiles"]["fast"]["model"].value_or(std::string()), p->model_fast);
  EXPECT_EQ(cc["models"]["fast"], p->model_fast);

  EXPECT_EQ(claude["permissions"]["defaultMode"], "default");
  EXPECT_EQ(claude["permissions"]["disableBypassPermissionsMode"], "disable");
  EXPECT_EQ(codex["sandbox_mode"].value_or(std::string()), "read-only");
  EXPECT_EQ(codex["model_providers"]["taotoken"]["wire_api"].value_or(std::string()), "responses");
  EXPECT_EQ(cc["scope"]["env"], "local");
  // Codex never sees an Anthropic variable.
  EXPECT_EQ(EmitCodexConfig(*p).find("ANTHROPIC_"), std::string::npos);
}

TEST(AgentEmit, EmittedFilesAuditWithoutErrors) {
  Result<ProviderTable> p = ReadProviderTable(HowToToml());
  ASSERT_TRUE(p.ok());
  testing::TempDir dir;
  std::ofstream(dir.File("settings.json")) << EmitClaudeSettings(*p);
  std::ofstream(dir.File("config.toml")) << EmitCodexConfig(*p);
  std::ofstream(dir.File("cc-switch.json"))
      << EmitCcSwitchProvider(*p, "attention-kernel-refactor");
  Result<AuditReport> r = AuditAgentConfigs(
      {dir.File("settings.json"), dir.File("config.toml"), dir.File("cc-switch.json")}, &*p);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string all;
  std::set<std::string> rules;
  for (const Finding& f : r->findings) {
    all += "\n  " + std::string(SeverityName(f.severity)) + " " + f.rule + " " + f.file + ":" +
           std::to_string(f.line) + " " + f.title;
    rules.insert(f.rule);
  }
  EXPECT_EQ(r->Errors(), 0u) << all;
  // What remains is said on purpose: nvcc and ncu can run other programs in Claude Code.
  EXPECT_EQ(rules, (std::set<std::string>{"claude.allow_too_broad"})) << all;
  EXPECT_EQ(r->findings.size(), 2u) << all;
}

// doc/agent-configs.md shows the three files in full; they must be what emit writes.
TEST(AgentEmit, TheDocShowsTheEmittedFilesVerbatim) {
  Result<ProviderTable> p = ReadProviderTable(HowToToml());
  ASSERT_TRUE(p.ok()) << p.status().message();
  p->config_path = "attention-verify/attnverify.toml";  // as emit names it from the repo root
  Result<std::string> doc = ReadFileToString(testing::SourceDir() + "/doc/agent-configs.md");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  for (const std::string& file : {EmitClaudeSettings(*p), EmitCodexConfig(*p),
                                  EmitCcSwitchProvider(*p, "attention-kernel-refactor")}) {
    EXPECT_NE(doc->find(file), std::string::npos) << "doc/agent-configs.md lacks:\n" << file;
  }
}

TEST(ProviderTable, FailsClosedLikeTheProviderIssueSays) {
  struct Bad {
    const char* body;
    const char* message;
  } cases[] = {
      {"base_url = \"https://taotoken.net/api?utm_source=x\"", "UTM"},
      {"base_url = \"http://taotoken.net/api\"", "plain http"},
      {"base_url = \"https://user:pw@taotoken.net/api\"", "user info"},
      {"api_key = \"abcdef0123456789\"", "never written in attnverify.toml"},
      {"key_env = \"ANTHROPIC_AUTH_TOKEN\"", "ANTHROPIC_*"},
      {"models = { default = \"a\", review = \"c\" }", "\"fast\""},
      {"key_env = \"OPENAI_API_KEY\"", "ANTHROPIC_* and OPENAI_*"},
      {"name = \"tao token\"", "model_provider id"},
      // Rules only llm's [provider] reader has: the agent configs use that one parser.
      {"timeout_s = 0", "timeout_s"},
      {"api = \"anthropic\"", "\"api\" must be"},
  };
  for (const Bad& b : cases) {
    std::string key = std::string(b.body).substr(0, std::string(b.body).find(' '));
    std::string text = "[provider]\n";
    for (const char* line : {"name = \"taotoken\"", "base_url = \"https://taotoken.net/api\"",
                             "api = \"anthropic-messages\"", "key_env = \"TAOTOKEN_API_KEY\"",
                             "models = { default = \"a\", fast = \"b\", review = \"c\" }"}) {
      if (std::string(line).rfind(key + " ", 0) != 0) text += std::string(line) + "\n";
    }
    text += std::string(b.body) + "\n";
    Result<ProviderTable> p = ParseProviderTable(text, "attnverify.toml");
    ASSERT_FALSE(p.ok()) << b.body;
    EXPECT_NE(p.status().message().find(b.message), std::string::npos)
        << b.body << ": " << p.status().message();
    EXPECT_EQ(p.status().message().rfind("attnverify.toml:", 0), 0u) << p.status().message();
    EXPECT_EQ(p.status().message().find("abcdef0123456789"), std::string::npos);
  }
  EXPECT_FALSE(ParseProviderTable("[other]\n", "a.toml").ok());
}

TEST(PrivateFile, AtomicOwnerOnlyAndNeverOverwrittenWithoutForce) {
  testing::TempDir dir;
  std::string path = dir.File("sub/.claude/settings.json");
  Result<PrivateWrite> w = WritePrivateFile(path, "one\n", false);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_TRUE(w->written);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(dir.File("sub/.claude").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  w = WritePrivateFile(path, "one\n", false);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->unchanged);

  w = WritePrivateFile(path, "two\n", false);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->written);
  EXPECT_NE(w->diff.find("-one"), std::string::npos) << w->diff;
  EXPECT_NE(w->diff.find("+two"), std::string::npos) << w->diff;
  EXPECT_EQ(*ReadFileToString(path), "one\n");

  w = WritePrivateFile(path, "two\n", true);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->written);
  EXPECT_EQ(*ReadFileToString(path), "two\n");
  for (const auto& e : std::filesystem::directory_iterator(dir.File("sub/.claude"))) {
    EXPECT_EQ(e.path().filename(), "settings.json") << "no temporary file is left";
  }
}

TEST(PrivateFileRegression, PlantedSymlinkIsNotWrittenThrough) {
  testing::TempDir dir;
  std::ofstream(dir.File("profile")) << "original\n";
  ASSERT_EQ(::symlink(dir.File("profile").c_str(), dir.File("settings.json").c_str()), 0);
  EXPECT_FALSE(WritePrivateFile(dir.File("settings.json"), "x", true).ok());
  std::filesystem::create_directories(dir.File("real"));
  ASSERT_EQ(::symlink(dir.File("real").c_str(), dir.File(".claude").c_str()), 0);
  EXPECT_FALSE(WritePrivateFile(dir.File(".claude/settings.json"), "x", true).ok());
  EXPECT_EQ(*ReadFileToString(dir.File("profile")), "original\n");
  EXPECT_FALSE(std::filesystem::exists(dir.File("real/settings.json")));
}

}  // namespace
}  // namespace av
