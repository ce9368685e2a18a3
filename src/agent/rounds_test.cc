#include "agent/rounds.h"

#include <gtest/gtest.h>

#include "agent/agent_test_util.h"

namespace av {
namespace {

using testing::AgentPackageDir;
using testing::MakeAgentPackage;

TEST(AgentRounds, ErrorWindowsKeepTheLogsOwnLineNumbers) {
  std::string log;
  for (int i = 1; i <= 40; ++i) log += "line " + std::to_string(i) + "\n";
  log += "ptxas error   : uses too much shared data\n";  // line 41
  for (int i = 42; i <= 60; ++i) log += "line " + std::to_string(i) + "\n";
  std::set<int64_t> shown;
  std::string w = ErrorWindows("logs/build.log", log, 100, &shown);
  EXPECT_NE(w.find("logs/build.log:41: ptxas error"), std::string::npos) << w;
  EXPECT_EQ(shown, (std::set<int64_t>{38, 39, 40, 41, 42, 43, 44}));
  EXPECT_EQ(w.find("line 1\n"), std::string::npos);
  shown.clear();
  EXPECT_TRUE(ErrorWindows("logs/x.log", "all good\nok\n", 100, &shown).empty());
}

TEST(AgentRounds, ADiffOverTheBudgetIsSplitIntoWholeHunkGroups) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  // A flashmla diff of 30 hunks, each about 2 KB, in three functions.
  std::string diff =
      "diff --git a/src/flash_mla/big.h b/src/flash_mla/big.h\n--- a/src/flash_mla/big.h\n"
      "+++ b/src/flash_mla/big.h\n";
  for (int h = 0; h < 30; ++h) {
    int start = 1 + h * 100;
    diff += "@@ -" + std::to_string(start) + ",1 +" + std::to_string(start) + ",1 @@ void fn" +
            std::to_string(h / 10) + "()\n";
    diff += "-" + std::string(1000, 'a') + "\n+" + std::string(1000, 'b') + "\n";
  }
  testing::WriteText(d.package + "/diff/flashmla.diff", diff);
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  RoundInputs in;
  in.package = &*p;
  in.system = "prompt";
  in.budget_tokens = 1024 + 12000;  // room for ~36 KB of diff per request
  AgentStagePlan plan = PlanStage("diff_review", in);
  std::vector<const AgentRequest*> flash;
  for (const AgentRequest& r : plan.requests) {
    if (r.kernel == "flashmla") flash.push_back(&r);
  }
  ASSERT_GE(flash.size(), 2u);
  int64_t hunks_seen = 0;
  for (size_t i = 0; i < flash.size(); ++i) {
    EXPECT_EQ(flash[i]->part, static_cast<int>(i + 1));
    EXPECT_LE(EstimateTokens(flash[i]->user), in.budget_tokens);
    hunks_seen +=
        static_cast<int64_t>(flash[i]->context.new_lines.at("src/flash_mla/big.h").size());
    // A function's hunks are never split across requests.
    for (int fn = 0; fn < 3; ++fn) {
      std::string name = "void fn" + std::to_string(fn) + "()";
      if (flash[i]->user.find(name) == std::string::npos) continue;
      for (size_t j = 0; j < flash.size(); ++j) {
        if (j != i) {
          EXPECT_EQ(flash[j]->user.find(name), std::string::npos) << name;
        }
      }
    }
  }
  EXPECT_EQ(hunks_seen, 30);  // every changed line went to some request
}

TEST(AgentRounds, CrossModuleSeesEveryComponentAndFinalTheEarlierFindings) {
  AgentPackageDir d;
  MakeAgentPackage(&d, "http://127.0.0.1:9");
  Result<AgentPackage> p = LoadAgentPackage(d.config);
  ASSERT_TRUE(p.ok()) << p.status().message();
  RoundInputs in;
  in.package = &*p;
  in.system = "prompt";
  in.budget_tokens = 60000;
  AgentStagePlan cross = PlanStage("cross_module", in);
  ASSERT_EQ(cross.requests.size(), 1u);
  EXPECT_NE(cross.requests[0].user.find("src/flash_mla/splitk_decode.h"), std::string::npos);
  EXPECT_NE(cross.requests[0].user.find("src/deep_gemm/tile.cuh"), std::string::npos);
  in.earlier_findings = R"([{"stage": "diff_review", "claim": "split order"}])";
  AgentStagePlan final_plan = PlanStage("final", in);
  ASSERT_EQ(final_plan.requests.size(), 1u);
  EXPECT_NE(final_plan.requests[0].user.find("split order"), std::string::npos);
  EXPECT_NE(final_plan.requests[0].user.find("acceptance_checklist.md"), std::string::npos);
}

}  // namespace
}  // namespace av
