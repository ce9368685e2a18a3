// The low-precision reference of flash-attention's acceptance rule: attention as a GPU
// framework runs it in f16 or bf16 (flash-attention's attention_ref with upcast=False),
// the error yardstick a candidate kernel is measured against. Rounding to the dtype
// happens exactly at these points (R = round to nearest even in the dtype):
//   q' = R(R(q) * scale), k' = R(k), v' = R(v)          inputs, and the pre-scaled q
//   S  = R(sum_c q'_c k'_c)                               float32 accumulation, c in order
//   softcap: S = R(R(tanh(R(S / cap))) * cap)             each elementwise op rounds
//   ALiBi:   S = S - slope |pos - j| in float32 (the float32 bias promotes, no rounding)
//   P  = R(exp(S - m) / sum_j exp(S_j - m))               softmax in float32, rounded
//   O  = R(f * sum_j P_j v'_j)                            float32 accumulation, j in order;
//                                                         f = sink factor (1 without sink)
//   lse = m + log(sum_j exp(S_j - m)) in float32 (not rounded to the dtype).
// Sequential sums in a fixed order, one query row per work unit: bitwise reproducible for
// any thread count. Outputs are float64 tensors holding those values. Callable from any
// thread. doc/ops.md ("lowprec").
#pragma once

#include <vector>

#include "core/status.h"
#include "reference/attention.h"
#include "reference/mla_decode.h"
#include "tensor/tensor.h"

namespace av {

struct LowprecOptions {
  DType dtype = DType::kBF16;  // kBF16 or kF16
  int threads = 0;             // 0 = one per hardware thread
};

Result<AttentionOutputs> ComputeAttentionLowprec(const AttentionInputs& inputs,
                                                 const AttentionParams& params,
                                                 const LowprecOptions& options);

// As ComputeAttentionOverRanges (split-k partials) with the rounding above, stopping before
// the output rounding: per range o [s_q, h_q, dv] = sum_j P_j v'_j and lse [h_q, s_q], both
// float32 tensors (unrounded float32 accumulations; -inf lse and o = 0 for rows with no
// visible key in the range; no sink). lowprec_splitk.h rounds and combines them.
Result<RangeOutputs> ComputeAttentionOverRangesLowprec(const AttentionInputs& inputs,
                                                       const AttentionParams& params,
                                                       const std::vector<KeyRange>& ranges,
                                                       const LowprecOptions& options);

Result<AttentionOutputs> ComputeMlaDecodeLowprec(const MlaDecodeInputs& inputs,
                                                 const MlaDecodeParams& params,
                                                 const LowprecOptions& options);

}  // namespace av
