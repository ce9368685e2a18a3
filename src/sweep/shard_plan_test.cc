#include "sweep/shard_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>

namespace av {
namespace {

CaseSpec Case(const std::string& op, ParamMap params, int64_t group) {
  CaseSpec c;
  c.id = op + std::to_string(group);
  c.op = op;
  c.params = std::move(params);
  c.group_index = group;
  return c;
}

TEST(ShardPlanTest, FlopsFollowTheReferencesWork) {
  // mla_decode: b * h_q * s_q * s_k visible pairs, 2 (d + dv) each.
  CaseSpec mla = Case("mla_decode", {{"b", 2}, {"h_q", 128}, {"s_q", 1}, {"s_k", 4096}}, 0);
  EXPECT_DOUBLE_EQ(EstimateCaseFlops(mla), 2.0 * 128 * 1 * 4096 * 2 * (576 + 512));
  // Causal with s_q = s_k sees s(s+1)/2 pairs.
  CaseSpec causal = Case("attention",
                         {{"b", 1}, {"h_q", 2}, {"s_q", 100}, {"s_k", 100}, {"d", 64}, {"causal", true}}, 0);
  EXPECT_DOUBLE_EQ(EstimateCaseFlops(causal), 2.0 * 5050 * 2 * 128);
  CaseSpec gemm = Case("fp8_gemm", {{"m", 4096}, {"n", 7168}, {"k", 2048}}, 0);
  EXPECT_DOUBLE_EQ(EstimateCaseFlops(gemm), 2.0 * 4096 * 7168 * 2048);
  // A tiny case still costs its file I/O and comparison.
  CaseSpec tiny = Case("gemm", {{"m", 1}, {"n", 1}, {"k", 1}}, 0);
  EXPECT_DOUBLE_EQ(EstimateCaseFlops(tiny), kCaseFloorFlops);
}

TEST(ShardPlanTest, EveryGroupGoesToOneShardWithItsVariants) {
  std::vector<CaseSpec> all;
  for (int g = 0; g < 40; ++g) {
    all.push_back(Case("gemm", {{"m", 64 * (g + 1)}, {"n", 256}, {"k", 512}}, g));
    CaseSpec variant = all.back();
    variant.kind = VariantKind::kRerun;
    all.push_back(variant);
  }
  ShardPlan plan = PlanShards(all, 3);
  ASSERT_EQ(plan.shard_of_group.size(), 40u);
  for (int s : plan.shard_of_group) {
    EXPECT_GE(s, 0);
    EXPECT_LT(s, 3);
  }
  EXPECT_EQ(std::accumulate(plan.cases.begin(), plan.cases.end(), int64_t{0}), 80);
  // The same expansion and N give the same plan (each shard computes it on its own).
  EXPECT_EQ(PlanShards(all, 3).shard_of_group, plan.shard_of_group);
}

TEST(ShardPlanTest, CostNotCountIsBalanced) {
  // One big group and many small ones: round-robin would put the big one beside a third of
  // the small ones; the plan gives it a shard of its own. (Each small group has its own n,
  // so each is an input family of its own: one family's groups would stay together.)
  std::vector<CaseSpec> all;
  all.push_back(Case("gemm", {{"m", 2048}, {"n", 2048}, {"k", 2048}}, 0));
  for (int g = 1; g <= 30; ++g)
    all.push_back(Case("gemm", {{"m", 256}, {"n", 256 + g}, {"k", 256}}, g));
  ShardPlan plan = PlanShards(all, 3);
  const int big = plan.shard_of_group[0];
  EXPECT_EQ(plan.cases[static_cast<size_t>(big)], 1);
  // The two other shards split the small groups evenly.
  std::vector<int64_t> small;
  for (int s = 0; s < 3; ++s)
    if (s != big) small.push_back(plan.cases[static_cast<size_t>(s)]);
  EXPECT_EQ(small[0], 15);
  EXPECT_EQ(small[1], 15);
  // No shard carries more than the largest group beyond the mean (LPT's bound).
  const double total = std::accumulate(plan.flops.begin(), plan.flops.end(), 0.0);
  const double largest = EstimateCaseFlops(all[0]);
  for (double f : plan.flops) EXPECT_LE(f, total / 3 + largest);
}

TEST(ShardPlanTest, MoreShardsThanGroupsLeavesSomeEmpty) {
  std::vector<CaseSpec> all = {Case("gemm", {{"m", 8}, {"n", 8}, {"k", 8}}, 0),
                               Case("gemm", {{"m", 8}, {"n", 8}, {"k", 8}}, 1)};
  ShardPlan plan = PlanShards(all, 4);
  EXPECT_EQ(plan.shard_of_group, (std::vector<int>{0, 1}));
  EXPECT_EQ(plan.cases, (std::vector<int64_t>{1, 1, 0, 0}));
}

}  // namespace
}  // namespace av
