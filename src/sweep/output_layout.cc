#include "sweep/output_layout.h"

#include "sweep/invariance.h"
#include "sweep/op_schema.h"

namespace av {
namespace {

std::vector<int64_t> Lengths(const std::optional<std::vector<int64_t>>& lengths) {
  return lengths.value_or(std::vector<int64_t>{});
}

}  // namespace

Result<LocaliseLayout> OutputLayout(const CaseSpec& spec, const std::string& output,
                                    const Shape& shape, const CaseNotes& notes) {
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return InvalidInput("unknown op " + spec.op);
  CaseParams p(*op, spec.params);
  LocaliseLayout l;
  l.tile_rows = spec.tile.rows;
  l.tile_keys = spec.tile.keys;
  l.tile_m = spec.tile.m;
  l.tile_n = spec.tile.n;
  using R = AxisRole;
  const bool o = output == "o";
  if (spec.op == "gemm" || spec.op == "fp8_gemm") {
    l.axes = {R::kM, R::kN};
  } else if (spec.op == "sparse_attention") {
    l.axes = o ? std::vector<R>{R::kRow, R::kHead, R::kChannel} : std::vector<R>{R::kRow, R::kHead};
    l.h_q = p.Int("h_q");
    l.h_kv = p.Int("h_kv");
  } else {
    const bool varlen = spec.op == "attention" && p.String("layout") == "varlen";
    const int64_t b = p.Int("b"), s_q = p.Int("s_q"), s_k = p.Int("s_k");
    if (varlen) {
      l.axes = o ? std::vector<R>{R::kToken, R::kHead, R::kChannel}
                 : std::vector<R>{R::kHead, R::kToken};
      l.q_lens = Lengths(notes.query_lengths);
    } else {
      l.axes = o ? std::vector<R>{R::kBatch, R::kRow, R::kHead, R::kChannel}
                 : std::vector<R>{R::kBatch, R::kHead, R::kRow};
      l.q_lens.assign(static_cast<size_t>(b), s_q);
    }
    l.k_lens = Lengths(notes.key_lengths);
    if (l.k_lens.empty()) l.k_lens.assign(static_cast<size_t>(b), s_k);
    if (spec.kind == VariantKind::kBatchPermutation && static_cast<int64_t>(l.k_lens.size()) == b) {
      std::vector<int64_t> perm = VariantPermutation(spec, "batch_permutation", b);
      std::vector<int64_t> base(l.k_lens.size());
      for (size_t i = 0; i < perm.size(); ++i) base[static_cast<size_t>(perm[i])] = l.k_lens[i];
      l.k_lens = base;
    }
    l.causal = p.Bool("causal");
    if (spec.op == "attention") {
      l.window_left = p.Int("window_left");
      l.window_right = p.Int("window_right");
      l.h_kv = p.Int("h_kv") == 0 ? p.Int("h_q") : p.Int("h_kv");
    } else {
      l.h_kv = p.Int("h_kv");
    }
    l.h_q = p.Int("h_q");
  }
  if (l.axes.size() != shape.size()) {
    return Internal(spec.id + ": output " + output + " has " + std::to_string(shape.size()) +
                    " axes, its layout " + std::to_string(l.axes.size()));
  }
  return l;
}

}  // namespace av
