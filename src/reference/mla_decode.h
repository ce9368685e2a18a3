// FlashMLA's dense MLA decode (flash_mla_with_kvcache) as a float64 oracle: one latent KV
// cache shared by K and V (V = the first head_dim_v channels of each cached K row), paged
// with block_table, per-batch cache_seqlens, bottom-right causal for s_q > 1.
// A thin wrapper over ComputeAttention's paged layout. doc/ops.md ("mla_decode").
// Callable from any thread.
#pragma once

#include <optional>

#include "core/status.h"
#include "reference/attention.h"
#include "tensor/tensor.h"

namespace av {

// FlashMLA's names and shapes (its tests: d = 576, dv = 512, page 64, h_kv = 1):
//   q [b, s_q, h_q, d], k_cache [blocks, page, h_kv, d], block_table (int) [b, max_blocks],
//   cache_seqlens (int) [b]. Any page size and h_kv dividing h_q are accepted.
struct MlaDecodeInputs {
  Tensor q, k_cache, block_table, cache_seqlens;
};

struct MlaDecodeParams {
  int64_t head_dim_v = 512;
  std::optional<double> softmax_scale;  // default 1 / sqrt(d)
  bool causal = false;
  bool lse_log2 = false;
  // FlashMLA reports +inf as the LSE of a row with no key (cache_seqlens = 0).
  EmptyLse empty_lse = EmptyLse::kPosInf;
};

// The equivalent paged attention problem (v_cache is a view of k_cache's first
// head_dim_v channels); shared with the split-k oracle.
Result<AttentionInputs> MlaDecodeAsAttention(const MlaDecodeInputs& inputs,
                                             const MlaDecodeParams& params,
                                             AttentionParams* attention_params);

// o [b, s_q, h_q, head_dim_v] and lse [b, h_q, s_q], float64.
Result<AttentionOutputs> ComputeMlaDecode(const MlaDecodeInputs& inputs,
                                          const MlaDecodeParams& params);

}  // namespace av
