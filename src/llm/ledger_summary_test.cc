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
            Row("diff_review", "r3", 1000, 100), Row("diff_review", "r2", 8120, 940),  // replayed
            Row("numerics", "", 500, 50, "2026-12-02T10:00:00Z")};
  l.rows[2].error_type = "overloaded";
  l.rows[2].cost_usd.reset();
  return l;
}

TEST(LedgerSummaryTest, PerStageWithTotalsAndRequestIdsCountedOnce) {
  LedgerSummary s = SummarizeLedger(Sample(), LedgerGroupBy::kStage);
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[0].key, "connectivity");
  EXPECT_EQ(s.groups[1].key, "diff_review");
  EXPECT_EQ(s.groups[1].requests, 2);
  EXPECT_EQ(s.groups[1].failed, 1);
  EXPECT_EQ(s.groups[1].input_tokens, 9120);
  EXPECT_EQ(s.groups[1].output_tokens, 1040);
  EXPECT_EQ(s.groups[1].unpriced, 1);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_EQ(s.totals.requests, 4);
  EXPECT_EQ(s.totals.total_tokens, 30 + 9060 + 1100 + 550);
  EXPECT_EQ(s.totals.latency_ms, 6000);
  EXPECT_DOUBLE_EQ(s.totals.cost_usd, 1.5);
}

TEST(LedgerSummaryTest, SinceUntilWindow) {
  LedgerSummary s =
      SummarizeLedger(Sample(), LedgerGroupBy::kStage, *ParseRfc3339("2026-12-02"), std::nullopt);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].key, "numerics");
  EXPECT_EQ(s.outside_window, 4);
}

TEST(LedgerSummaryTest, OtherGroupings) {
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kKernel).groups.size(), 2u);
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kModel).groups.size(), 1u);
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kKey).groups[0].key, "0123456789ab");
  EXPECT_EQ(SummarizeLedger(Sample(), LedgerGroupBy::kRun).groups[0].key, "run1");
  EXPECT_FALSE(ParseLedgerGroupBy("day").ok());
  EXPECT_EQ(*ParseLedgerGroupBy("kernel"), LedgerGroupBy::kKernel);
}

TEST(LedgerSummaryTest, TokensSpentByRunCountsEachRequestOnce) {
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
  EXPECT_NE(md.find("1 rows with a repeated request_id not counted"), std::string::npos);
  std::string csv = RenderLedgerCsv(s);
  EXPECT_NE(csv.find("diff_review,2,1,9120,1040,0,0,10160,3000,0.500000\n"), std::string::npos)
      << csv;
  nlohmann::json j = nlohmann::json::parse(RenderLedgerJson(s));
  EXPECT_EQ(j["by"], "stage");
  EXPECT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["totals"]["input_tokens"], 20 + 9120 + 500);
  EXPECT_EQ(j["duplicates_not_counted"], 1);
}

TEST(LedgerSummaryTest, AnEmptyLedgerHasZeroTotals) {
  LedgerSummary s = SummarizeLedger(Ledger{}, LedgerGroupBy::kStage);
  EXPECT_TRUE(s.groups.empty());
  EXPECT_NE(RenderLedgerMarkdown(s).find("| **total** | 0 | 0 | 0 |"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(RenderLedgerJson(s))["totals"]["cost_usd"].is_null());
}

}  // namespace
}  // namespace av
