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
  // s_k {100, 0, 300}: blocks {2, 0, 5}; total = 7 + 15 = 22.
  // 2 parts: payload 11 + 5 = 16: part 0 takes b0 (7) and b1 (5), b2 (10) does not fit;
  // part 1 takes b2 whole.
  auto two = FlashMlaSplitPlan({100, 0, 300}, 2);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->num_splits, (std::vector<int64_t>{0, 1, 2, 3}));
  // 4 parts: payload 6 + 5 = 11: part 0 b0 (rest 4, b1 needs 5); part 1 b1 (rest 6), then
  // one block of b2: [0, 64); part 2 the rest of b2 [64, 300).
  auto four = FlashMlaSplitPlan({100, 0, 300}, 4);
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_EQ(four->num_splits, (std::vector<int64_t>{0, 1, 2, 4}));
  ASSERT_EQ(four->splits.size(), 4u);
  EXPECT_EQ(four->splits[2].begin, 0);
  EXPECT_EQ(four->splits[2].end, 64);
  EXPECT_EQ(four->splits[3].begin, 64);
  EXPECT_EQ(four->splits[3].end, 300);
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
