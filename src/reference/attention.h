// The float64 attention oracle: softmax(scale * q k^T [+ softcap, mask, ALiBi]) v, the
// obvious per-row arithmetic (run key-outer over tiles of rows, bitwise the same: see
// attention.cc), for every layout the anchors use — batched, varlen (packed rows with
// cu_seqlens), paged KV (block_table) — with GQA/MQA, d != dv, causal (bottom-right),
// sliding window, softcap, ALiBi, attention sink and per-batch key lengths.
// Names, shapes and semantics: doc/ops.md ("attention"). Callable from any thread.
//
// Guarantee the tests rely on: only keys that are visible to a row are read, so NaN or
// garbage in padding, in pages past a sequence's length, or under the mask never reaches
// an output. A row with no visible key gives o = 0 and lse = -inf (or +inf, see
// AttentionParams::empty_lse).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/status.h"
#include "reference/attention_mask.h"
#include "tensor/tensor.h"

namespace av {

// Inputs by their flash-attention names. The layout is chosen by which tensors are set:
//   batched: q [b, s_q, h_q, d], k [b, s_k, h_kv, d], v [b, s_k, h_kv, dv]
//   varlen:  q [total_q, h_q, d], k [total_k, h_kv, d], v [total_k, h_kv, dv],
//            cu_seqlens_q, cu_seqlens_k (int, [b + 1], non-decreasing from 0)
//   paged:   q [b, s_q, h_q, d], k_cache [blocks, page, h_kv, d],
//            v_cache [blocks, page, h_kv, dv], block_table (int, [b, max_blocks]),
//            seqlens_k required
// Any floating dtype and any strides. Optional in every layout:
//   seqlens_k [b] (int): keys used per batch (<= the layout's length; FA's seqused_k /
//            cache_seqlens); positions align to this length.
//   alibi_slopes [h_q] or [b, h_q]; sink [h_q] (FlashMLA's attn_sink, a logit).
struct AttentionInputs {
  Tensor q, k, v;
  Tensor k_cache, v_cache, block_table;
  Tensor cu_seqlens_q, cu_seqlens_k;
  Tensor seqlens_k;
  Tensor alibi_slopes;
  Tensor sink;
};

enum class EmptyLse { kNegInf, kPosInf };

struct AttentionParams {
  std::optional<double> scale;  // default 1 / sqrt(d)
  MaskSpec mask;
  double softcap = 0;     // > 0: s = softcap * tanh(s / softcap), applied before mask and bias
  bool lse_log2 = false;  // report lse / ln 2 (FlashMLA's in-kernel unit)
  EmptyLse empty_lse = EmptyLse::kNegInf;
};

// o: batched/paged [b, s_q, h_q, dv], varlen [total_q, h_q, dv].
// lse: batched/paged [b, h_q, s_q], varlen [h_q, total_q] (flash-attention 2's layout).
// Both float64; lse excludes the sink (the sink only rescales o).
struct AttentionOutputs {
  Tensor o;
  Tensor lse;
};

Result<AttentionOutputs> ComputeAttention(const AttentionInputs& inputs,
                                          const AttentionParams& params);

// A half-open key range [begin, end) of batch `batch`; the split-k oracle restricts
// attention to it (on top of every mask). See reference/splitk.h.
struct KeyRange {
  int64_t batch = 0;
  int64_t begin = 0;
  int64_t end = 0;
};

// Attention restricted to one key range per call: for each range, o [s_q, h_q, dv] and
// lse [h_q, s_q] of that batch (natural log, -inf for rows with no visible key in the
// range, never the sink), as if the other keys did not exist. Batched q only (paged or
// batched K/V). The building block of split-k partials.
struct RangeOutputs {
  std::vector<std::pair<Tensor, Tensor>> per_range;  // (o, lse), float64
};
Result<RangeOutputs> ComputeAttentionOverRanges(const AttentionInputs& inputs,
                                                const AttentionParams& params,
                                                const std::vector<KeyRange>& ranges);

}  // namespace av
