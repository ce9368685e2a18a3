// The low-precision reference of split-k attention: partials and their combine as a GPU
// kernel writes them, so a split-k kernel is measured against what its own rounding
// points allow. Per split, lowprec attention (lowprec_attention.h) restricted to the
// split's keys, stopped before the output rounding; then
//   o_s = Rp(sum_j P_j v'_j)   Rp = round to the partial dtype: f32 (FlashMLA's o_accum is
//                              float32, the default; no rounding), bf16 or f16
//   lse_s                       float32 (FlashMLA's lse_accum)
// and the combine in float32 with max subtraction (FACTS §3, FlashMLA's combine kernel):
//   m = max_s lse_s (0 if all -inf); sum = sum_s exp(lse_s - m); lse = m + log(sum);
//   o = R(f * sum_s exp(lse_s - lse) o_s)      f = sink factor, R = round to the dtype.
// With one split covering every key this is bitwise lowprec attention. Row-parallel with
// fixed sums: bitwise the same for any thread count. Callable from any thread.
// doc/ops.md ("lowprec").
#pragma once

#include "core/status.h"
#include "reference/attention.h"
#include "reference/lowprec_attention.h"
#include "reference/splitk.h"
#include "tensor/tensor.h"

namespace av {

struct LowprecSplitOptions {
  LowprecOptions lowprec;        // compute dtype (bf16/f16) and threads
  DType partials = DType::kF32;  // o_accum dtype: f32, bf16 or f16
};

// o_accum [total_splits, s_q, h_q, dv] of the partial dtype; lse_accum f32
// [total_splits, h_q, s_q] (natural log, -inf for a row with no visible key in the split).
Result<SplitPartials> ComputeSplitPartialsLowprec(const AttentionInputs& inputs,
                                                  const AttentionParams& params,
                                                  const SplitPlan& plan,
                                                  const LowprecSplitOptions& options);

// The float32 combine above on given partials (any floating dtype: o_accum is first
// rounded to the partial dtype, lse_accum to float32, as a kernel would load them).
// Shapes as CombineSplits; o [b, s_q, h_q, dv] and lse [b, h_q, s_q] are float64 tensors
// holding the dtype / float32 values.
Result<AttentionOutputs> CombineSplitsLowprec(const Tensor& o_accum, const Tensor& lse_accum,
                                              const Tensor& num_splits, const Tensor& sink,
                                              const AttentionParams& params,
                                              const LowprecSplitOptions& options);

}  // namespace av
