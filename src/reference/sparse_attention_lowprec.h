// The low-precision reference of sparse (top-k) attention: sparse_attention.h's semantics
// with lowprec attention's rounding points (lowprec_attention.h), R = round to the dtype:
//   q' = R(R(q) * scale), kv' = R(kv) (V = the first head_dim_v channels of kv')
//   S = R(sum_c q'_c k'_c) (float32, channel order) over the row's valid indices, in list
//   order (repeats kept); P = R(softmax(S)) in float32; O = R(f * sum_n P_n v'_n);
//   lse float32; max_logits = max_n S_n (the rounded scores; -inf for an empty row).
// One query row per work unit, fixed sums: bitwise the same for any thread count.
// Outputs are float64 tensors holding those values. Callable from any thread.
#pragma once

#include "core/status.h"
#include "reference/lowprec_attention.h"
#include "reference/sparse_attention.h"

namespace av {

Result<SparseAttentionOutputs> ComputeSparseAttentionLowprec(const SparseAttentionInputs& inputs,
                                                             const SparseAttentionParams& params,
                                                             const LowprecOptions& options);

}  // namespace av
