// Sparse (top-k) attention as FlashMLA's sparse prefill runs it (flash_mla_sparse_fwd):
// each query row attends only to the keys its index list names. Invalid entries — -1, any
// negative index, an index >= s_kv, or a position past topk_length — are masked; a row with
// no valid index gives o = 0. Float64 oracle, obvious loops. doc/ops.md ("sparse_attention").
// Callable from any thread.
#pragma once

#include <optional>
#include <vector>

#include "core/status.h"
#include "reference/attention.h"
#include "tensor/tensor.h"

namespace av {

// q [s_q, h_q, d]; kv [s_kv, h_kv, d] (K; V is its first head_dim_v channels, as in MLA);
// indices (int) [s_q, h_kv, topk]; optional topk_length (int) [s_q] (entries at positions
// >= topk_length[i] are ignored); optional attn_sink [h_q].
// For FlashMLA's sparse decode, pass the paged cache flattened to [blocks * page, h_kv, d]
// and its flat token indices (block * page + offset).
struct SparseAttentionInputs {
  Tensor q, kv, indices, topk_length, attn_sink;
};

struct SparseAttentionParams {
  std::optional<double> sm_scale;     // default 1 / sqrt(d)
  std::optional<int64_t> head_dim_v;  // default d (FlashMLA's MLA kernels use 512)
  bool lse_log2 = false;
  EmptyLse empty_lse = EmptyLse::kPosInf;  // FlashMLA's convention
};

// o [s_q, h_q, dv]; lse [s_q, h_q] (excludes the sink); max_logits [s_q, h_q] (the largest
// scaled score, -inf for a row with no valid index). An index listed twice counts twice,
// as in a kernel that takes the softmax over the list.
struct SparseAttentionOutputs {
  Tensor o, lse, max_logits;
};

Result<SparseAttentionOutputs> ComputeSparseAttention(const SparseAttentionInputs& inputs,
                                                      const SparseAttentionParams& params);

// The validated problem, shared by the oracle and the fast path (sparse_attention_fast.h):
// sizes, indices [s_q, h_kv, topk] flattened, the list length of each row clamped to
// [0, topk], the sink per query head (empty when absent) and the scale.
struct SparseProblem {
  int64_t s_q = 0, h_q = 0, d = 0, s_kv = 0, h_kv = 0, topk = 0, dv = 0;
  std::vector<int64_t> indices, listed;
  std::vector<double> sink;
  double scale = 0;
};
Result<SparseProblem> ResolveSparseAttention(const SparseAttentionInputs& inputs,
                                             const SparseAttentionParams& params);

}  // namespace av
