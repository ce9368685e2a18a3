#include "llm/ledger_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace av {
namespace {

LedgerRow Row(const std::string& stage, const std::string& request_id, int64_t in, int64_t out,
              const std::string& time = "2026-12-01T09:30:00Z") {
  LedgerRow r;
  r.timestamp = time;
  r.stage = stage;
  r.kernel = stage == "diff_review" ? "flashmla" : "";
  r.model = "m1";
  r.input_tokens = in;
  r.output_tokens = out;
  r.total_tokens = in + out;
  r.run_id = "run1";
  r.request_id = request_id;
  r.key_id = "0123456789ab";
  r.latency_ms = 1500;
  r.cost_usd = 0.5;
  return r;
}

Ledger Sample() {
  Ledger l;
  l.rows = {Row("connectivity", "r1", 20, 10), Row("diff_review", "r2", 8120, 940),
            Row("diff_review", "r3", 1000, 100),
            Row("numerics", "", 500, 50, "2026-12-02T10:00:00Z")};
  l.rows[2].error_type = "overloaded";
  l.rows[2].cost_usd.reset();
  return l;
}

TEST(LedgerSummaryTest, PerStageWithTotals) {
  LedgerSummary s = SummarizeLedger(Sample(), LedgerGroupBy::kStage);
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[0].key, "connectivity");
  EXPECT_EQ(s.groups[1].key, "diff_review");
  EXPECT_EQ(s.groups[1].requests, 2);
  EXPECT_EQ(s.groups[1].failed, 1);
  EXPECT_EQ(s.groups[1].input_tokens, 9120);
  EXPECT_EQ(s.groups[1].output_tokens, 1040);
  EXPECT_EQ(s.groups[1].unpriced, 1);
  EXPECT_EQ(s.totals.requests, 4);
  EXPECT_EQ(s.totals.total_tokens, 30 + 9060 + 1100 + 550);
  EXPECT_EQ(s.totals.latency_ms, 6000);
  EXPECT_DOUBLE_EQ(s.totals.cost_usd, 1.5);
}

// LiteLLM's Anthropic mock answers every request with the same message id: 7 requests,
// 18,186 tokens by the gateway's count, were summed as 1 request of 2,598.
TEST(LedgerSummaryTest, AGatewayThatRepeatsItsAnswerIdStillCountsEveryAttempt) {
  Ledger l;
  for (int i = 0; i < 7; ++i) {
    l.rows.push_back(Row("diff_review", "msg_013Zva2CMHLNnXjNJJKqJ2EF", 2000 + i, 500));
    l.rows.back().request_sha256 = std::string(63, 'a') + std::to_string(i);
  }
  LedgerSummary s = SummarizeLedger(l, LedgerGroupBy::kStage);
  EXPECT_EQ(s.totals.requests, 7);
  EXPECT_EQ(s.totals.input_tokens, 7 * 2000 + 21);
  EXPECT_EQ(s.totals.total_tokens, 7 * 2500 + 21);
  EXPECT_EQ(TokensSpentByRun(l, "run1"), 7 * 2500 + 21);
  std::string md = RenderLedgerMarkdown(s);
  EXPECT_NE(md.find("| **total** | 7 | 14021 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("not counted"), std::string::npos) << md;
}

// The row written before sending and the outcome row after are one attempt; an in_flight
// row alone (the process was killed in flight) is an attempt without tokens.
TEST(LedgerSummaryTest, AnInFlightRowCountsOnceWithItsOutcomeAndAloneWhenKilled) {
  LedgerRow sent = Row("diff_review", "", 0, 0);
  sent.error_type = kLedgerInFlight;
  sent.request_sha256 = std::string(64, 'b');
  LedgerRow answered = Row("diff_review", "req_9", 300, 30);
  answered.request_sha256 = sent.request_sha256;
  LedgerRow killed = sent;
  killed.request_sha256 = std::string(64, 'c');
  const std::string text = LedgerHeaderLine() + FormatLedgerLine(sent, RedactionContext()) +
                           FormatLedgerLine(killed, RedactionContext()) +
                           FormatLedgerLine(answered, RedactionContext());
  Result<Ledger> l = ParseLedger(text, "l.csv");
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->rows.size(), 2u);
  EXPECT_EQ(l->without_outcome, 1);
  EXPECT_EQ(l->rows[0].error_type, kLedgerInFlight);  // the killed one, line 3
  EXPECT_EQ(l->rows[1].request_id, "req_9");          // the answered one, line 4
  LedgerSummary s = SummarizeLedger(*l, LedgerGroupBy::kStage);
  EXPECT_EQ(s.totals.requests, 2);
  EXPECT_EQ(s.totals.failed, 1);
  EXPECT_EQ(s.totals.total_tokens, 330);
  EXPECT_EQ(s.without_outcome, 1);
  EXPECT_NE(RenderLedgerMarkdown(s).find("1 attempts without an outcome row"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(RenderLedgerJson(s))["attempts_without_outcome"], 1);
}

TEST(LedgerSummaryTest, AFormulaInAGroupKeyIsNeutralisedInTheCsv) {
  Ledger l;
  l.rows = {Row("=cmd|' /C calc'!A0", "r1", 1, 1), Row("+1", "r2", 1, 1), Row("@x", "r3", 1, 1),
            Row("-2", "r4", 1, 1)};
  std::string csv = RenderLedgerCsv(SummarizeLedger(l, LedgerGroupBy::kStage));
  EXPECT_NE(csv.find("\n'=cmd|' /C calc'!A0,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n'+1,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n'@x,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n'-2,1,"), std::string::npos) << csv;
}

TEST(LedgerSummaryTest, SinceUntilWindow) {
  LedgerSummary s =
      SummarizeLedger(Sample(), LedgerGroupBy::kStage, *ParseRfc3339("2026-12-02"), std::nullopt);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].key, "numerics");
  EXPECT_EQ(s.outside_window, 3);
}

TEST(LedgerSummaryTest, OtherGroupings) {
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kKernel).groups.size(), 2u);
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kModel).groups.size(), 1u);
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kKey).groups[0].key, "0123456789ab");
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kRun).groups[0].key, "run1");
  EXPECT_FALSE(ParseLedgerGroupBy("day").ok());
  EXPECT_EQ(*ParseLedgerGroupBy("kernel"), LedgerGroupBy::kKernel);
}

TEST(LedgerSummaryTest, TokensSpentByRunCountsEveryAttempt) {
  Ledger l = Sample();
  EXPECT_EQ(TokensSpentByRun(l, "run1"), 30 + 9060 + 1100 + 550);
  EXPECT_EQ(TokensSpentByRun(l, "other"), 0);
}

TEST(LedgerSummaryTest, Renderings) {
  LedgerSummary s = SummarizeLedger(Sample(), LedgerGroupBy::kStage);
  std::string md = RenderLedgerMarkdown(s);
  EXPECT_NE(md.find("| stage | requests | input tokens | output tokens |"), std::string::npos);
  EXPECT_NE(md.find("| diff_review | 2 (1 failed) | 9120 | 1040 | 0 | 0 | 10160 | 3.0 | "
                    "0.500000 (+1 unpriced) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| **total** | 4 (1 failed) |"), std::string::npos) << md;
  std::string csv = RenderLedgerCsv(s);
  EXPECT_NE(csv.find("diff_review,2,1,9120,1040,0,0,10160,3000,0.500000\n"), std::string::npos)
      << csv;
  nlohmann::json j = nlohmann::json::parse(RenderLedgerJson(s));
  EXPECT_EQ(j["by"], "stage");
  EXPECT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["totals"]["input_tokens"], 20 + 9120 + 500);
  EXPECT_EQ(j["attempts_without_outcome"], 0);
}

TEST(LedgerSummaryTest, AnEmptyLedgerHasZeroTotals) {
  LedgerSummary s = SummarizeLedger(Ledger{}, LedgerGroupBy::kStage);
  EXPECT_TRUE(s.groups.empty());
  EXPECT_NE(RenderLedgerMarkdown(s).find("| **total** | 0 | 0 | 0 |"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(RenderLedgerJson(s))["totals"]["cost_usd"].is_null());
}

}  // namespace
}  // namespace av
