#include "agent/agent_answer.h"

#include <gtest/gtest.h>

namespace av {
namespace {

constexpr const char* kOne =
    R"({"findings": [{"file": "src/flash_mla/splitk_decode.h", "line": 63, "end_line": 64,
        "item": 5, "severity": "high", "claim": "split order changed", "evidence": "diff",
        "command": "attnverify numerics --filter num_splits"}],
        "checks": [{"item": 4, "status": "missing", "needs": "a tail shape", "command": "x"}]})";

TEST(AgentAnswer, ReadsFindingsAndChecks) {
  Result<AgentAnswer> a = ParseAgentAnswer(kOne);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->findings.size(), 1u);
  EXPECT_EQ(a->findings[0].file, "src/flash_mla/splitk_decode.h");
  EXPECT_EQ(a->findings[0].line, 63);
  EXPECT_EQ(a->findings[0].end_line, 64);
  EXPECT_EQ(a->findings[0].side, "new");
  EXPECT_EQ(a->findings[0].item, 5);
  EXPECT_EQ(a->findings[0].command, "attnverify numerics --filter num_splits");
  ASSERT_EQ(a->checks.size(), 1u);
  EXPECT_EQ(a->checks[0].status, CheckStatus::kMissing);
}

TEST(AgentAnswer, ToleratesAJsonFence) {
  Result<AgentAnswer> a = ParseAgentAnswer(std::string("```json\n") + kOne + "\n```\n");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->findings.size(), 1u);
  EXPECT_TRUE(ParseAgentAnswer(std::string("```\n") + kOne + "\n```").ok());
}

TEST(AgentAnswer, ProseAroundTheObjectIsAnError) {
  Result<AgentAnswer> a = ParseAgentAnswer(std::string("Here are my findings:\n") + kOne);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("not JSON"), std::string::npos) << a.status().message();
  EXPECT_FALSE(ParseAgentAnswer(std::string("```json\n") + kOne + "\n```\nHope this helps").ok());
}

TEST(AgentAnswer, ErrorsNameTheJsonPath) {
  Result<AgentAnswer> a =
      ParseAgentAnswer(R"({"findings": [{"item": 2, "severity": "high", "claim": "c"},
                                         {"item": 9, "severity": "high", "claim": "c"}]})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "$.findings[1].item: out of range (1..8)");
  a = ParseAgentAnswer(R"({"findings": [{"item": 2, "severity": "urgent", "claim": "c"}]})");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("$.findings[0].severity"), std::string::npos);
  a = ParseAgentAnswer(
      R"({"findings": [{"item": 2, "severity": "low", "claim": "c", "line": "63"}]})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "$.findings[0].line: not an integer");
  a = ParseAgentAnswer(R"({"checks": []})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "$.findings: missing");
  a = ParseAgentAnswer(
      R"({"findings": [{"item": 2, "severity": "low", "claim": "c", "line": 9, "end_line": 3}]})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "$.findings[0].end_line: before line");
}

TEST(AgentAnswer, EmptyTruncatedAndDeepAnswersAreErrorsNotCrashes) {
  EXPECT_FALSE(ParseAgentAnswer("").ok());
  EXPECT_FALSE(ParseAgentAnswer("   \n").ok());
  EXPECT_FALSE(ParseAgentAnswer(R"({"findings": [{"item": 2, "sev)").ok());
  EXPECT_FALSE(ParseAgentAnswer(std::string(100000, '[')).ok());
  EXPECT_FALSE(ParseAgentAnswer("[1, 2]").ok());
  EXPECT_FALSE(ParseAgentAnswer(std::string(kMaxAnswerBytes + 1, ' ')).ok());
}

TEST(AgentAnswer, NoFindingsIsAnAnswer) {
  Result<AgentAnswer> a = ParseAgentAnswer(R"({"findings": []})");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->findings.empty());
  EXPECT_TRUE(a->checks.empty());
}

}  // namespace
}  // namespace av
