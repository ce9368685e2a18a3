// End to end: the real attnverify binary on real files for `policy check` and
// `agent-config emit|audit` (exit codes, output, files written).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;

std::string Bin() { return ATTNVERIFY_BINARY; }
std::string Data(const std::string& rel) {
  return testing::SourceDir() + "/testdata/policy/" + rel;
}

// Single-quotes `s` for /bin/sh (test helper; the tool itself never uses a shell).
std::string Q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class AgentConfigCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.File("repo/attention-verify"));
    std::filesystem::copy_file(Data("howto/attention-verify/attnverify.toml"),
                               dir_.File("repo/attention-verify/attnverify.toml"));
  }
  std::string Run(const std::string& args) {
    return "cd " + Q(dir_.File("repo")) + " && " + Q(Bin()) + " " + args;
  }
  testing::TempDir dir_;
};

TEST_F(AgentConfigCli, EmitThenAuditIsClean) {
  testing::CommandResult r = RunShell(Run("agent-config emit --tool all"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* f :
       {".claude/settings.json", ".codex/config.toml", ".cc-switch/attnverify-provider.json"}) {
    std::string path = dir_.File(std::string("repo/") + f);
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << f << "\n" << r.output;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
    EXPECT_NE(r.output.find(std::string("wrote ") + f), std::string::npos) << r.output;
  }
  r =
      RunShell(Run("agent-config audit .claude/settings.json .codex/config.toml "
                   ".cc-switch/attnverify-provider.json --json audit.json --sarif audit.sarif"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("# Agent config audit"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(2 warning)"), std::string::npos) << r.output;
  nlohmann::json j = nlohmann::json::parse(*ReadFileToString(dir_.File("repo/audit.json")));
  EXPECT_EQ(j["schema"], "attnverify.agent-config-audit/1");
  EXPECT_EQ(j["errors"], 0);
  EXPECT_EQ(j["provider"]["checked"], true);
  nlohmann::json s = nlohmann::json::parse(*ReadFileToString(dir_.File("repo/audit.sarif")));
  EXPECT_EQ(s["version"], "2.1.0");
  EXPECT_EQ(s["runs"][0]["results"].size(), 2u);

  r = RunShell(Run("agent-config emit --tool codex"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("unchanged .codex/config.toml"), std::string::npos) << r.output;
}

TEST_F(AgentConfigCli, EmitNeverOverwritesWithoutForceAndShowsTheDiff) {
  ASSERT_EQ(RunShell(Run("agent-config emit --tool claude-code")).exit_code, 0);
  std::string path = dir_.File("repo/.claude/settings.json");
  std::ofstream(path) << "{\"permissions\": {\"allow\": [\"Bash\"]}}\n";
  testing::CommandResult r = RunShell(Run("agent-config emit --tool claude-code"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("-{\"permissions\": {\"allow\": [\"Bash\"]}}"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("+  \"apiKeyHelper\""), std::string::npos) << r.output;
  EXPECT_EQ(*ReadFileToString(path), "{\"permissions\": {\"allow\": [\"Bash\"]}}\n");
  r = RunShell(Run("agent-config emit --tool claude-code --force"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(ReadFileToString(path)->find("apiKeyHelper"), std::string::npos);
}

TEST_F(AgentConfigCli, EmitRefusesABadProviderTable) {
  std::ofstream(dir_.File("repo/attention-verify/attnverify.toml"))
      << "[provider]\nname = \"t\"\nbase_url = \"https://t.example/api?utm_source=x\"\n"
         "api = \"anthropic-messages\"\nkey_env = \"T_KEY\"\nmodels = { default = \"a\", fast = "
         "\"b\", review = \"c\" }\n";
  testing::CommandResult r = RunShell(Run("agent-config emit --tool all"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("attnverify.toml:3:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("query"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("repo/.claude/settings.json")));
}

TEST(AgentConfigAuditCli, HowToConfigsReportFindingsWithFileAndLine) {
  testing::CommandResult r = RunShell(
      "cd " + Q(Data("howto")) + " && " + Q(Bin()) +
      " agent-config audit .claude/settings.json .codex/config.toml cc-switch-provider.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("`.claude/settings.json:12`"), std::string::npos) << r.output;  // python
  EXPECT_NE(r.output.find("`.claude/settings.json:19`"), std::string::npos) << r.output;  // curl
  EXPECT_NE(r.output.find("claude.deny_cannot_hold"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("`[provider]` in `attention-verify/attnverify.toml`"), std::string::npos)
      << r.output;
}

TEST(PolicyCheckCli, ExitCodesAndJson) {
  std::string settings = Data("howto/.claude/settings.json");
  auto run = [&](const std::string& extra) {
    return RunShell(Q(Bin()) + " policy check --settings " + Q(settings) + " " + extra);
  };
  testing::CommandResult r = run("--command " + Q("git status && rm -rf build"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.rfind("deny: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("Bash(rm:*) (" + settings + ":18)"), std::string::npos) << r.output;

  r = run("--command " + Q("git diff HEAD~1 -- src/"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("allow: ", 0), 0u) << r.output;

  r = run("--json --command " + Q("URL=https://production.example; curl $URL"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["decision"], "ask");
  ASSERT_EQ(j["subcommands"].size(), 2u);
  EXPECT_EQ(j["subcommands"][1]["text"], "curl $URL");
  EXPECT_EQ(j["subcommands"][1]["decision"], "ask");
  EXPECT_TRUE(j["subcommands"][1].contains("rule"));
  EXPECT_FALSE(j["reason"].get<std::string>().empty());

  r = run("--command " + Q("echo 'unterminated"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.rfind("ask: not understood", 0), 0u) << r.output;
}

TEST(PolicyCheckCli, BadInputIsExitTwoNamingTheFile) {
  testing::TempDir dir;
  std::ofstream(dir.File("s.json"))
      << "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*\"]\n  }\n}\n";
  testing::CommandResult r =
      RunShell(Q(Bin()) + " policy check --settings " + Q(dir.File("s.json")) + " --command ls");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("s.json:3"), std::string::npos) << r.output;
  r = RunShell(Q(Bin()) + " policy check --settings " + Q(dir.File("none.json")) + " --command ls");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = RunShell(Q(Bin()) + " policy check --command ls");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  std::ofstream(dir.File("t.json")) << "[1, 2";
  r = RunShell(Q(Bin()) + " policy check --settings " + Q(dir.File("t.json")) + " --command ls");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("t.json: not JSON"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace av
