// The agent stage of `attnverify run`: planned after numerics only when [review] reviewer
// includes the agent, and skipped, with the variable to export and the command to run, when
// the provider's key variable is not set.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pipeline/run_config.h"

namespace av {
namespace {

#define AV_TEST_PROVIDER \
  "[provider]\nname = \"p\"\nbase_url = \"https://gw.example/api\"\nkey_env = " \
  "\"AV_TEST_AGENT_KEY_UNSET\"\n"

std::vector<std::string> Names(const std::vector<StagePlan>& plan) {
  std::vector<std::string> out;
  for (const StagePlan& s : plan) out.push_back(s.name);
  return out;
}

TEST(RunConfigAgent, TheBuiltinReviewerPlansNoAgentStage) {
  Result<RunConfig> c = ParseRunConfig(
      "[review]\nreviewer = \"builtin\"\n" AV_TEST_PROVIDER, "/p/attnverify.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(Names(PlanStages(*c, "")),
            (std::vector<std::string>{"slice", "review", "build", "numerics", "report"}));
}

TEST(RunConfigAgent, BothRunsTheAgentAfterNumericsAndAnUnsetKeyIsMissingWithTheCommand) {
  ::unsetenv("AV_TEST_AGENT_KEY_UNSET");
  Result<RunConfig> c = ParseRunConfig("[review]\nreviewer = \"both\"\n" AV_TEST_PROVIDER,
                                       "/p/attnverify.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<StagePlan> plan = PlanStages(*c, "");
  ASSERT_EQ(Names(plan),
            (std::vector<std::string>{"slice", "review", "build", "numerics", "agent", "report"}));
  EXPECT_EQ(plan[4].skip_reason,
            "agent review MISSING: $AV_TEST_AGENT_KEY_UNSET is not set; export "
            "AV_TEST_AGENT_KEY_UNSET and run: attnverify agent --config /p/attnverify.toml");
  ::setenv("AV_TEST_AGENT_KEY_UNSET", "sk-test-FAKE", 1);
  plan = PlanStages(*c, "");
  ::unsetenv("AV_TEST_AGENT_KEY_UNSET");
  EXPECT_EQ(plan[4].skip_reason, "");
  EXPECT_EQ(plan[4].args, (std::vector<std::string>{"agent", "--config", "/p/attnverify.toml"}));
}

TEST(RunConfigAgent, AgentAloneSkipsTheBuiltinReviewAndNeedsAProvider) {
  Result<RunConfig> c =
      ParseRunConfig("[review]\nreviewer = \"agent\"\n[components]\n", "/p/a.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<StagePlan> plan = PlanStages(*c, "");
  EXPECT_NE(plan[1].skip_reason.find("reviewer = \"agent\""), std::string::npos);
  EXPECT_EQ(plan[4].skip_reason, "agent review MISSING: no [provider] table in attnverify.toml");
}

}  // namespace
}  // namespace av
