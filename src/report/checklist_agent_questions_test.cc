// The agent's surviving findings in the checklist: listed under the item they name with
// their stage, model, ledger row and command; a high-severity one holds its item's
// N.agent_questions row MISSING until its command ran and exited 0 or a waiver covers it;
// none ever makes a check PASS or FAIL, so none rejects and none accepts. Also
// [policy] require_agent_review.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/checklist_test_util.h"
#include "report/report_writers.h"
#include "testing/test_util.h"

namespace av {
namespace {

using report_testing::Case;
using report_testing::Config;
using report_testing::FindCheck;
using report_testing::Numerics;

// One kept finding of evidence/agent_review.json.
std::string AgentFinding(int item, const std::string& severity, const std::string& command,
                         const std::string& extra = "") {
  return R"({"stage": "diff_review", "kernel": "flashmla", "model": "model-a",
             "request_id": "req-7", "report_file": "reports/agent_review_01.md",
             "file": "src/flash_mla/splitk_decode.h", "line": 63, "end_line": 64, "side": "new",
             "item": )" +
         std::to_string(item) + R"(, "severity": ")" + severity +
         R"(", "claim": "the causal mask is top-left aligned for s_q > 1",
             "evidence": "diff", "command": ")" +
         command + R"(", "command_decision": "allow")" + extra + "}";
}

class AgentQuestionsTest : public ::testing::Test {
 protected:
  void WriteAgentReview(const std::vector<std::string>& findings,
                        const std::string& stage_status = "ok") {
    std::filesystem::create_directories(dir_.path() + "/evidence");
    std::string list;
    for (const std::string& f : findings) list += (list.empty() ? "" : ",") + f;
    std::ofstream(dir_.File("evidence/agent_review.json"))
        << R"({"schema": "attnverify.agent_review/1", "model": "model-a", "failed": false,
               "stages": [{"n": 1, "stage": "diff_review", "status": ")"
        << stage_status << R"(", "reason": ""}], "findings": [)" << list
        << R"(], "dropped_by_reason": {}})";
    std::ofstream(dir_.File("evidence/token_ledger.csv"))
        << "timestamp,stage,kernel,model,input_tokens,output_tokens,total_tokens,report_file,"
           "run_id,request_id\n"
           "2026-12-01T09:30:00Z,connectivity,,model-a,1,1,2,,r,req-1\n"
           "2026-12-01T09:30:01Z,diff_review,flashmla,model-a,10,5,15,reports/agent_review_01.md,"
           "r,req-7\n";
  }
  void WriteCommandLog(const std::string& command, const std::string& status) {
    std::filesystem::create_directories(dir_.path() + "/logs");
    std::ofstream(dir_.File("logs/agent-cmd-01.log"))
        << "# attnverify agent run-commands\n# command: " << command
        << "\n# from: reports/agent_review_01.md (diff_review flashmla)\n# decision: allow\n"
           "# status: "
        << status << "\nok\n";
  }
  ChecklistReport Compute(const Evidence& ev, const std::string& toml = "") {
    ReportConfig cfg = Config(toml);
    cfg.package_dir = dir_.path();
    return ComputeChecklist(report_testing::Bound(ev), cfg, "test");
  }
  // A package whose only required item (6) passes: accepted without the agent.
  static Evidence Item6Passes() {
    Evidence ev;
    ev.numerics = Numerics({Case("sp", "sparse_attention", R"({"indices": "mixed"})", true)});
    return ev;
  }

  testing::TempDir dir_;
};

const char* kCmd = "attnverify numerics --config attention-verify/attnverify.toml --filter causal";

TEST_F(AgentQuestionsTest, AFindingOnItem2IsListedUnderItem2WithItsLabel) {
  WriteAgentReview({AgentFinding(2, "high", kCmd)});
  ChecklistReport r = Compute(Evidence{});
  ASSERT_EQ(r.items[1].agent_findings.size(), 1u);
  const AgentQuestion& q = r.items[1].agent_findings[0];
  EXPECT_EQ(q.id, "A001");
  EXPECT_EQ(q.stage, "diff_review");
  EXPECT_EQ(q.model, "model-a");
  EXPECT_EQ(q.ledger_row, "evidence/token_ledger.csv:3");
  EXPECT_EQ(q.command_decision, "allow");
  EXPECT_TRUE(q.open);
  for (const ItemResult& item : r.items) {
    if (item.number != 2) {
      EXPECT_TRUE(item.agent_findings.empty()) << item.number;
    }
  }

  // acceptance.md: inside item 2's section (after "## 2.", before "## 3."), labelled.
  std::string md = WriteAcceptanceMarkdown(r);
  size_t sec2 = md.find("\n## 2. "), sec3 = md.find("\n## 3. ");
  size_t at = md.find("`A001` high **open** src/flash_mla/splitk_decode.h:63-64");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_GT(at, sec2);
  EXPECT_LT(at, sec3);
  std::string label =
      "from: agent stage diff_review (flashmla), model model-a, ledger row "
      "evidence/token_ledger.csv:3 (request req-7, reports/agent_review_01.md)";
  EXPECT_NE(md.find(label, sec2), std::string::npos) << md;
  EXPECT_LT(md.find(label, sec2), sec3);
  EXPECT_NE(md.find("verify: `" + std::string(kCmd) + "` (policy: allow; not run)", sec2),
            std::string::npos)
      << md;

  std::string html = WriteAcceptanceHtml(r);
  size_t h2 = html.find("2. Masks and boundaries"), h3 = html.find("3. Shared memory");
  size_t hat = html.find("<code>A001</code> high <span class=\"missing\">open</span>");
  ASSERT_NE(hat, std::string::npos);
  EXPECT_GT(hat, h2);
  EXPECT_LT(hat, h3);
  EXPECT_NE(html.find("ledger row evidence/token_ledger.csv:3", h2), std::string::npos);

  nlohmann::json j = AcceptanceToJson(r);
  ASSERT_TRUE(j["items"][1].contains("agent_findings"));
  EXPECT_EQ(j["items"][1]["agent_findings"][0]["ledger_row"], "evidence/token_ledger.csv:3");
  EXPECT_FALSE(j["items"][0].contains("agent_findings"));
}

TEST_F(AgentQuestionsTest, AFindingOfItem9OrNoItemIsListedUnderItem8Only) {
  WriteAgentReview({AgentFinding(9, "high", kCmd), AgentFinding(0, "low", "")});
  ChecklistReport r = Compute(Evidence{});
  for (const ItemResult& item : r.items) {
    EXPECT_EQ(item.agent_findings.size(), item.number == 8 ? 2u : 0u) << item.number;
  }
  for (int n = 1; n <= 7; ++n) {
    EXPECT_EQ(FindCheck(r, std::to_string(n) + ".agent_questions"), nullptr) << n;
  }
  std::string md = WriteAcceptanceMarkdown(r);
  EXPECT_GT(md.find("`A001` high"), md.find("\n## 8. "));
}

TEST_F(AgentQuestionsTest, AnOpenHighQuestionHoldsTheVerdictButNeverRejects) {
  EXPECT_EQ(Compute(Item6Passes(), "[policy]\nrequired = [6]\n").verdict, ReportVerdict::kAccepted);
  WriteAgentReview({AgentFinding(6, "high", kCmd)});
  ChecklistReport r = Compute(Item6Passes(), "[policy]\nrequired = [6]\n");
  const Check* q = FindCheck(r, "6.agent_questions");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->status, CheckStatus::kMissing);
  EXPECT_TRUE(q->required);
  EXPECT_NE(q->missing_command.find("attnverify agent run-commands --config"), std::string::npos);
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete) << r.verdict_reason;
  // Its item's other checks are judged as without the agent.
  EXPECT_EQ(FindCheck(r, "6.output_contract")->status, CheckStatus::kPass);
}

TEST_F(AgentQuestionsTest, ItsCommandExitingZeroAnswersIt) {
  WriteAgentReview({AgentFinding(6, "high", kCmd)});
  WriteCommandLog(kCmd, "exit 0");
  ChecklistReport r = Compute(Item6Passes(), "[policy]\nrequired = [6]\n");
  EXPECT_EQ(FindCheck(r, "6.agent_questions"), nullptr);
  ASSERT_EQ(r.items[5].agent_findings.size(), 1u);
  EXPECT_FALSE(r.items[5].agent_findings[0].open);
  EXPECT_NE(r.items[5].agent_findings[0].resolution.find("logs/agent-cmd-01.log"),
            std::string::npos);
  EXPECT_EQ(r.verdict, ReportVerdict::kAccepted) << r.verdict_reason;
}

TEST_F(AgentQuestionsTest, ItsCommandFailingLeavesItOpenAndDoesNotReject) {
  WriteAgentReview({AgentFinding(6, "high", kCmd)});
  WriteCommandLog(kCmd, "exit 1");
  ChecklistReport r = Compute(Item6Passes(), "[policy]\nrequired = [6]\n");
  const Check* q = FindCheck(r, "6.agent_questions");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->status, CheckStatus::kMissing);
  ASSERT_FALSE(q->details.empty());
  EXPECT_NE(q->details[0].find("exit 1 (logs/agent-cmd-01.log)"), std::string::npos)
      << q->details[0];
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete);
}

TEST_F(AgentQuestionsTest, AWaiverOrALowSeverityLeavesTheVerdictToTheChecks) {
  WriteAgentReview({AgentFinding(6, "high", kCmd)});
  ChecklistReport waived = Compute(
      Item6Passes(),
      "[policy]\nrequired = [6]\nwaive = { \"6.agent_questions\" = \"checked by hand\" }\n");
  EXPECT_EQ(FindCheck(waived, "6.agent_questions")->waiver, "checked by hand");
  EXPECT_EQ(waived.verdict, ReportVerdict::kAccepted) << waived.verdict_reason;

  WriteAgentReview({AgentFinding(6, "medium", kCmd), AgentFinding(6, "low", "")});
  ChecklistReport low = Compute(Item6Passes(), "[policy]\nrequired = [6]\n");
  EXPECT_EQ(FindCheck(low, "6.agent_questions"), nullptr);
  EXPECT_EQ(low.items[5].agent_findings.size(), 2u);
  EXPECT_EQ(low.verdict, ReportVerdict::kAccepted);
}

TEST_F(AgentQuestionsTest, AFindingNeverTurnsACheckPassOrFail) {
  // No numerics at all: every check of items 1-7 is MISSING or absent, with or without
  // findings of every severity on every item.
  ChecklistReport bare = Compute(Evidence{});
  std::vector<std::string> findings;
  for (int n = 1; n <= 8; ++n) {
    for (const char* s : {"high", "medium", "low"}) findings.push_back(AgentFinding(n, s, kCmd));
  }
  WriteAgentReview(findings);
  WriteCommandLog(kCmd, "exit 0");  // every question answered
  ChecklistReport r = Compute(Evidence{});
  ASSERT_EQ(r.items.size(), bare.items.size());
  for (size_t i = 0; i + 1 < r.items.size(); ++i) {
    EXPECT_EQ(r.items[i].status, bare.items[i].status) << r.items[i].number;
    EXPECT_EQ(r.items[i].checks.size(), bare.items[i].checks.size()) << r.items[i].number;
  }
  EXPECT_EQ(r.verdict, bare.verdict);
}

TEST_F(AgentQuestionsTest, AFailingCaseStaysFailWhateverTheAgentSays) {
  Evidence ev;
  ev.numerics = Numerics({Case("g", "fp8_gemm", R"({"m": 3})", false)});
  WriteAgentReview({AgentFinding(4, "low", kCmd)});
  WriteCommandLog(kCmd, "exit 0");
  ChecklistReport r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "4.unaligned_gemm")->status, CheckStatus::kFail);
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected);
}

// [policy] require_agent_review
TEST_F(AgentQuestionsTest, RequiredAgentReviewAbsentIsMissingAndIncomplete) {
  const std::string toml = "[policy]\nrequired = [6]\nrequire_agent_review = true\n";
  ChecklistReport r = Compute(Item6Passes(), toml);
  const Check* c = FindCheck(r, "8.agent_review");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kMissing);
  EXPECT_TRUE(c->required);
  EXPECT_NE(c->summary.find("required by [policy] require_agent_review"), std::string::npos);
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete);
  EXPECT_NE(r.verdict_reason.find("require_agent_review"), std::string::npos) << r.verdict_reason;
  EXPECT_EQ(VerdictExitCode(r), 1);
}

TEST_F(AgentQuestionsTest, RequiredAgentReviewWithAFailedStageIsNotAccepted) {
  const std::string toml = "[policy]\nrequired = [6]\nrequire_agent_review = true\n";
  WriteAgentReview({}, "failed");
  EXPECT_EQ(Compute(Item6Passes(), toml).verdict, ReportVerdict::kIncomplete);
  WriteAgentReview({}, "ok");
  EXPECT_EQ(Compute(Item6Passes(), toml).verdict, ReportVerdict::kAccepted);
}

TEST_F(AgentQuestionsTest, AgentReviewIsNotRequiredByDefault) {
  ChecklistReport r = Compute(Item6Passes(), "[policy]\nrequired = [6, 8]\n");
  ChecklistReport only6 = Compute(Item6Passes(), "[policy]\nrequired = [6]\n");
  EXPECT_FALSE(FindCheck(only6, "8.agent_review")->required);
  EXPECT_EQ(only6.verdict, ReportVerdict::kAccepted);
  WriteAgentReview({}, "failed");
  EXPECT_EQ(Compute(Item6Passes(), "[policy]\nrequired = [6]\n").verdict, ReportVerdict::kAccepted);
  EXPECT_FALSE(FindCheck(r, "8.agent_review")->required);
}

TEST(ReportConfigAgentPolicy, RequireAgentReviewMustBeABool) {
  Result<ReportConfig> bad =
      ParseReportConfig("[policy]\nrequire_agent_review = \"yes\"\n", "a/attnverify.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a/attnverify.toml:2"), std::string::npos)
      << bad.status().message();
  Result<ReportConfig> good =
      ParseReportConfig("[policy]\nrequire_agent_review = true\n", "a/attnverify.toml");
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(good->require_agent_review);
}

}  // namespace
}  // namespace av
