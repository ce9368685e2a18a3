#include "agent/agent_run.h"

#include <gtest/gtest.h>

#include <deque>

#include "agent/agent_test_util.h"
#include "llm/ledger.h"

namespace av {
namespace {

using nlohmann::json;
using testing::AgentPackageDir;
using testing::Answer;
using testing::FakeKey;
using testing::MakeAgentPackage;
using testing::MessagesBody;
using testing::ReadText;

// A scripted model behind a fake transport: each request takes the next answer.
class AgentRunTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeAgentPackage(&dir_, "http://127.0.0.1:9", secret_); }

  Result<AgentRunOutcome> Run(std::vector<std::string> stages) {
    AgentRunOptions o;
    o.config_path = dir_.config;
    o.stages = std::move(stages);
    o.transport = &transport_;
    o.environment = [this] {
      return std::map<std::string, std::string>{{"TAOTOKEN_API_KEY", FakeKey()}};
    };
    o.sleep = [](int64_t) {};
    return RunAgentReview(o);
  }

  std::deque<std::string> answers_;
  int served_ = 0;
  FakeHttpTransport transport_{[this](const HttpRequest&) {
    std::string text = answers_.empty() ? Answer({}) : answers_.front();
    if (!answers_.empty()) answers_.pop_front();
    return MakeHttpResponse(200, MessagesBody(text, ++served_),
                            {{"request-id", "req_" + std::to_string(served_)}});
  }};
  std::string secret_ = std::string("AKIA") + "TESTFAKE" + "00001234";
  AgentPackageDir dir_;
};

TEST_F(AgentRunTest, OneRequestPerComponentDiff) {
  Result<AgentRunOutcome> out = Run({"diff_review"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(transport_.requests().size(), 2u);
  // The context message of each (the system prompt's example names a FlashMLA file).
  std::string first = json::parse(transport_.requests()[0].body)["messages"].dump();
  std::string second = json::parse(transport_.requests()[1].body)["messages"].dump();
  EXPECT_NE(first.find("src/deep_gemm/tile.cuh"), std::string::npos);
  EXPECT_EQ(first.find("src/flash_mla/"), std::string::npos);
  EXPECT_NE(second.find("src/flash_mla/splitk_decode.h"), std::string::npos);
  EXPECT_EQ(second.find("src/deep_gemm/"), std::string::npos);
  ASSERT_EQ(out->stages.size(), 2u);
  EXPECT_EQ(out->stages[0].request_file, "reports/agent_requests/01-diff_review-deepgemm.json");
  EXPECT_EQ(out->stages[1].report_file, "reports/agent_review_02.md");
  EXPECT_TRUE(std::filesystem::exists(dir_.package +
                                      "/reports/agent_requests/02-diff_review-flashmla.json"));
}

TEST_F(AgentRunTest, APlantedSecretIsRedactedBeforeSendingAndSaving) {
  ASSERT_TRUE(Run({"diff_review"}).ok());
  for (const HttpRequest& r : transport_.requests()) {
    EXPECT_EQ(r.body.find(secret_), std::string::npos);
  }
  std::string saved =
      ReadText(dir_.package + "/reports/agent_requests/01-diff_review-deepgemm.json");
  EXPECT_EQ(saved.find(secret_), std::string::npos);
  EXPECT_NE(saved.find("[REDACTED:"), std::string::npos);
}

TEST_F(AgentRunTest, AMalformedAnswerIsRetriedOnceQuotingTheError) {
  answers_ = {"I think the diff is fine.", Answer({})};
  Result<AgentRunOutcome> out = Run({"perf"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(transport_.requests().size(), 2u);
  EXPECT_NE(transport_.requests()[1].body.find("could not be read: not JSON"), std::string::npos);
  ASSERT_EQ(out->stages.size(), 2u);
  EXPECT_EQ(out->stages[0].status, AgentRoundStatus::kRetried);
  EXPECT_EQ(out->stages[1].status, AgentRoundStatus::kOk);
  EXPECT_FALSE(out->failed);
}

TEST_F(AgentRunTest, MalformedTwiceIsAFailedStageAndTheNextStagesStillRun) {
  answers_ = {"not json", "still { not json", Answer({})};
  Result<AgentRunOutcome> out = Run({"perf", "final"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->failed);
  ASSERT_EQ(out->stages.size(), 3u);
  EXPECT_EQ(out->stages[1].stage, "perf");
  EXPECT_EQ(out->stages[1].status, AgentRoundStatus::kFailed);
  EXPECT_EQ(out->stages[2].stage, "final");
  EXPECT_EQ(out->stages[2].status, AgentRoundStatus::kOk);
  json summary = json::parse(ReadText(dir_.package + "/evidence/agent_review.json"));
  EXPECT_TRUE(summary["failed"].get<bool>());
  std::string md = ReadText(dir_.package + "/reports/agent_review.md");
  EXPECT_NE(md.find("A stage failed"), std::string::npos);
}

TEST_F(AgentRunTest, TheLedgerHasOneRowPerAttempt) {
  answers_ = {"nope", Answer({})};
  ASSERT_TRUE(Run({"perf", "final"}).ok());
  Result<Ledger> ledger = ReadLedger(dir_.package + "/evidence/token_ledger.csv");
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  ASSERT_EQ(ledger->rows.size(), transport_.requests().size());
  ASSERT_EQ(ledger->rows.size(), 3u);
  EXPECT_EQ(ledger->rows[0].stage, "perf");
  EXPECT_EQ(ledger->rows[0].report_file, "reports/agent_review_01.md");
  EXPECT_EQ(ledger->rows[1].report_file, "reports/agent_review_02.md");
  EXPECT_EQ(ledger->rows[2].stage, "final");
}

TEST_F(AgentRunTest, AProviderErrorStopsTheRunAndNamesIt) {
  FakeHttpTransport refusing([](const HttpRequest&) {
    return MakeHttpResponse(
        401,
        R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})");
  });
  AgentRunOptions o;
  o.config_path = dir_.config;
  o.transport = &refusing;
  o.environment = [] {
    return std::map<std::string, std::string>{{"TAOTOKEN_API_KEY", FakeKey()}};
  };
  o.sleep = [](int64_t) {};
  Result<AgentRunOutcome> out = RunAgentReview(o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->failed);
  EXPECT_EQ(refusing.requests().size(), 1u);  // 401 is never retried, and the run stops
  EXPECT_EQ(out->stages[0].status, AgentRoundStatus::kFailed);
  EXPECT_NE(out->stages[0].reason.find("authentication_error"), std::string::npos)
      << out->stages[0].reason;
  EXPECT_EQ(out->stages.back().status, AgentRoundStatus::kNotRun);
}

TEST_F(AgentRunTest, ARoundWithNothingToJudgeIsSkippedWithTheReason) {
  std::filesystem::remove(dir_.package + "/evidence/resources.json");
  Result<AgentRunOutcome> out = Run({"perf"});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(transport_.requests().empty());
  ASSERT_EQ(out->stages.size(), 1u);
  EXPECT_EQ(out->stages[0].status, AgentRoundStatus::kSkipped);
  EXPECT_NE(out->stages[0].reason.find("no evidence/resources.json"), std::string::npos);
}

TEST_F(AgentRunTest, ThePackagesOwnPromptIsTheSystemPrompt) {
  testing::WriteText(dir_.package + "/config/prompts/perf.md", "custom perf prompt\n");
  ASSERT_TRUE(Run({"perf"}).ok());
  ASSERT_EQ(transport_.requests().size(), 1u);
  EXPECT_EQ(json::parse(transport_.requests()[0].body)["system"][0]["text"], "custom perf prompt\n");
  std::string saved = ReadText(dir_.package + "/reports/agent_requests/01-perf.json");
  EXPECT_NE(saved.find("\"prompt\": \"config/prompts/perf.md\""), std::string::npos) << saved;
}

TEST_F(AgentRunTest, AnUnknownStageIsAnInputError) {
  Result<AgentRunOutcome> out = Run({"vibes"});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("--stage vibes"), std::string::npos);
}

}  // namespace
}  // namespace av
