// The attention oracle's loops. For each batch b, query row i and query head h:
//   1. visible keys: j < s_k[b] with KeyVisible (and inside the key range, for split-k);
//   2. score s_j = scale * <q, k_j>; softcap; ALiBi bias (flash-attention's attention_ref
//      order: scale, softcap, mask, bias);
//   3. softmax over the visible scores only; o = sum_j p_j v_j; sink rescales o.
// Keys that are not visible are never read, which is what makes NaN poison harmless.
#include "reference/attention.h"

#include <cmath>
#include <string>

#include "reference/attention_layout.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

// One (batch, row, head): writes dv outputs to `o` and returns the natural-log LSE.
double AttendRow(const AttentionProblem& p, const AttentionParams& params, int64_t b, int64_t i,
                 int64_t h, int64_t key_begin, int64_t key_end, double* o) {
  const int64_t s_q = p.s_q[b], s_k = p.s_k[b];
  const int64_t hk = p.KvHead(h);
  const double* q = p.q.Row(p.q_begin[b] + i, h);
  std::vector<int64_t> rows;
  std::vector<double> scores;
  for (int64_t j = std::max<int64_t>(key_begin, 0); j < std::min(key_end, s_k); ++j) {
    if (!KeyVisible(params.mask, i, j, s_q, s_k)) continue;
    const int64_t r = p.key_row[b][j];
    const double* k = p.k.Row(r, hk);
    double s = 0;
    for (int64_t c = 0; c < p.d; ++c) s += q[c] * k[c];
    s *= p.scale;
    if (params.softcap > 0) s = params.softcap * std::tanh(s / params.softcap);
    if (!p.alibi.data.empty()) s += AlibiBias(p.alibi(b, h), i, j, s_q, s_k);
    rows.push_back(r);
    scores.push_back(s);
  }
  RowSoftmax sm = SoftmaxOfRow(scores);
  for (int64_t c = 0; c < p.dv; ++c) o[c] = 0;  // a row with no visible key stays 0
  for (size_t n = 0; n < rows.size(); ++n) {
    const double* v = p.v.Row(rows[n], hk);
    for (int64_t c = 0; c < p.dv; ++c) o[c] += sm.p[n] * v[c];
  }
  return sm.lse;
}

}  // namespace

Result<AttentionOutputs> ComputeAttention(const AttentionInputs& inputs,
                                          const AttentionParams& params) {
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(inputs, params));
  F64Array o = F64Array::Zeros({p.total_q, p.h_q, p.dv});
  // lse in packed form [h_q, total_q]; batched layouts are rearranged below.
  F64Array lse = F64Array::Zeros({p.h_q, p.total_q});
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.s_q[b]; ++i) {
      const int64_t row = p.q_begin[b] + i;
      for (int64_t h = 0; h < p.h_q; ++h) {
        double* out = o.MutableRow(row, h);
        double l = AttendRow(p, params, b, i, h, 0, p.s_k[b], out);
        if (!p.sink.empty()) ApplySink(p.sink[h], l, {out, static_cast<size_t>(p.dv)});
        lse(h, row) = ReportedLse(l, params.lse_log2, params.empty_lse);
      }
    }
  }
  AttentionOutputs out;
  if (p.layout == AttentionLayout::kVarlen) {
    out.o = o.ToTensor();
    out.lse = lse.ToTensor();
    return out;
  }
  const int64_t s_q = p.batch > 0 ? p.s_q[0] : inputs.q.dim(1);
  out.o = o.Reshaped({p.batch, s_q, p.h_q, p.dv}).ToTensor();
  F64Array lse_b = F64Array::Zeros({p.batch, p.h_q, s_q});
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.h_q; ++h)
      for (int64_t i = 0; i < s_q; ++i) lse_b(b, h, i) = lse(h, b * s_q + i);
  out.lse = lse_b.ToTensor();
  return out;
}

Result<RangeOutputs> ComputeAttentionOverRanges(const AttentionInputs& inputs,
                                                const AttentionParams& params,
                                                const std::vector<KeyRange>& ranges) {
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(inputs, params));
  AV_RETURN_IF_ERROR(CheckKeyRanges(p, ranges));
  const int64_t s_q = inputs.q.dim(1);
  RangeOutputs out;
  for (const KeyRange& r : ranges) {
    F64Array o = F64Array::Zeros({s_q, p.h_q, p.dv});
    F64Array lse = F64Array::Zeros({p.h_q, s_q});
    for (int64_t i = 0; i < s_q; ++i)
      for (int64_t h = 0; h < p.h_q; ++h)
        lse(h, i) = AttendRow(p, params, r.batch, i, h, r.begin, r.end, o.MutableRow(i, h));
    out.per_range.emplace_back(o.ToTensor(), lse.ToTensor());
  }
  return out;
}

}  // namespace av
