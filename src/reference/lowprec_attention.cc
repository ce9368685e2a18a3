#include "reference/lowprec_attention.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core/thread_pool.h"
#include "reference/attention_layout.h"
#include "reference/softmax_row.h"
#include "tensor/float_convert.h"

namespace av {
namespace {

// Round a float32 to the dtype and back.
float Round(DType dtype, float x) {
  return dtype == DType::kF16 ? HalfToFloat(FloatToHalf(x)) : BFloat16ToFloat(FloatToBFloat16(x));
}

std::vector<float> Rounded(const F64Array& a, DType dtype, float scale = 1.0f) {
  std::vector<float> out(a.data.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const float x = Round(dtype, static_cast<float>(a.data[i]));
    out[i] = scale == 1.0f ? x : Round(dtype, x * scale);
  }
  return out;
}

}  // namespace

Result<AttentionOutputs> ComputeAttentionLowprec(const AttentionInputs& inputs,
                                                 const AttentionParams& params,
                                                 const LowprecOptions& options) {
  const DType dt = options.dtype;
  if (dt != DType::kBF16 && dt != DType::kF16) {
    return InvalidInput("lowprec dtype must be bf16 or f16, got " + std::string(DTypeName(dt)));
  }
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(inputs, params));
  const int64_t d = p.d, dv = p.dv, h_q = p.h_q, h_kv = p.h_kv;
  const std::vector<float> q = Rounded(p.q, dt, static_cast<float>(p.scale));
  const std::vector<float> k = Rounded(p.k, dt), v = Rounded(p.v, dt);
  // Which batch each packed query row belongs to.
  std::vector<int64_t> batch_of(static_cast<size_t>(p.total_q));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < p.s_q[b]; ++i) batch_of[p.q_begin[b] + i] = b;
  F64Array o = F64Array::Zeros({p.total_q, h_q, dv});
  F64Array lse = F64Array::Zeros({h_q, p.total_q});
  const float cap = static_cast<float>(params.softcap);
  ParallelFor(p.total_q, options.threads, [&](int64_t row, int) {
    const int64_t b = batch_of[row], i = row - p.q_begin[b], s_q = p.s_q[b], s_k = p.s_k[b];
    std::vector<float> s, acc(static_cast<size_t>(dv));
    std::vector<int64_t> keys;
    for (int64_t h = 0; h < h_q; ++h) {
      const int64_t hk = h / (h_q / h_kv);
      const float* qr = &q[(row * h_q + h) * d];
      s.clear();
      keys.clear();
      for (int64_t j = 0; j < s_k; ++j) {
        if (!KeyVisible(params.mask, i, j, s_q, s_k)) continue;
        const int64_t kr = p.key_row[b][j];
        const float* kp = &k[(kr * h_kv + hk) * d];
        float sum = 0;
        for (int64_t c = 0; c < d; ++c) sum += qr[c] * kp[c];
        float x = Round(dt, sum);
        if (cap > 0) x = Round(dt, Round(dt, std::tanh(Round(dt, x / cap))) * cap);
        if (!p.alibi.data.empty()) x += static_cast<float>(AlibiBias(p.alibi(b, h), i, j, s_q, s_k));
        s.push_back(x);
        keys.push_back(kr);
      }
      double* out = o.MutableRow(row, h);
      if (s.empty()) {
        lse(h, row) = ReportedLse(-std::numeric_limits<double>::infinity(), params.lse_log2,
                                  params.empty_lse);
        continue;  // o stays 0
      }
      float m = -std::numeric_limits<float>::infinity();
      for (float x : s) m = std::max(m, x);
      if (std::isinf(m)) m = 0;  // every score -inf
      float sum = 0;
      for (float& x : s) sum += (x = std::exp(x - m));
      const float l = m + std::log(sum);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (size_t n = 0; n < s.size(); ++n) {
        const float pn = Round(dt, s[n] / sum);
        const float* vp = &v[(keys[n] * h_kv + hk) * dv];
        for (int64_t c = 0; c < dv; ++c) acc[c] += pn * vp[c];
      }
      float factor = 1.0f;
      if (!p.sink.empty()) factor = 1.0f / (1.0f + std::exp(static_cast<float>(p.sink[h]) - l));
      for (int64_t c = 0; c < dv; ++c) out[c] = Round(dt, acc[c] * factor);
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

Result<AttentionOutputs> ComputeMlaDecodeLowprec(const MlaDecodeInputs& inputs,
                                                 const MlaDecodeParams& params,
                                                 const LowprecOptions& options) {
  AttentionParams ap;
  AV_ASSIGN_OR_RETURN(AttentionInputs a, MlaDecodeAsAttention(inputs, params, &ap));
  return ComputeAttentionLowprec(a, ap, options);
}

}  // namespace av
