#include "agent/agent_run.h"

#include <gtest/gtest.h>

#include <deque>

#include "agent/agent_compare.h"
#include "agent/agent_report.h"
#include "agent/agent_test_util.h"
#include "core/sha256.h"
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

// Issue 37: a finding whose command the policy removed printed an empty "Verify: ``".
TEST_F(AgentRunTest, AFindingWhoseCommandWasRemovedSaysWhyInsteadOfAnEmptyVerify) {
  answers_ = {Answer({{{"file", "src/deep_gemm/tile.cuh"},
                       {"line", 11},
                       {"item", 4},
                       {"severity", "high"},
                       {"claim", "the row guard is gone"},
                       {"evidence", "diff"},
                       {"command", "rm -rf build && attnverify numerics"}}})};
  Result<AgentRunOutcome> out = Run({"diff_review"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->findings.size(), 1u);
  ASSERT_EQ(out->findings[0].checked.drop, DropReason::kKept) << out->findings[0].checked.why;
  for (const std::string& rel : {std::string("reports/agent_review.md"),
                                 std::string("reports/agent_review_01.md")}) {
    std::string md = ReadText(dir_.package + "/" + rel);
    EXPECT_EQ(md.find("Verify: ``"), std::string::npos) << rel << "\n" << md;
    EXPECT_NE(md.find("No verify command: the policy removed the suggested `rm -rf build && "
                      "attnverify numerics` (deny: "),
              std::string::npos)
        << rel << "\n" << md;
  }
}

// Issue 37: the test-log round's classification was free text; now a field that counts.
TEST_F(AgentRunTest, TestLogFailureClassesAreCountedInTheSummary) {
  auto finding = [](const std::string& cls) {
    json f = {{"item", 1},
              {"severity", "medium"},
              {"claim", "the causal case fails"},
              {"evidence", "evidence/numerics.json#attn.causal.s_q=5.s_k=33.bf16.s0"}};
    if (!cls.empty()) f["failure_class"] = cls;
    return f;
  };
  answers_ = {Answer({finding("numerical"), finding("shape"), finding("numerical"), finding("")})};
  Result<AgentRunOutcome> out = Run({"test_log"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::map<std::string, int> want = {{"numerical", 2}, {"shape", 1}, {"unclassified", 1}};
  EXPECT_EQ(FailureClassCounts(*out), want);
  json summary = json::parse(ReadText(dir_.package + "/evidence/agent_review.json"));
  EXPECT_EQ(summary["failure_classes"], json(want));
  EXPECT_EQ(summary["findings"][1]["failure_class"], "shape");
  EXPECT_FALSE(summary["findings"][3].contains("failure_class"));
  std::string md = ReadText(dir_.package + "/reports/agent_review.md");
  EXPECT_NE(md.find("| numerical | 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| unclassified | 1 |"), std::string::npos) << md;
}

TEST_F(AgentRunTest, AnUnknownFailureClassIsAMalformedAnswer) {
  answers_ = {Answer({{{"item", 1},
                       {"severity", "low"},
                       {"claim", "c"},
                       {"evidence", "evidence/numerics.json#attn.causal.s_q=5.s_k=33.bf16.s0"},
                       {"failure_class", "numerics"}}}),
              Answer({})};
  Result<AgentRunOutcome> out = Run({"test_log"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(transport_.requests().size(), 2u);
  EXPECT_EQ(out->stages[0].status, AgentRoundStatus::kRetried);
  EXPECT_NE(out->stages[0].reason.find("$.findings[0].failure_class: not one of"),
            std::string::npos)
      << out->stages[0].reason;
}

// Issue 37: compare's "confirmed" read whatever acceptance.json was on disk.
TEST_F(AgentRunTest, CompareConfirmsOnlyFromAnAcceptanceJsonOfTheEvidenceNow) {
  const std::string numerics = dir_.package + "/evidence/numerics.json";
  auto write_acceptance = [&](const std::string& sha) {
    json acc = {{"schema", "attnverify.acceptance/1"},
                {"evidence",
                 {{{"path", "evidence/numerics.json"},
                   {"sha256", sha},
                   {"used", true},
                   {"run_id", "20261201T093000Z-3f9a1c"}},
                  {{"path", "evidence/run.json"}, {"sha256", std::string(64, '0')}, {"used", true}}}},
                {"items", {{{"number", 4}, {"status", "FAIL"}}}}};
    testing::WriteText(dir_.package + "/reports/acceptance.json", acc.dump(2));
  };
  const json finding = {{"file", "src/deep_gemm/tile.cuh"}, {"line", 11}, {"item", 4},
                        {"severity", "high"}, {"claim", "the row guard is gone"},
                        {"evidence", "diff"}};
  auto compare = [&]() {
    for (int i = 0; i < 4; ++i) answers_.push_back(Answer({finding}));
    AgentCompareOptions o;
    o.config_path = dir_.config;
    o.stages = {"diff_review"};
    o.models = {"default", "review"};
    o.transport = &transport_;
    o.environment = [] {
      return std::map<std::string, std::string>{{"TAOTOKEN_API_KEY", FakeKey()}};
    };
    o.sleep = [](int64_t) {};
    Result<AgentCompareOutcome> out = RunAgentCompare(o);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? *out : AgentCompareOutcome{};
  };
  // Written from the evidence as it is now (run.json, which agent runs rewrite, aside).
  write_acceptance(Sha256Hex(ReadText(numerics)));
  AgentCompareOutcome current = compare();
  EXPECT_TRUE(current.acceptance_current) << current.acceptance;
  std::string md = ReadText(dir_.package + "/reports/agent_compare.md");
  EXPECT_NE(md.find("yes: item 4 is FAIL"), std::string::npos) << md;
  EXPECT_NE(md.find("is current"), std::string::npos) << md;
  // The sweep ran again since: the report's FAIL is no one's evidence now.
  testing::WriteText(numerics, ReadText(numerics) + "\n");
  AgentCompareOutcome stale = compare();
  EXPECT_FALSE(stale.acceptance_current);
  EXPECT_NE(stale.acceptance.find("is stale: evidence/numerics.json changed since"),
            std::string::npos)
      << stale.acceptance;
  md = ReadText(dir_.package + "/reports/agent_compare.md");
  EXPECT_EQ(md.find("yes: item 4 is FAIL"), std::string::npos) << md;
  EXPECT_NE(md.find("is stale"), std::string::npos) << md;
  // A hand-written one without digests confirms nothing either.
  testing::WriteText(dir_.package + "/reports/acceptance.json",
                     R"({"items": [{"number": 4, "status": "FAIL"}]})");
  Result<AgentPackage> p = LoadAgentPackage(dir_.config);
  ASSERT_TRUE(p.ok());
  AcceptanceBinding b = BindAcceptance(*p);
  EXPECT_FALSE(b.current);
  EXPECT_TRUE(b.item_status.empty());
}

TEST_F(AgentRunTest, AnUnknownStageIsAnInputError) {
  Result<AgentRunOutcome> out = Run({"vibes"});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("--stage vibes"), std::string::npos);
}

}  // namespace
}  // namespace av
