// Whose rules decide the agent's commands (run_commands_policy.h), which agent_review.json
// they may come from (run_commands_binding.h) and the sandbox they run in
// (run_commands_sandbox.h). The repositories are real (git in a temporary folder); the
// settings files the user's (outside the repository) or the repository's own.
#include "agent/run_commands_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "agent/agent_test_util.h"
#include "agent/evidence_check.h"
#include "agent/run_commands_binding.h"
#include "agent/run_commands_sandbox.h"
#include "core/sha256.h"
#include "schema/run_json.h"
#include "schema/run_seal.h"
#include "testing/scoped_env.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using testing::RunShell;
using testing::TempDir;
using testing::WriteText;

// A repository with a package folder in it (attention-verify/), the package's toml as the
// base commit has it, then a head commit that changes it; nothing read from $HOME.
class RunCommandsPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    package_.package_dir = repo_.File("attention-verify");
    package_.repo_dir = repo_.path();
    package_.config_path = package_.package_dir + "/attnverify.toml";
    package_.base = "HEAD~1";
    options_.managed_settings.clear();
  }

  void Git(const std::string& args) {
    auto r = RunShell("cd '" + repo_.path() +
                      "' && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "
                      "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t "
                      "GIT_COMMITTER_EMAIL=t@x && git " +
                      args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  // Base commit: the toml `base_toml`; head commit: `head_toml` and the repository's own
  // .claude/settings.json granting every Bash command.
  void Commit(const std::string& base_toml, const std::string& head_toml) {
    WriteText(package_.config_path, base_toml);
    Git("init -q -b main && git add -A && git commit -qm base");
    WriteText(package_.config_path, head_toml);
    WriteText(repo_.File(".claude/settings.json"), R"j({"permissions": {"allow": ["Bash"]}})j");
    Git("add -A && git commit -qm head");
  }

  Verdict Decide(const RunCommandsPolicy& p, const std::string& command) {
    return DecideCommand(p.settings, command).decision;
  }

  TempDir repo_, user_;
  AgentPackage package_;
  RunCommandsPolicyOptions options_;
};

TEST_F(RunCommandsPolicyTest, RepoCommittedSettingsGrantingBashAreNeverRead) {
  Commit("[slice]\nrepo = \"..\"\n", "[slice]\nrepo = \"..\"\n");
  Result<RunCommandsPolicy> p = LoadRunCommandsPolicy(package_, options_);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Decide(*p, "rm -rf ../victim"), Verdict::kDeny);
  EXPECT_EQ(Decide(*p, "touch ../MARK"), Verdict::kAsk);
  EXPECT_EQ(Decide(*p, "attnverify numerics --filter x"), Verdict::kAllow);
  const std::string ignored = repo_.File(".claude/settings.json") + ": not read";
  EXPECT_TRUE(std::any_of(p->ignored.begin(), p->ignored.end(),
                          [&](const std::string& s) { return s.rfind(ignored, 0) == 0; }));
}

// The agent stage's own check of each answer's command (evidence_check.h) once took the
// repository's .claude/settings.json too, and recorded "allowed by" it in the review.
TEST_F(RunCommandsPolicyTest, AgentStageRepoCommittedSettingsGrantingBashAreNotRead) {
  Commit("", "");
  std::string source;
  Result<PermissionSettings> s = AgentCommandPolicy(package_, &source);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(DecideCommand(*s, "touch ../MARK").decision, Verdict::kAsk);
  EXPECT_EQ(DecideCommand(*s, "rm -rf ../victim").decision, Verdict::kDeny);
  EXPECT_EQ(source.find(".claude"), std::string::npos) << source;
}

TEST_F(RunCommandsPolicyTest, WorkingTreeTomlCannotWidenOnlyTheBaseRevisionsCounts) {
  Commit("[policy.agent_commands]\nallow = [\"Bash(make test:*)\"]\ndeny = [\"Bash(nvcc:*)\"]\n",
         "[policy.agent_commands]\nallow = [\"Bash\"]\n");
  Result<RunCommandsPolicy> p = LoadRunCommandsPolicy(package_, options_);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Decide(*p, "make test"), Verdict::kAllow);
  EXPECT_EQ(Decide(*p, "touch x"), Verdict::kAsk);        // the head's "Bash" is not read
  EXPECT_EQ(Decide(*p, "nvcc -c x.cu"), Verdict::kDeny);  // the base narrows a built-in allow
  ASSERT_EQ(p->sources.size(), 2u);
  EXPECT_NE(p->sources[1].find("[policy] agent_commands of attention-verify/attnverify.toml at "
                               "base "),
            std::string::npos)
      << p->sources[1];
}

TEST_F(RunCommandsPolicyTest, BaseThatIsHeadItselfAddsNoPackageRules) {
  Commit("[policy.agent_commands]\nallow = [\"Bash\"]\n",
         "[policy.agent_commands]\nallow = [\"Bash\"]\n");
  options_.base = "HEAD";
  Result<RunCommandsPolicy> p = LoadRunCommandsPolicy(package_, options_);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Decide(*p, "touch x"), Verdict::kAsk);
  EXPECT_TRUE(std::any_of(p->ignored.begin(), p->ignored.end(), [](const std::string& s) {
    return s.find("is HEAD itself") != std::string::npos;
  }));
}

TEST_F(RunCommandsPolicyTest, UserSettingsAddRulesButKeepEveryBuiltinDeny) {
  Commit("", "");
  WriteText(user_.File(".claude/settings.json"),
            R"j({"permissions": {"allow": ["Bash"], "deny": ["Bash(git push:*)"]}})j");
  options_.home = user_.path();
  Result<RunCommandsPolicy> p = LoadRunCommandsPolicy(package_, options_);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Decide(*p, "touch x"), Verdict::kAllow);  // the user's own choice
  EXPECT_EQ(Decide(*p, "rm -rf build"), Verdict::kDeny);
  EXPECT_EQ(Decide(*p, "curl http://example.invalid"), Verdict::kDeny);
  EXPECT_NE(p->sources[1].find(".claude/settings.json (user)"), std::string::npos);
}

TEST_F(RunCommandsPolicyTest, SettingsFileInsideTheReviewedRepositoryIsRefused) {
  Commit("", "");
  options_.settings_files = {repo_.File(".claude/settings.json")};
  Result<RunCommandsPolicy> p = LoadRunCommandsPolicy(package_, options_);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("lies inside the repository under review"), std::string::npos)
      << p.status().message();
  // Through a link from outside: the same file.
  fs::create_symlink(repo_.File(".claude/settings.json"), user_.File("mine.json"));
  options_.settings_files = {user_.File("mine.json")};
  EXPECT_FALSE(LoadRunCommandsPolicy(package_, options_).ok());
}

TEST_F(RunCommandsPolicyTest, NoGitRepositoryMeansBuiltinRulesOnly) {
  WriteText(package_.config_path, "[policy.agent_commands]\nallow = [\"Bash\"]\n");
  Result<RunCommandsPolicy> p = LoadRunCommandsPolicy(package_, options_);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Decide(*p, "touch x"), Verdict::kAsk);
  EXPECT_EQ(p->sources.size(), 1u);
}

TEST(PackageCommandRules, BadRulesNameTheFileAndLine) {
  PermissionSettings s;
  Status st = AddPackageCommandRules("[policy.agent_commands]\nallow = \"Bash\"\n", "a.toml@x", &s);
  EXPECT_NE(st.message().find("a.toml@x:2"), std::string::npos) << st.message();
  st = AddPackageCommandRules("[policy.agent_commands]\nallow = [\"Bash(\"]\n", "a.toml@x", &s);
  EXPECT_NE(st.message().find("a.toml@x:2"), std::string::npos) << st.message();
  st = AddPackageCommandRules("[policy.agent_commands]\nallwo = []\n", "a.toml@x", &s);
  EXPECT_NE(st.message().find("allwo"), std::string::npos) << st.message();
  ASSERT_TRUE(AddPackageCommandRules("[policy]\nagent_commands = { ask = [\"Bash(make:*)\"] }\n",
                                     "a.toml@x", &s)
                  .ok());
  ASSERT_EQ(s.ask.size(), 1u);
  EXPECT_EQ(s.ask[0].source, "a.toml@x:2");
}

// --- binding ---------------------------------------------------------------------------

// A ledger as attnverify writes it: sealed with this user's key ($ATTNVERIFY_KEY_FILE,
// a temporary one here) unless `sealed` is false (a hand-written one).
void WriteLedger(const std::string& package, const std::string& review_sha, bool finished,
                 bool sealed = true) {
  RunLedger l;
  l.package = package;
  StageEntry agent;
  agent.name = "agent";
  agent.run_id = "20261205T090000Z-abcdef";
  agent.status = StageStatus::kOk;
  agent.exit_code = 0;
  agent.started = "2026-12-05T09:00:00Z";
  if (finished) agent.finished = "2026-12-05T09:00:05Z";
  agent.outputs = {{kAgentReviewPath, review_sha}};
  l.Put(agent);
  if (sealed) {
    Result<SealKey> key = ReadOrCreateSealKey(SealKeyPath());
    ASSERT_TRUE(key.ok()) << key.status().message();
    SealRunLedger(&l, *key);
  }
  WriteText(package + "/evidence/run.json", RunLedgerToJson(l).dump(2));
}

class AgentReviewBinding : public ::testing::Test {
 protected:
  TempDir keys_;
  testing::ScopedEnv key_{kSealKeyEnv, keys_.File("run-seal.key")};
};

TEST_F(AgentReviewBinding, TheFileTheAgentRunWroteIsBound) {
  TempDir d;
  const std::string review = R"j({"findings": [{"command": "echo hi"}]})j";
  WriteLedger(d.path(), Sha256Hex(review), true);
  std::string bound;
  Status st = CheckAgentReviewBound(d.path(), review, &bound);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_NE(bound.find("20261205T090000Z-abcdef"), std::string::npos) << bound;
}

// A run.json written by hand (a change that commits it, say) "recording" its own review.
TEST_F(AgentReviewBinding, UnsealedRunJsonBindsNothing) {
  TempDir d;
  const std::string review = R"j({"findings": [{"command": "touch ../MARK"}]})j";
  WriteLedger(d.path(), Sha256Hex(review), true, /*sealed=*/false);
  std::string bound;
  Status st = CheckAgentReviewBound(d.path(), review, &bound);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("carries no seal"), std::string::npos) << st.message();
}

TEST_F(AgentReviewBinding, HandEditedAgentReviewIsRefused) {
  TempDir d;
  WriteLedger(d.path(), Sha256Hex(R"j({"findings": [{"command": "echo hi"}]})j"), true);
  std::string bound;
  Status st =
      CheckAgentReviewBound(d.path(), R"j({"findings": [{"command": "rm -rf /"}]})j", &bound);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("changed after the agent run 20261205T090000Z-abcdef"),
            std::string::npos)
      << st.message();
}

TEST_F(AgentReviewBinding, NoRunJsonOrNoAgentEntryOrUnfinishedRunIsRefused) {
  TempDir d;
  const std::string review = "{\"findings\": []}";
  std::string bound;
  Status none = CheckAgentReviewBound(d.path(), review, &bound);
  EXPECT_NE(none.message().find("no evidence/run.json"), std::string::npos) << none.message();
  RunLedger l;
  l.package = d.path();
  StageEntry slice;
  slice.name = "slice";
  l.Put(slice);
  Result<SealKey> key = ReadOrCreateSealKey(SealKeyPath());
  ASSERT_TRUE(key.ok()) << key.status().message();
  SealRunLedger(&l, *key);
  WriteText(d.File("evidence/run.json"), RunLedgerToJson(l).dump());
  Status no_agent = CheckAgentReviewBound(d.path(), review, &bound);
  EXPECT_NE(no_agent.message().find("records no agent run"), std::string::npos)
      << no_agent.message();
  WriteLedger(d.path(), Sha256Hex(review), false);
  Status unfinished = CheckAgentReviewBound(d.path(), review, &bound);
  EXPECT_NE(unfinished.message().find("did not finish"), std::string::npos) << unfinished.message();
}

// --- sandbox -----------------------------------------------------------------------------

TEST(CommandSandbox, ArgvHasNoNetworkAReadOnlyMachineAndPackage) {
  CommandSandboxSpec spec{"/r", "/r/attention-verify", "", "/s/bin"};
  std::vector<std::string> a = CommandSandboxArgv("/usr/bin/bwrap", spec, {"/bin/true"});
  auto has = [&](std::vector<std::string> seq) {
    return std::search(a.begin(), a.end(), seq.begin(), seq.end()) != a.end();
  };
  EXPECT_TRUE(has({"--unshare-all"}));
  EXPECT_FALSE(has({"--share-net"}));
  EXPECT_TRUE(has({"--ro-bind", "/", "/"}));
  EXPECT_FALSE(has({"--bind", "/", "/"}));
  EXPECT_TRUE(has({"--tmpfs", "/tmp"}));
  EXPECT_TRUE(has({"--ro-bind", "/r", "/r"}));
  EXPECT_TRUE(has({"--ro-bind", "/r/attention-verify", "/r/attention-verify"}));
  EXPECT_TRUE(has({"--chdir", "/r", "--", "/bin/true"}));
  EXPECT_FALSE(has({"/dev/null"}));
  spec.hidden_files = {"/home/u/.local/state/attnverify/run-seal.key"};
  a = CommandSandboxArgv("/usr/bin/bwrap", spec, {"/bin/true"});
  EXPECT_TRUE(has({"--ro-bind", "/dev/null", "/home/u/.local/state/attnverify/run-seal.key"}));
  spec.package_copy = "/s/package-1";
  a = CommandSandboxArgv("/usr/bin/bwrap", spec, {"/bin/true"});
  EXPECT_TRUE(has({"--bind", "/s/package-1", "/r/attention-verify"}));
  EXPECT_FALSE(has({"--ro-bind", "/r/attention-verify", "/r/attention-verify"}));
}

TEST(CommandSandbox, AttnverifyCommandsAreRecognisedWhereverTheyStart) {
  EXPECT_TRUE(CommandNamesAttnverify("attnverify numerics --filter x"));
  EXPECT_TRUE(CommandNamesAttnverify("cd a && ./build/attnverify numerics"));
  EXPECT_TRUE(CommandNamesAttnverify("timeout 60 attnverify run"));
  EXPECT_TRUE(CommandNamesAttnverify("bash -c 'attnverify numerics'"));
  EXPECT_FALSE(CommandNamesAttnverify("cat attention-verify/attnverify.toml"));
  EXPECT_FALSE(CommandNamesAttnverify("touch /tmp/attnverify-test-x/f"));
}

TEST(CommandSandbox, PackageCopyLeavesOutTheWorkFolderAndHasACap) {
  TempDir d;
  WriteText(d.File("pkg/evidence/numerics.json"), "{}");
  WriteText(d.File("pkg/work/big.bin"), std::string(4096, 'x'));
  fs::create_symlink("evidence/numerics.json", d.File("pkg/link"));
  ASSERT_TRUE(CopyPackageForCommand(d.File("pkg"), d.File("copy"), {"work"}, 1 << 20).ok());
  EXPECT_TRUE(fs::is_regular_file(d.File("copy/evidence/numerics.json")));
  EXPECT_TRUE(fs::is_symlink(d.File("copy/link")));
  EXPECT_FALSE(fs::exists(d.File("copy/work")));
  Status capped = CopyPackageForCommand(d.File("pkg"), d.File("copy2"), {}, 1024);
  EXPECT_NE(capped.message().find("no scratch copy"), std::string::npos) << capped.message();
}

}  // namespace
}  // namespace av
