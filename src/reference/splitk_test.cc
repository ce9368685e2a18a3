// Split-k: the combine of per-split partials equals unsplit attention for many plans
// (random cuts, empty splits, FlashMLA's scheduler), and FlashMLA's scheduler reproduces
// plans worked out by hand from its rule.
#include "reference/splitk.h"

#include <gtest/gtest.h>

#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::IntTensor;
using testing::MaxRelDiff;
using testing::RandomTensor;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SplitKPlanTest, FlashMlaNumSmParts) {
  EXPECT_EQ(FlashMlaNumSmParts(132, 1, 128, 1), 66);  // ceil(128 / 64) = 2 query tiles
  EXPECT_EQ(FlashMlaNumSmParts(132, 2, 128, 1), 33);
  EXPECT_EQ(FlashMlaNumSmParts(132, 1, 16, 1), 132);
  EXPECT_EQ(FlashMlaNumSmParts(2, 4, 128, 1), 1);  // never below 1
}

TEST(SplitKPlanTest, FlashMlaSchedulerMatchesHandWorkedPlans) {
  // s_k {100, 0, 300}: blocks {2, 1, 5} (FlashMLA counts a zero-length batch as one
  // block); total = 8 + 15 = 23.
  // 2 parts: payload 12 + 5 = 17: part 0 takes b0 (7) and b1 (6), b2 (10) does not fit;
  // part 1 takes b2 whole.
  auto two = FlashMlaSplitPlan({100, 0, 300}, 2);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->num_splits, (std::vector<int64_t>{0, 1, 2, 3}));
  // 4 parts: payload 6 + 5 = 11: part 0 b0 (rest 4, b1 needs 6); part 1 b1 (rest 5: no
  // block of b2 fits beside the 5 of overhead); part 2 b2 whole.
  auto four = FlashMlaSplitPlan({100, 0, 300}, 4);
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_EQ(four->num_splits, (std::vector<int64_t>{0, 1, 2, 3}));
  // 6 parts: payload 4 + 5 = 9: part 0 b0, part 1 b1, part 2 b2's head of 9 - 5 = 4
  // blocks [0, 256) (b2 needs 10), part 3 the rest [256, 300).
  auto six = FlashMlaSplitPlan({100, 0, 300}, 6);
  ASSERT_TRUE(six.ok()) << six.status().message();
  EXPECT_EQ(six->num_splits, (std::vector<int64_t>{0, 1, 2, 4}));
  ASSERT_EQ(six->splits.size(), 4u);
  EXPECT_EQ(six->splits[2].begin, 0);
  EXPECT_EQ(six->splits[2].end, 256);
  EXPECT_EQ(six->splits[3].begin, 256);
  EXPECT_EQ(six->splits[3].end, 300);
}

// doc/ops.md had each batch cost ceil(s_k / 64) blocks, so a zero-length batch cost 0 + 5;
// FlashMLA's get_mla_metadata_kernel counts blocks [0, max(s_k - 1, 0) / 64], one for an
// empty batch, and every cut after it moves. The example of the disagreement: s_k
// {0, 1000}, 4 SM parts: blocks {1, 16}, total 27, payload 7 + 5 = 12.
TEST(SplitKPlanTest, FlashMlaPlanCountsAZeroLengthBatchAsOneBlock) {
  auto plan = FlashMlaSplitPlan({0, 1000}, 4);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->num_splits, (std::vector<int64_t>{0, 1, 5}));
  // The old count (total 26) gave [0, 1, 4] and cuts at 128 and 576.
  const std::vector<std::pair<int64_t, int64_t>> want = {
      {0, 0}, {0, 64}, {64, 512}, {512, 960}, {960, 1000}};
  ASSERT_EQ(plan->splits.size(), want.size());
  for (size_t s = 0; s < want.size(); ++s) {
    EXPECT_EQ(plan->splits[s].begin, want[s].first) << "split " << s;
    EXPECT_EQ(plan->splits[s].end, want[s].second) << "split " << s;
  }
}

TEST(SplitKPlanTest, ExplicitPlansMustTileEachBatch) {
  EXPECT_TRUE(MakeSplitPlan({{0, 0, 3}, {0, 3, 3}, {0, 3, 5}, {1, 0, 0}}, {5, 0}).ok());
  EXPECT_FALSE(MakeSplitPlan({{0, 0, 3}, {0, 4, 5}}, {5}).ok());  // gap
  EXPECT_FALSE(MakeSplitPlan({{0, 0, 3}, {0, 2, 5}}, {5}).ok());  // overlap
  EXPECT_FALSE(MakeSplitPlan({{0, 0, 4}}, {5}).ok());             // short
  EXPECT_FALSE(MakeSplitPlan({{0, 0, 5}}, {5, 2}).ok());          // batch 1 missing
}

// Random cuts (some empty) of each batch's keys.
SplitPlan RandomPlan(std::mt19937_64& rng, const std::vector<int64_t>& s_k) {
  std::vector<KeyRange> splits;
  for (int64_t b = 0; b < int64_t(s_k.size()); ++b) {
    int64_t n = std::uniform_int_distribution<int64_t>(1, 5)(rng);
    std::vector<int64_t> cuts = {0, s_k[b]};
    for (int64_t i = 1; i < n; ++i)
      cuts.push_back(std::uniform_int_distribution<int64_t>(0, s_k[b])(rng));
    std::sort(cuts.begin(), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); ++i) splits.push_back({b, cuts[i], cuts[i + 1]});
  }
  auto plan = MakeSplitPlan(std::move(splits), s_k);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return *plan;
}

TEST(SplitKCombineTest, CombineOfPartialsEqualsUnsplitAttentionForManyPlans) {
  std::mt19937_64 rng(31);
  const int64_t b = 3, s_q = 3, s_k = 50, h_q = 4, h_kv = 2, d = 8, dv = 6;
  const std::vector<int64_t> lens = {50, 17, 0};
  AttentionInputs in;
  in.q = RandomTensor(rng, {b, s_q, h_q, d});
  in.k = RandomTensor(rng, {b, s_k, h_kv, d});
  in.v = RandomTensor(rng, {b, s_k, h_kv, dv});
  in.seqlens_k = IntTensor(lens, {b});
  in.sink = RandomTensor(rng, {h_q});
  for (int trial = 0; trial < 40; ++trial) {
    AttentionParams p;
    p.mask.causal = trial % 2 == 1;
    p.mask.window_left = trial % 3 == 0 ? 7 : -1;
    p.softcap = trial % 5 == 0 ? 2.0 : 0.0;
    SplitPlan plan = trial < 30 ? RandomPlan(rng, lens) : *FlashMlaSplitPlan(lens, trial - 28);
    auto whole = ComputeAttention(in, p);
    ASSERT_TRUE(whole.ok());
    for (bool f32 : {false, true}) {
      auto parts = ComputeSplitPartials(in, p, plan, f32);
      ASSERT_TRUE(parts.ok()) << parts.status().message();
      Tensor counts = IntTensor(plan.num_splits, {b + 1});
      auto merged = CombineSplits(parts->o_accum, parts->lse_accum, counts, in.sink, p);
      ASSERT_TRUE(merged.ok()) << merged.status().message();
      // float64 partials: a few ulps; float32 partials: float32 rounding of o_s and lse_s.
      const double tol = f32 ? 2e-6 : 1e-13;
      EXPECT_LE(MaxRelDiff(merged->o, whole->o), tol) << "trial " << trial;
      EXPECT_LE(MaxRelDiff(merged->lse, whole->lse), tol) << "trial " << trial;
    }
  }
}

TEST(SplitKCombineTest, EmptySplitsContributeNothingAndAllEmptyRowsGiveZero) {
  // Two splits of one row: lse (1.5, -inf); the -inf split's o is NaN garbage and must not
  // be read. Then a row whose splits are all -inf.
  F64Array o = F64Array::Zeros({2, 1, 1, 2}), lse = F64Array::Zeros({2, 1, 1});
  o(0, 0, 0, 0) = 3;
  o(0, 0, 0, 1) = -4;
  o(1, 0, 0, 0) = o(1, 0, 0, 1) = std::numeric_limits<double>::quiet_NaN();
  lse(0, 0, 0) = 1.5;
  lse(1, 0, 0) = -kInf;
  auto out = CombineSplits(o.ToTensor(), lse.ToTensor(), IntTensor({0, 2}, {2}), Tensor(), {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(LoadF64(out->o).data, (std::vector<double>{3, -4}));
  EXPECT_EQ(LoadF64(out->lse).data[0], 1.5);
  lse(0, 0, 0) = -kInf;
  for (EmptyLse e : {EmptyLse::kNegInf, EmptyLse::kPosInf}) {
    AttentionParams p;
    p.empty_lse = e;
    out = CombineSplits(o.ToTensor(), lse.ToTensor(), IntTensor({0, 2}, {2}), Tensor(), p);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(LoadF64(out->o).data, (std::vector<double>{0, 0}));
    EXPECT_EQ(LoadF64(out->lse).data[0], e == EmptyLse::kNegInf ? -kInf : kInf);
  }
}

TEST(SplitKCombineTest, TwoSplitsByHand) {
  // lse_s = (log 1, log 3): lse = log 4; weights 1/4 and 3/4.
  F64Array o = F64Array::Zeros({2, 1, 1, 1}), lse = F64Array::Zeros({2, 1, 1});
  o.data = {8, 4};
  lse.data = {0, std::log(3.0)};
  auto out = CombineSplits(o.ToTensor(), lse.ToTensor(), IntTensor({0, 2}, {2}), Tensor(), {});
  ASSERT_TRUE(out.ok());
  EXPECT_NEAR(LoadF64(out->o).data[0], 8 * 0.25 + 4 * 0.75, 1e-15);
  EXPECT_NEAR(LoadF64(out->lse).data[0], std::log(4.0), 1e-15);
}

}  // namespace
}  // namespace av
