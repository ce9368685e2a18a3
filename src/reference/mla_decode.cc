#include "reference/mla_decode.h"

#include <string>

#include "reference/f64_array.h"

namespace av {

Result<AttentionInputs> MlaDecodeAsAttention(const MlaDecodeInputs& inputs,
                                             const MlaDecodeParams& params,
                                             AttentionParams* attention_params) {
  if (!inputs.q.defined() || !inputs.k_cache.defined() || !inputs.block_table.defined() ||
      !inputs.cache_seqlens.defined()) {
    return InvalidInput("mla_decode needs q, k_cache, block_table and cache_seqlens");
  }
  AV_RETURN_IF_ERROR(ExpectRank(inputs.k_cache, 4, "k_cache", "[blocks, page, h_kv, d]"));
  const int64_t d = inputs.k_cache.dim(3);
  if (params.head_dim_v <= 0 || params.head_dim_v > d) {
    return InvalidInput("head_dim_v must be in 1.." + std::to_string(d) + " (V is the first " +
                        "head_dim_v channels of k_cache), got " +
                        std::to_string(params.head_dim_v));
  }
  AttentionInputs a;
  a.q = inputs.q;
  a.k_cache = inputs.k_cache;
  AV_ASSIGN_OR_RETURN(a.v_cache, inputs.k_cache.Slice(3, 0, params.head_dim_v));
  a.block_table = inputs.block_table;
  a.seqlens_k = inputs.cache_seqlens;
  attention_params->scale = params.softmax_scale;
  attention_params->mask.causal = params.causal;
  attention_params->lse_log2 = params.lse_log2;
  attention_params->empty_lse = params.empty_lse;
  return a;
}

Result<AttentionOutputs> ComputeMlaDecode(const MlaDecodeInputs& inputs,
                                          const MlaDecodeParams& params) {
  AttentionParams ap;
  AV_ASSIGN_OR_RETURN(AttentionInputs a, MlaDecodeAsAttention(inputs, params, &ap));
  return ComputeAttention(a, ap);
}

}  // namespace av
