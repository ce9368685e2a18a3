#include "reference/sparse_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference/f64_array.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

}  // namespace

Result<SparseProblem> ResolveSparseAttention(const SparseAttentionInputs& in,
                                             const SparseAttentionParams& params) {
  if (!in.q.defined() || !in.kv.defined() || !in.indices.defined()) {
    return InvalidInput("sparse_attention needs q, kv and indices");
  }
  AV_RETURN_IF_ERROR(ExpectRank(in.q, 3, "q", "[s_q, h_q, d]"));
  AV_RETURN_IF_ERROR(ExpectRank(in.kv, 3, "kv", "[s_kv, h_kv, d]"));
  AV_RETURN_IF_ERROR(ExpectRank(in.indices, 3, "indices", "[s_q, h_kv, topk]"));
  AV_RETURN_IF_ERROR(ExpectFloating(in.q, "q"));
  AV_RETURN_IF_ERROR(ExpectFloating(in.kv, "kv"));
  const int64_t s_q = in.q.dim(0), h_q = in.q.dim(1), d = in.q.dim(2);
  const int64_t s_kv = in.kv.dim(0), h_kv = in.kv.dim(1), topk = in.indices.dim(2);
  AV_RETURN_IF_ERROR(ExpectDim(in.kv, 2, d, "kv", "d"));
  AV_RETURN_IF_ERROR(ExpectDim(in.indices, 0, s_q, "indices", "s_q"));
  AV_RETURN_IF_ERROR(ExpectDim(in.indices, 1, h_kv, "indices", "h_kv"));
  if (h_kv <= 0 || h_q % h_kv != 0) {
    return InvalidInput("h_q (" + Str(h_q) + ") must be a multiple of h_kv (" + Str(h_kv) + ")");
  }
  const int64_t dv = params.head_dim_v.value_or(d);
  if (dv <= 0 || dv > d) return InvalidInput("head_dim_v must be in 1.." + Str(d));
  if (d <= 0) return InvalidInput("head dimension d must be positive");
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> idx, LoadIndices(in.indices, "indices"));
  std::vector<int64_t> topk_len(static_cast<size_t>(s_q), topk);
  if (in.topk_length.defined()) {
    AV_RETURN_IF_ERROR(ExpectRank(in.topk_length, 1, "topk_length", "[s_q]"));
    AV_RETURN_IF_ERROR(ExpectDim(in.topk_length, 0, s_q, "topk_length", "s_q"));
    AV_ASSIGN_OR_RETURN(topk_len, LoadIndices(in.topk_length, "topk_length"));
  }
  std::vector<double> sink;
  if (in.attn_sink.defined()) {
    if (in.attn_sink.ndim() != 1 || in.attn_sink.dim(0) != h_q) {
      return InvalidInput("attn_sink: expected [h_q] = [" + Str(h_q) + "], got " +
                          ShapeToString(in.attn_sink.shape()));
    }
    sink = LoadF64(in.attn_sink).data;
  }
  const double scale = params.sm_scale.value_or(1.0 / std::sqrt(static_cast<double>(d)));
  SparseProblem p{
      s_q,  h_q, d, s_kv, h_kv, topk, dv, std::move(idx), std::move(topk_len), std::move(sink),
      scale};
  for (int64_t& n : p.listed) n = std::clamp<int64_t>(n, 0, topk);
  return p;
}

Result<SparseAttentionOutputs> ComputeSparseAttention(const SparseAttentionInputs& in,
                                                      const SparseAttentionParams& params) {
  AV_ASSIGN_OR_RETURN(SparseProblem p, ResolveSparseAttention(in, params));
  const int64_t s_q = p.s_q, h_q = p.h_q, d = p.d, s_kv = p.s_kv, h_kv = p.h_kv, topk = p.topk,
                dv = p.dv;
  const std::vector<int64_t>& idx = p.indices;
  const std::vector<double>& sink = p.sink;
  const double scale = p.scale;
  const F64Array q = LoadF64(in.q), kv = LoadF64(in.kv);
  F64Array o = F64Array::Zeros({s_q, h_q, dv});
  F64Array lse = F64Array::Zeros({s_q, h_q});
  F64Array max_logits = F64Array::Zeros({s_q, h_q});
  for (int64_t i = 0; i < s_q; ++i) {
    for (int64_t h = 0; h < h_q; ++h) {
      const int64_t hk = h / (h_q / h_kv);
      std::vector<int64_t> keys;
      std::vector<double> scores;
      const int64_t listed = p.listed[static_cast<size_t>(i)];
      for (int64_t t = 0; t < listed; ++t) {
        const int64_t j = idx[static_cast<size_t>((i * h_kv + hk) * topk + t)];
        if (j < 0 || j >= s_kv) continue;  // -1, negative or out of range: masked
        double s = 0;
        for (int64_t c = 0; c < d; ++c) s += q(i, h, c) * kv(j, hk, c);
        keys.push_back(j);
        scores.push_back(s * scale);
      }
      RowSoftmax sm = SoftmaxOfRow(scores);
      double* out = o.MutableRow(i, h);
      for (size_t n = 0; n < keys.size(); ++n)
        for (int64_t c = 0; c < dv; ++c) out[c] += sm.p[n] * kv(keys[n], hk, c);
      if (!sink.empty()) ApplySink(sink[static_cast<size_t>(h)], sm.lse, {out, size_t(dv)});
      lse(i, h) = ReportedLse(sm.lse, params.lse_log2, params.empty_lse);
      max_logits(i, h) = scores.empty() ? -std::numeric_limits<double>::infinity()
                                        : *std::max_element(scores.begin(), scores.end());
    }
  }
  return SparseAttentionOutputs{o.ToTensor(), lse.ToTensor(), max_logits.ToTensor()};
}

}  // namespace av
