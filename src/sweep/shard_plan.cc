#include "sweep/shard_plan.h"

#include <algorithm>
#include <numeric>

#include "sweep/op_schema.h"

namespace av {
namespace {

// Visible (query, key) pairs of one sequence under a bottom-right causal mask: row i sees
// keys j <= i + s_k - s_q.
double CausalPairs(double s_q, double s_k) {
  if (s_q <= s_k) return s_q * s_k - s_q * (s_q - 1) / 2;
  return s_k * (s_k + 1) / 2;
}

double AttentionFlops(const CaseParams& p) {
  const double d = static_cast<double>(p.Int("d"));
  const double dv = p.Int("dv") > 0 ? static_cast<double>(p.Int("dv")) : d;
  const double s_q = static_cast<double>(p.Int("s_q")), s_k = static_cast<double>(p.Int("s_k"));
  const double pairs = p.Bool("causal") ? CausalPairs(s_q, s_k) : s_q * s_k;
  return static_cast<double>(p.Int("b")) * static_cast<double>(p.Int("h_q")) * pairs * 2 * (d + dv);
}

}  // namespace

double EstimateCaseFlops(const CaseSpec& spec) {
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return kCaseFloorFlops;
  const CaseParams p(*op, spec.params);
  double flops = 0;
  if (spec.op == "attention" || spec.op == "mla_decode") {
    flops = AttentionFlops(p);
  } else if (spec.op == "sparse_attention") {
    const double d = static_cast<double>(p.Int("d"));
    const double dv = p.Int("dv") > 0 ? static_cast<double>(p.Int("dv")) : d;
    flops = static_cast<double>(p.Int("s_q")) * static_cast<double>(p.Int("h_q")) *
            static_cast<double>(p.Int("topk")) * 2 * (d + dv);
  } else if (spec.op == "gemm" || spec.op == "fp8_gemm") {
    flops = 2.0 * static_cast<double>(p.Int("m")) * static_cast<double>(p.Int("n")) *
            static_cast<double>(p.Int("k"));
  }
  return std::max(flops, kCaseFloorFlops);
}

ShardPlan PlanShards(const std::vector<CaseSpec>& all, int shard_count) {
  ShardPlan plan;
  plan.shard_count = std::max(shard_count, 1);
  plan.flops.assign(static_cast<size_t>(plan.shard_count), 0);
  plan.cases.assign(static_cast<size_t>(plan.shard_count), 0);
  int64_t groups = 0;
  for (const CaseSpec& c : all) groups = std::max(groups, c.group_index + 1);
  std::vector<double> cost(static_cast<size_t>(groups), 0);
  std::vector<int64_t> members(static_cast<size_t>(groups), 0);
  for (const CaseSpec& c : all) {
    cost[static_cast<size_t>(c.group_index)] += EstimateCaseFlops(c);
    ++members[static_cast<size_t>(c.group_index)];
  }
  std::vector<int64_t> order(static_cast<size_t>(groups));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return cost[static_cast<size_t>(a)] > cost[static_cast<size_t>(b)];
  });
  plan.shard_of_group.assign(static_cast<size_t>(groups), 0);
  for (int64_t g : order) {
    const size_t s = static_cast<size_t>(std::min_element(plan.flops.begin(), plan.flops.end()) -
                                         plan.flops.begin());
    plan.shard_of_group[static_cast<size_t>(g)] = static_cast<int>(s);
    plan.flops[s] += cost[static_cast<size_t>(g)];
    plan.cases[s] += members[static_cast<size_t>(g)];
  }
  return plan;
}

}  // namespace av
