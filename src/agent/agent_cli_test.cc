// End to end: the real attnverify binary runs `attnverify agent` against the scripted test
// provider on loopback (tests/provider_server/server.py; no real model, a fake key made at
// run time): findings kept and dropped for each reason, a denied command, an answer
// malformed twice, one request per component diff, a planted secret that never reaches the
// server, the ledger's rows, record and replay, run-commands and compare.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agent/agent_test_util.h"
#include "agent/prompts.h"
#include "llm/ledger.h"
#include "llm/provider_server_test_util.h"
#include "testing/scoped_env.h"

namespace av {
namespace {

using nlohmann::json;
using testing::AgentPackageDir;
using testing::Answer;
using testing::Av;
using testing::FakeKey;
using testing::MakeAgentPackage;
using testing::ProviderServer;
using testing::ReadText;
using testing::RunShell;
using testing::ScopedEnv;

json Step(const std::string& text) { return {{"reply", "anthropic"}, {"text", text}}; }

json FindingJson(const std::string& file, int line, int item, const std::string& claim,
                 const std::string& evidence, const std::string& command = "") {
  json f = {{"file", file},       {"line", line},   {"item", item},
            {"severity", "high"}, {"claim", claim}, {"evidence", evidence}};
  if (!command.empty()) f["command"] = command;
  return f;
}

// The scripted model's answers, in request order: diff_review deepgemm, diff_review
// flashmla, test_log, perf, cross_module (malformed twice), final.
json ScriptedSteps() {
  const std::string flash = "src/flash_mla/splitk_decode.h";
  return json::array({
      Step("```json\n" +
           Answer({FindingJson("src/deep_gemm/tile.cuh", 11, 4,
                               "the row < m guard is gone: rows past M load out of bounds", "diff",
                               "attnverify numerics --filter gemm")}) +
           "\n```"),
      Step(Answer(
          {FindingJson(flash, 63, 5, "split order changed: each split now takes a chunk", "diff",
                       "attnverify numerics --config attention-verify/attnverify.toml "
                       "--filter num_splits"),
           FindingJson(flash, 90, 5, "the combine reads lse out of range", "diff"),
           FindingJson(flash, 62, 5, "the chunk rounding may skip the last keys", "diff",
                       "rm -rf build && attnverify numerics")})),
      Step(Answer({FindingJson("", 0, 2, "causal case fails with a max error of 2.48",
                               "evidence/numerics.json#attn.causal.s_q=5.s_k=33.bf16.s0"),
                   FindingJson("", 0, 2, "the varlen case fails too",
                               "evidence/numerics.json#attn.varlen.s_q=7.bf16.s0")})),
      Step(Answer(
          {FindingJson("", 0, 3, "shared memory rose to 240000 bytes", "evidence/resources.json"),
           FindingJson("", 0, 3, "head needs 294912 bytes of shared memory, the cap is 227 KiB",
                       "evidence/resources.json")})),
      Step("Sure! The modules look consistent."),
      Step("{\"findings\": [ oops"),
      Step(Answer({}, {json{{"item", 3},
                            {"status", "fail"},
                            {"needs", "a tile that fits"},
                            {"command", "attnverify build"}}})),
  });
}

class AgentCliTest : public ::testing::Test {
 protected:
  bool Serve(const json& steps) {
    std::string error = server_.Start(json{{"steps", steps}}.dump());
    if (!error.empty()) skip_ = "the test provider could not start: " + error;
    return error.empty();
  }
  std::string Package(const std::string& f) const { return dir_.package + "/" + f; }

  ProviderServer server_;
  AgentPackageDir dir_;
  std::string skip_;
  std::string secret_ = std::string("AKIA") + "TESTFAKE" + "00005678";
};

TEST_F(AgentCliTest, EveryRoundHeldToEvidenceAgainstTheLoopbackProvider) {
  if (!Serve(ScriptedSteps())) GTEST_SKIP() << skip_;
  MakeAgentPackage(&dir_, server_.Url(), secret_ + " " + FakeKey());
  ScopedEnv key("TAOTOKEN_API_KEY", FakeKey());
  auto r = RunShell(Av("agent --config '" + dir_.config + "'"));
  // cross_module answered malformed twice: the stage failed, and the exit code says so.
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a stage failed"), std::string::npos) << r.output;

  std::vector<json> requests = server_.Requests();
  ASSERT_EQ(requests.size(), 7u) << r.output;
  // One request per component diff, each with only its own diff.
  std::string first = json::parse(requests[0]["body"].get<std::string>())["messages"].dump();
  std::string second = json::parse(requests[1]["body"].get<std::string>())["messages"].dump();
  EXPECT_NE(first.find("src/deep_gemm/tile.cuh"), std::string::npos);
  EXPECT_EQ(first.find("splitk_decode.h"), std::string::npos);
  EXPECT_NE(second.find("splitk_decode.h"), std::string::npos);
  EXPECT_EQ(second.find("tile.cuh"), std::string::npos);
  // The retry quotes the parse error.
  EXPECT_NE(requests[5]["body"].get<std::string>().find("could not be read"), std::string::npos);
  // The planted secrets never reached the server.
  std::string raw = server_.RawLog();
  EXPECT_EQ(raw.find(secret_), std::string::npos);
  EXPECT_EQ(raw.find(FakeKey() + " "), std::string::npos);
  EXPECT_NE(raw.find("[REDACTED:"), std::string::npos);

  json summary = json::parse(ReadText(Package("evidence/agent_review.json")));
  EXPECT_TRUE(summary["failed"].get<bool>());
  EXPECT_EQ(summary["dropped_by_reason"]["no_such_line"], 1);
  EXPECT_EQ(summary["dropped_by_reason"]["no_such_evidence"], 1);
  EXPECT_EQ(summary["dropped_by_reason"]["unsupported_number"], 1);
  std::vector<std::string> kept;
  for (const json& f : summary["findings"]) kept.push_back(f["claim"].get<std::string>());
  ASSERT_EQ(kept.size(), 5u) << summary.dump(1);
  // The finding with `rm -rf build && ...` is kept; its command is not.
  bool denied = false;
  for (const json& f : summary["findings"]) {
    if (f.value("command_dropped", "") == "rm -rf build && attnverify numerics") {
      denied = f["command_decision"] == "deny" && f["command"] == "";
    }
  }
  EXPECT_TRUE(denied) << summary.dump(1);
  std::string cross_status;
  for (const json& s : summary["stages"]) {
    if (s["stage"] == "cross_module") cross_status = s["status"];
  }
  EXPECT_EQ(cross_status, "failed");

  std::string md = ReadText(Package("reports/agent_review.md"));
  EXPECT_NE(md.find("## Appendix: conclusions dropped (3)"), std::string::npos) << md;
  EXPECT_NE(md.find("unsupported_number"), std::string::npos);
  EXPECT_NE(md.find("A stage failed"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(Package("reports/agent_review_07.md")));
  EXPECT_TRUE(
      std::filesystem::exists(Package("reports/agent_requests/02-diff_review-flashmla.json")));

  // The ledger: exactly one row per attempt, each citing its answer's file.
  Result<Ledger> ledger = ReadLedger(Package("evidence/token_ledger.csv"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  ASSERT_EQ(ledger->rows.size(), requests.size());
  EXPECT_EQ(ledger->rows[0].stage, "diff_review");
  EXPECT_EQ(ledger->rows[0].kernel, "deepgemm");
  EXPECT_EQ(ledger->rows[1].report_file, "reports/agent_review_02.md");
  EXPECT_EQ(ledger->rows[6].stage, "final");
  // No byte the run wrote holds the key or the planted secret.
  auto grep = RunShell("grep -rlF -e '" + FakeKey() + "' -e '" + secret_ + "' '" + dir_.package +
                       "/reports' '" + dir_.package + "/evidence'");
  EXPECT_NE(grep.exit_code, 0) << grep.output;
}

TEST_F(AgentCliTest, ReplayGivesByteIdenticalReportsTwice) {
  if (!Serve(ScriptedSteps())) GTEST_SKIP() << skip_;
  MakeAgentPackage(&dir_, server_.Url());
  const std::string cassette = dir_.root.File("cassette");
  {
    ScopedEnv key("TAOTOKEN_API_KEY", FakeKey());
    auto rec = RunShell(Av("agent --config '" + dir_.config + "' --record '" + cassette + "'"));
    ASSERT_EQ(rec.exit_code, 2) << rec.output;
  }
  server_.Stop();
  auto snapshot = [&] {
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(Package("reports"))) {
      if (e.is_regular_file()) files[e.path().string()] = ReadText(e.path().string());
    }
    files["summary"] = ReadText(Package("evidence/agent_review.json"));
    return files;
  };
  std::map<std::string, std::string> recorded = snapshot();
  auto one = RunShell(Av("agent --config '" + dir_.config + "' --replay '" + cassette + "'"));
  EXPECT_EQ(one.exit_code, 2) << one.output;
  std::map<std::string, std::string> first = snapshot();
  auto two = RunShell(Av("agent --config '" + dir_.config + "' --replay '" + cassette + "'"));
  EXPECT_EQ(two.exit_code, 2) << two.output;
  std::map<std::string, std::string> second = snapshot();
  EXPECT_GE(first.size(), 15u);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, recorded);
}

TEST_F(AgentCliTest, RunCommandsRunsOnlyAllowedCommandsAndLogsThem) {
  std::string answer = Answer({FindingJson("src/flash_mla/splitk_decode.h", 63, 5, "split order",
                                           "diff", "echo checked-split-order"),
                               FindingJson("src/flash_mla/splitk_decode.h", 64, 5, "cleanup",
                                           "diff", "rm -rf build && echo gone")});
  if (!Serve(json::array({Step(answer)}))) GTEST_SKIP() << skip_;
  MakeAgentPackage(&dir_, server_.Url());
  // The user's own settings (never the repository's: run_commands_e2e_test.cc).
  testing::TempDir user;
  testing::WriteText(user.File("settings.json"),
                     R"j({"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(rm:*)"]}})j");
  const std::string flags = " --settings '" + user.File("settings.json") +
                            "' --allow-no-sandbox --config '" + dir_.config + "' </dev/null";
  ScopedEnv key("TAOTOKEN_API_KEY", FakeKey());
  auto r = RunShell(Av("agent --config '" + dir_.config + "' --stage diff_review"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto plan = RunShell(Av("agent run-commands" + flags));
  EXPECT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("allow echo checked-split-order"), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("deny  rm -rf build && echo gone"), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("plan only, nothing ran"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(Package("logs/agent-cmd-01.log")));
  auto run = RunShell(Av("agent run-commands --yes" + flags));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::string log = ReadText(Package("logs/agent-cmd-01.log"));
  EXPECT_NE(log.find("\nchecked-split-order\n"), std::string::npos) << log;
  EXPECT_NE(log.find("# status: exit 0"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(Package("logs/agent-cmd-02.log")));
  EXPECT_TRUE(std::filesystem::exists(dir_.root.File("attention-verify/diff")));
}

TEST_F(AgentCliTest, CompareMatchesWhatEachModelFound) {
  const std::string flash = "src/flash_mla/splitk_decode.h";
  std::string a = Answer({FindingJson(flash, 63, 5, "split order", "diff"),
                          FindingJson("", 0, 2, "causal fails",
                                      "evidence/numerics.json#attn.causal.s_q=5.s_k=33.bf16.s0")});
  std::string b = Answer({FindingJson(flash, 63, 5, "accumulation order changed", "diff")});
  // model-a's two answers (deepgemm, flashmla), then model-b's.
  if (!Serve(json::array({Step(Answer({})), Step(a), Step(Answer({})), Step(b)}))) {
    GTEST_SKIP() << skip_;
  }
  MakeAgentPackage(&dir_, server_.Url());
  ScopedEnv key("TAOTOKEN_API_KEY", FakeKey());
  auto r = RunShell(Av("agent compare --config '" + dir_.config +
                       "' --models default,review --stage diff_review"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<json> requests = server_.Requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(json::parse(requests[0]["body"].get<std::string>())["model"], "model-a");
  EXPECT_EQ(json::parse(requests[3]["body"].get<std::string>())["model"], "model-b");
  std::string md = ReadText(Package("reports/agent_compare.md"));
  EXPECT_NE(md.find("## Found by both (1)"), std::string::npos) << md;
  // Only model-a cited the failing causal case: confirmed by the package's evidence.
  EXPECT_NE(md.find("## Only default (1)"), std::string::npos) << md;
  EXPECT_NE(md.find("yes: case attn.causal.s_q=5.s_k=33.bf16.s0 fails"), std::string::npos) << md;
  EXPECT_NE(md.find("## Only review (0)"), std::string::npos) << md;
}

}  // namespace
}  // namespace av

namespace av {
namespace {

TEST(AgentInit, InitWritesThePromptsAndKeepsEditedOnes) {
  testing::TempDir dir;
  auto r = testing::RunShell("'" + std::string(ATTNVERIFY_BINARY) + "' init '" + dir.path() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string prompt = dir.File("attention-verify/config/prompts/diff_review.md");
  EXPECT_EQ(testing::ReadText(prompt), DefaultPrompt("diff_review"));
  EXPECT_NE(testing::ReadText(prompt).find("Do not assume numbers that do not appear"),
            std::string::npos);
  testing::WriteText(prompt, "my own prompt\n");
  r = testing::RunShell("'" + std::string(ATTNVERIFY_BINARY) + "' init '" + dir.path() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("kept  " + dir.path()), std::string::npos) << r.output;
  EXPECT_EQ(testing::ReadText(prompt), "my own prompt\n");
}

}  // namespace
}  // namespace av

namespace av {
namespace {

// `attnverify run` with reviewer = both: the agent stage gets the key variable through the
// scrubbed stage environment, and no byte written holds it.
TEST(AgentPipeline, RunPassesTheKeyToTheAgentStageOnly) {
  testing::ProviderServer server;
  std::string error = server.Start(
      nlohmann::json{{"steps", {{{"reply", "anthropic"}, {"text", testing::Answer({})}}}}}.dump());
  if (!error.empty()) GTEST_SKIP() << "the test provider could not start: " << error;
  testing::AgentPackageDir dir;
  testing::MakeAgentPackage(&dir, server.Url(), "", "\n[review]\nreviewer = \"both\"\n");
  ::setenv("TAOTOKEN_API_KEY", testing::FakeKey().c_str(), 1);
  auto r =
      testing::RunShell("env -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL '" +
                        std::string(ATTNVERIFY_BINARY) + "' run --config '" + dir.config + "'");
  ::unsetenv("TAOTOKEN_API_KEY");
  std::string log = testing::ReadText(dir.package + "/logs/run-agent.log");
  EXPECT_NE(log.find("01 diff_review deepgemm         ok"), std::string::npos) << log << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir.package + "/evidence/agent_review.json"));
  EXPECT_EQ(server.Requests().size(), 6u);
  auto grep = testing::RunShell("grep -rlF -e '" + testing::FakeKey() + "' '" + dir.package + "'");
  EXPECT_NE(grep.exit_code, 0) << grep.output;
}

}  // namespace
}  // namespace av
