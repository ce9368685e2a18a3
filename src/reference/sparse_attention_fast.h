// The fast sparse (top-k) attention: the semantics of sparse_attention.h, with float32
// accumulation on the fast attention's block kernels (fast_kernels.h). Per (query row, KV
// head) the row's valid indexed K rows are gathered into contiguous scratch, 64 at a time,
// and all h_q / h_kv query heads of the KV head run on them as one row tile. Units are fixed
// by the shape, so results are bitwise the same for every thread count. doc/ops.md
// ("fast path"). Callable from any thread.
#pragma once

#include "core/status.h"
#include "reference/fast_attention.h"
#include "reference/sparse_attention.h"

namespace av {

// As ComputeSparseAttention; o is float32, lse and max_logits float64 tensors holding the
// float32-accumulated values. options.accumulate_f64 is not supported (Unsupported).
Result<SparseAttentionOutputs> ComputeSparseAttentionFast(const SparseAttentionInputs& inputs,
                                                          const SparseAttentionParams& params,
                                                          const FastOptions& options);

}  // namespace av
