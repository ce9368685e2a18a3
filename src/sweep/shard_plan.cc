#include "sweep/shard_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "core/sha256.h"
#include "sweep/case_builder.h"
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

int64_t EstimateCaseBytes(const CaseSpec& spec) {
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return 0;
  const CaseParams p(*op, spec.params);
  const double es = static_cast<double>(DTypeSize(spec.dtype));
  double bytes = 0;
  if (spec.op == "attention" || spec.op == "mla_decode") {
    const double b = static_cast<double>(p.Int("b")), s_q = static_cast<double>(p.Int("s_q"));
    const double s_k = static_cast<double>(p.Int("s_k")), h_q = static_cast<double>(p.Int("h_q"));
    const double h_kv = static_cast<double>(p.Int("h_kv") == 0 ? p.Int("h_q") : p.Int("h_kv"));
    const double d = static_cast<double>(p.Int("d"));
    const double dv = p.Int("dv") > 0 ? static_cast<double>(p.Int("dv")) : d;
    // Random lengths average s_k; MLA's cache holds K only (V is its first dv columns).
    const double kv = b * (s_k + 64) * h_kv * (spec.op == "mla_decode" ? d : d + dv);
    bytes = es * (b * s_q * h_q * d + kv) + (8 + es) * b * s_q * h_q * (dv + 1);
  } else if (spec.op == "sparse_attention") {
    const double h_q = static_cast<double>(p.Int("h_q")), s_q = static_cast<double>(p.Int("s_q"));
    const double d = static_cast<double>(p.Int("d"));
    bytes = es * (s_q * h_q * d + static_cast<double>(p.Int("s_kv") * p.Int("h_kv")) * d) +
            (8 + es) * s_q * h_q * (d + 1);
  } else if (spec.op == "gemm" || spec.op == "fp8_gemm") {
    const double m = static_cast<double>(p.Int("m")), n = static_cast<double>(p.Int("n"));
    const double k = static_cast<double>(p.Int("k"));
    const double out_size = spec.op == "fp8_gemm" ? 2 : es;
    bytes = (es + 4) * (m + n) * k + (8 + out_size + 4) * m * n;
  }
  return static_cast<int64_t>(bytes);
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
  double total = 0;
  for (const CaseSpec& c : all) {
    const double f = EstimateCaseFlops(c);
    cost[static_cast<size_t>(c.group_index)] += f;
    total += f;
    ++members[static_cast<size_t>(c.group_index)];
  }
  // Families: the groups of one input family, in expansion order (a group with no
  // key/value side is a family of its own).
  std::vector<std::vector<int64_t>> families;
  std::map<std::string, size_t> family_of;
  for (const CaseSpec& c : all) {
    if (c.kind != VariantKind::kBase) continue;
    const std::string key = InputFamily(c);
    auto [it, fresh] = family_of.try_emplace(key.empty() ? "group " + c.id : key, families.size());
    if (fresh) families.emplace_back();
    families[it->second].push_back(c.group_index);
  }
  // Pieces: a family whose cost is more than half a shard's share is cut into the fewest
  // runs of consecutive groups of at most about that, each group going to the run its
  // cost's midpoint falls in. Half a share leaves LPT room to balance; each piece
  // generates its family's caches once.
  const double cap = total / plan.shard_count / 2;
  std::vector<std::vector<int64_t>> pieces;
  for (const std::vector<int64_t>& fam : families) {
    double fam_cost = 0;
    for (int64_t g : fam) fam_cost += cost[static_cast<size_t>(g)];
    const int64_t k =
        cap > 0 ? std::max<int64_t>(1, static_cast<int64_t>(std::ceil(fam_cost / cap))) : 1;
    const size_t first = pieces.size();
    pieces.resize(first + static_cast<size_t>(k));
    double before = 0;
    for (int64_t g : fam) {
      const double c = cost[static_cast<size_t>(g)];
      const int64_t at = std::min<int64_t>(
          k - 1, static_cast<int64_t>((before + c / 2) / (fam_cost / static_cast<double>(k))));
      pieces[first + static_cast<size_t>(at)].push_back(g);
      before += c;
    }
    pieces.erase(std::remove_if(pieces.begin() + static_cast<std::ptrdiff_t>(first), pieces.end(),
                                [](const std::vector<int64_t>& p) { return p.empty(); }),
                 pieces.end());
  }
  std::vector<double> piece_cost(pieces.size(), 0);
  for (size_t p = 0; p < pieces.size(); ++p)
    for (int64_t g : pieces[p]) piece_cost[p] += cost[static_cast<size_t>(g)];
  std::vector<size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return piece_cost[a] > piece_cost[b]; });
  plan.shard_of_group.assign(static_cast<size_t>(groups), 0);
  for (size_t p : order) {
    const size_t s = static_cast<size_t>(std::min_element(plan.flops.begin(), plan.flops.end()) -
                                         plan.flops.begin());
    for (int64_t g : pieces[p]) {
      plan.shard_of_group[static_cast<size_t>(g)] = static_cast<int>(s);
      plan.cases[s] += members[static_cast<size_t>(g)];
    }
    plan.flops[s] += piece_cost[p];
  }
  return plan;
}

std::string CaseListSha256(const std::vector<CaseSpec>& all) {
  std::string ids;
  for (const CaseSpec& c : all) ids += c.id + "\n";
  return Sha256Hex(ids);
}

std::string ShardPlanSha256(const ShardPlan& plan) {
  std::string text = std::to_string(plan.shard_count) + ":";
  for (int s : plan.shard_of_group) text += std::to_string(s) + ",";
  return Sha256Hex(text);
}

}  // namespace av
