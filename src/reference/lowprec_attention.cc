#include "reference/lowprec_attention.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "reference/attention_layout.h"
#include "reference/lowprec_row.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

std::vector<float> Rounded(const F64Array& a, DType dtype, float scale = 1.0f) {
  std::vector<float> out(a.data.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const float x = RoundInputTo(dtype, a.data[i]);
    out[i] = scale == 1.0f ? x : RoundTo(dtype, x * scale);
  }
  return out;
}

// The resolved problem with q', k', v' rounded once, shared by every row.
struct Prepared {
  AttentionProblem p;
  DType dt;
  std::vector<float> q, k, v;
};

Result<Prepared> Prepare(const AttentionInputs& inputs, const AttentionParams& params, DType dt) {
  AV_RETURN_IF_ERROR(ExpectHalfDtype(dt, "lowprec dtype"));
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(inputs, params));
  Prepared x{std::move(p), dt, {}, {}, {}};
  x.q = Rounded(x.p.q, dt, static_cast<float>(x.p.scale));
  x.k = Rounded(x.p.k, dt);
  x.v = Rounded(x.p.v, dt);
  return x;
}

struct RowScratch {
  std::vector<float> s;
  std::vector<const float*> v_rows;
};

// Packed query row `row` (row i of batch b), head h, over keys [begin, end) of the batch:
// acc = sum_j R(P_j) v'_j in float32 (not rounded, no sink); returns the float32 lse
// (-inf when no key of the range is visible).
float AttendRowLowprec(const Prepared& x, const AttentionParams& params, int64_t b, int64_t i,
                       int64_t row, int64_t h, int64_t begin, int64_t end, RowScratch& sc,
                       float* acc) {
  const AttentionProblem& p = x.p;
  const DType dt = x.dt;
  const int64_t d = p.d, dv = p.dv, h_q = p.h_q, h_kv = p.h_kv, s_q = p.s_q[b], s_k = p.s_k[b];
  const int64_t hk = h / (h_q / h_kv);
  const float* qr = &x.q[(row * h_q + h) * d];
  const float cap = static_cast<float>(params.softcap);
  sc.s.clear();
  sc.v_rows.clear();
  for (int64_t j = begin; j < end; ++j) {
    if (!KeyVisible(params.mask, i, j, s_q, s_k)) continue;
    const int64_t kr = p.key_row[b][j];
    const float* kp = &x.k[(kr * h_kv + hk) * d];
    float sum = 0;
    for (int64_t c = 0; c < d; ++c) sum += qr[c] * kp[c];
    float s = RoundTo(dt, sum);
    if (cap > 0) s = RoundTo(dt, RoundTo(dt, std::tanh(RoundTo(dt, s / cap))) * cap);
    if (!p.alibi.data.empty()) s += static_cast<float>(AlibiBias(p.alibi(b, h), i, j, s_q, s_k));
    sc.s.push_back(s);
    sc.v_rows.push_back(&x.v[(kr * h_kv + hk) * dv]);
  }
  return LowprecSoftmaxPv(dt, sc.s, sc.v_rows, dv, acc);
}

}  // namespace

Result<AttentionOutputs> ComputeAttentionLowprec(const AttentionInputs& inputs,
                                                 const AttentionParams& params,
                                                 const LowprecOptions& options) {
  AV_ASSIGN_OR_RETURN(Prepared x, Prepare(inputs, params, options.dtype));
  const AttentionProblem& p = x.p;
  const DType dt = options.dtype;
  const int64_t dv = p.dv, h_q = p.h_q;
  // Which batch each packed query row belongs to.
  std::vector<int64_t> batch_of(static_cast<size_t>(p.total_q));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < p.s_q[b]; ++i) batch_of[p.q_begin[b] + i] = b;
  F64Array o = F64Array::Zeros({p.total_q, h_q, dv});
  F64Array lse = F64Array::Zeros({h_q, p.total_q});
  ParallelFor(p.total_q, options.threads, [&](int64_t row, int) {
    const int64_t b = batch_of[row], i = row - p.q_begin[b];
    RowScratch sc;
    std::vector<float> acc(static_cast<size_t>(dv));
    for (int64_t h = 0; h < h_q; ++h) {
      const float l = AttendRowLowprec(x, params, b, i, row, h, 0, p.s_k[b], sc, acc.data());
      double* out = o.MutableRow(row, h);
      if (std::isinf(l) && l < 0) {
        lse(h, row) = ReportedLse(-std::numeric_limits<double>::infinity(), params.lse_log2,
                                  params.empty_lse);
        continue;  // o stays 0
      }
      float factor = 1.0f;
      if (!p.sink.empty()) factor = 1.0f / (1.0f + std::exp(static_cast<float>(p.sink[h]) - l));
      for (int64_t c = 0; c < dv; ++c) out[c] = RoundTo(dt, acc[c] * factor);
      lse(h, row) = ReportedLse(l, params.lse_log2, params.empty_lse);
    }
  });
  AttentionOutputs result;
  if (p.layout == AttentionLayout::kVarlen) {
    result.o = o.ToTensor();
    result.lse = lse.ToTensor();
    return result;
  }
  const int64_t s_q = inputs.q.dim(1);
  result.o = o.Reshaped({p.batch, s_q, h_q, dv}).ToTensor();
  F64Array lse_b = F64Array::Zeros({p.batch, h_q, s_q});
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < h_q; ++h)
      for (int64_t i = 0; i < s_q; ++i) lse_b(b, h, i) = lse(h, b * s_q + i);
  result.lse = lse_b.ToTensor();
  return result;
}

Result<RangeOutputs> ComputeAttentionOverRangesLowprec(const AttentionInputs& inputs,
                                                       const AttentionParams& params,
                                                       const std::vector<KeyRange>& ranges,
                                                       const LowprecOptions& options) {
  AV_ASSIGN_OR_RETURN(Prepared x, Prepare(inputs, params, options.dtype));
  const AttentionProblem& p = x.p;
  AV_RETURN_IF_ERROR(CheckKeyRanges(p, ranges));
  const int64_t s_q = inputs.q.dim(1), h_q = p.h_q, dv = p.dv;
  RangeOutputs out;
  for (size_t n = 0; n < ranges.size(); ++n) {
    out.per_range.emplace_back(Tensor::Zeros(DType::kF32, {s_q, h_q, dv}),
                               Tensor::Zeros(DType::kF32, {h_q, s_q}));
  }
  // One unit per (range, query row): each writes its own slabs, in a fixed order.
  ParallelFor(static_cast<int64_t>(ranges.size()) * s_q, options.threads, [&](int64_t unit, int) {
    const KeyRange& r = ranges[static_cast<size_t>(unit / s_q)];
    const int64_t i = unit % s_q;
    auto& [o, lse] = out.per_range[static_cast<size_t>(unit / s_q)];
    float* op = reinterpret_cast<float*>(o.mutable_data());
    float* lp = reinterpret_cast<float*>(lse.mutable_data());
    RowScratch sc;
    for (int64_t h = 0; h < h_q; ++h) {
      lp[h * s_q + i] = AttendRowLowprec(x, params, r.batch, i, p.q_begin[r.batch] + i, h, r.begin,
                                         r.end, sc, op + (i * h_q + h) * dv);
    }
  });
  return out;
}

Result<AttentionOutputs> ComputeMlaDecodeLowprec(const MlaDecodeInputs& inputs,
                                                 const MlaDecodeParams& params,
                                                 const LowprecOptions& options) {
  AttentionParams ap;
  AV_ASSIGN_OR_RETURN(AttentionInputs a, MlaDecodeAsAttention(inputs, params, &ap));
  return ComputeAttentionLowprec(a, ap, options);
}

}  // namespace av
