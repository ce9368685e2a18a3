// 8.agent_review: PASS with the counts when evidence/agent_review.json holds answered
// rounds; MISSING, never required, when it is absent or a stage failed.
#include <gtest/gtest.h>

#include <fstream>

#include "report/checklist_test_util.h"
#include "testing/test_util.h"

namespace av {
namespace {

using report_testing::Config;
using report_testing::FindCheck;

const Check* AgentCheck(const std::string& package_dir, const std::string& json_text,
                        ChecklistReport* report) {
  if (!json_text.empty()) {
    std::filesystem::create_directories(package_dir + "/evidence");
    std::ofstream(package_dir + "/evidence/agent_review.json") << json_text;
  }
  ReportConfig cfg = Config();
  cfg.package_dir = package_dir;
  *report = ComputeChecklist(Evidence{}, cfg, "test");
  return FindCheck(*report, "8.agent_review");
}

TEST(ChecklistAgentReview, AbsentIsMissingAndNotRequired) {
  testing::TempDir dir;
  ChecklistReport r;
  const Check* c = AgentCheck(dir.path(), "", &r);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kMissing);
  EXPECT_FALSE(c->required);
  EXPECT_NE(c->missing_command.find("attnverify agent --config"), std::string::npos);
}

TEST(ChecklistAgentReview, AnsweredRoundsPassWithTheirCounts) {
  testing::TempDir dir;
  ChecklistReport r;
  const Check* c =
      AgentCheck(dir.path(),
                 R"({"schema": "attnverify.agent_review/1", "model": "model-a", "failed": false,
          "stages": [{"n": 1, "stage": "diff_review", "status": "ok"},
                     {"n": 0, "stage": "perf", "status": "skipped", "reason": "no resources"}],
          "findings": [{"claim": "a"}, {"claim": "b"}],
          "dropped_by_reason": {"no_such_line": 2, "unsupported_number": 1}})",
                 &r);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kPass);
  EXPECT_NE(c->summary.find("2 findings held to evidence, 3 conclusions dropped "
                            "(no_such_line 2, unsupported_number 1)"),
            std::string::npos)
      << c->summary;
  ASSERT_EQ(c->citations.size(), 1u);
  EXPECT_EQ(c->citations[0].file, "evidence/agent_review.json");
}

TEST(ChecklistAgentReview, AFailedStageIsMissingWithTheStage) {
  testing::TempDir dir;
  ChecklistReport r;
  const Check* c =
      AgentCheck(dir.path(),
                 R"({"schema": "attnverify.agent_review/1", "model": "m", "failed": true,
          "stages": [{"n": 1, "stage": "final", "status": "failed", "reason": "not JSON"}],
          "findings": [], "dropped_by_reason": {}})",
                 &r);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kMissing);
  EXPECT_FALSE(c->required);
  EXPECT_NE(c->summary.find("final: not JSON"), std::string::npos) << c->summary;
}

}  // namespace
}  // namespace av
