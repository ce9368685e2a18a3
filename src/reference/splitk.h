// Split-k (split-KV) attention as FlashMLA and flash-attention run it: each split covers a
// contiguous key range of one batch and yields a partial output o_s (normalised within the
// split; float32 in the kernels) and lse_s; a combine step merges them (doc/numerics.md):
//   m = max_s lse_s (0 if all are -inf); lse = m + log(sum_s exp(lse_s - m));
//   o = sum_s exp(lse_s - lse) * o_s;   a split with lse_s = -inf contributes 0.
// Plans are explicit ranges or FlashMLA's scheduler rule. doc/ops.md ("attention_splitk").
// The partials come from the float64 oracle or the fast float32 path (fast_attention.h).
// Pure functions, callable from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "reference/attention.h"
#include "reference/fast_attention.h"
#include "tensor/tensor.h"

namespace av {

// Splits in batch order; num_splits is FlashMLA's cumulative count [b + 1]: the splits of
// batch b are splits[num_splits[b] .. num_splits[b + 1]).
struct SplitPlan {
  std::vector<KeyRange> splits;
  std::vector<int64_t> num_splits;
};

// A plan from explicit ranges; checks that the ranges of each batch tile [0, s_k[b]) in
// order (empty ranges allowed) and that every batch has at least one split.
Result<SplitPlan> MakeSplitPlan(std::vector<KeyRange> splits, const std::vector<int64_t>& s_k);

// FlashMLA's number of SM parts: max(num_sms / h_kv / ceil(s_q * h_q / h_kv / 64), 1).
int64_t FlashMlaNumSmParts(int64_t num_sms, int64_t s_q, int64_t h_q, int64_t h_kv);

// FlashMLA's dense-decode scheduler (get_mla_metadata): every batch costs
// max(s_k - 1, 0) / 64 + 1 blocks (ceil(s_k / 64), but 1 for a zero-length batch, as the
// kernel counts it) + 5 blocks of fixed overhead; each of num_sm_parts parts takes a payload of
// ceil(total / parts) + 5 blocks, greedily in batch order, so a batch may be cut at a
// 64-key block boundary into several splits.
Result<SplitPlan> FlashMlaSplitPlan(const std::vector<int64_t>& s_k, int64_t num_sm_parts,
                                    int64_t block_n = 64, int64_t fixed_overhead_blocks = 5);

// Partials of batched-q attention (batched or paged K/V) under `plan`:
//   o_accum [total_splits, s_q, h_q, dv], lse_accum [total_splits, h_q, s_q] (natural log,
//   -inf for rows with no visible key in the split), float64 tensors holding float32
//   values when round_to_f32 (as the kernels store them). The sink is not applied here.
struct SplitPartials {
  Tensor o_accum, lse_accum;
};
Result<SplitPartials> ComputeSplitPartials(const AttentionInputs& inputs,
                                           const AttentionParams& params, const SplitPlan& plan,
                                           bool round_to_f32 = true);

// As ComputeSplitPartials, each split computed by the fast path
// (ComputeAttentionOverRangesFast: float32 accumulation, float64 with
// options.accumulate_f64; every split of every batch one job of one thread pool, so
// results are bitwise the same for any options.threads). o_accum is a float32 tensor, as
// the kernels store it; lse_accum is float32 when round_to_f32, else float64 holding the
// accumulated log-sum-exp.
Result<SplitPartials> ComputeSplitPartialsFast(const AttentionInputs& inputs,
                                               const AttentionParams& params, const SplitPlan& plan,
                                               const FastOptions& options,
                                               bool round_to_f32 = true);

// The combine. num_splits (int) [b + 1] cumulative; sink [h_q] optional (applied after
// the merge, as FlashMLA's combine does). Returns o [b, s_q, h_q, dv], lse [b, h_q, s_q];
// a row whose splits are all -inf gives o = 0 and the empty-row LSE of `params`.
// The checked shape of combine's inputs (shared by the oracle and lowprec combines).
struct CombineShape {
  int64_t total = 0, s_q = 0, h_q = 0, dv = 0;
  std::vector<int64_t> cum;   // num_splits: splits of batch b are cum[b] .. cum[b + 1]
  std::vector<double> sinks;  // [h_q], empty without a sink
};
Result<CombineShape> CheckCombineInputs(const Tensor& o_accum, const Tensor& lse_accum,
                                        const Tensor& num_splits, const Tensor& sink);

Result<AttentionOutputs> CombineSplits(const Tensor& o_accum, const Tensor& lse_accum,
                                       const Tensor& num_splits, const Tensor& sink,
                                       const AttentionParams& params);

}  // namespace av
