#include "reference/sparse_attention_lowprec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/thread_pool.h"
#include "reference/f64_array.h"
#include "reference/lowprec_row.h"
#include "reference/softmax_row.h"

namespace av {

Result<SparseAttentionOutputs> ComputeSparseAttentionLowprec(const SparseAttentionInputs& in,
                                                             const SparseAttentionParams& params,
                                                             const LowprecOptions& options) {
  const DType dt = options.dtype;
  AV_RETURN_IF_ERROR(ExpectHalfDtype(dt, "lowprec dtype"));
  AV_ASSIGN_OR_RETURN(SparseProblem p, ResolveSparseAttention(in, params));
  const int64_t s_q = p.s_q, h_q = p.h_q, d = p.d, s_kv = p.s_kv, h_kv = p.h_kv, topk = p.topk,
                dv = p.dv;
  const float scale = static_cast<float>(p.scale);
  std::vector<float> q, kv;
  for (double x : LoadF64(in.q).data) q.push_back(RoundTo(dt, RoundInputTo(dt, x) * scale));
  for (double x : LoadF64(in.kv).data) kv.push_back(RoundInputTo(dt, x));
  F64Array o = F64Array::Zeros({s_q, h_q, dv});
  F64Array lse = F64Array::Zeros({s_q, h_q});
  F64Array max_logits = F64Array::Zeros({s_q, h_q});
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  ParallelFor(s_q, options.threads, [&](int64_t i, int) {
    std::vector<float> s, acc(static_cast<size_t>(dv));
    std::vector<const float*> v_rows;
    const int64_t listed = p.listed[static_cast<size_t>(i)];
    for (int64_t h = 0; h < h_q; ++h) {
      const int64_t hk = h / (h_q / h_kv);
      const float* qr = &q[size_t((i * h_q + h) * d)];
      s.clear();
      v_rows.clear();
      for (int64_t t = 0; t < listed; ++t) {
        const int64_t j = p.indices[static_cast<size_t>((i * h_kv + hk) * topk + t)];
        if (j < 0 || j >= s_kv) continue;  // -1, negative or out of range: masked, not read
        const float* kr = &kv[size_t((j * h_kv + hk) * d)];
        float sum = 0;
        for (int64_t c = 0; c < d; ++c) sum += qr[c] * kr[c];
        s.push_back(RoundTo(dt, sum));
        v_rows.push_back(kr);  // V = the first dv channels of the same row
      }
      float m = kNegInf;
      for (float x : s) m = std::max(m, x);
      max_logits(i, h) = m;
      const float l = LowprecSoftmaxPv(dt, s, v_rows, dv, acc.data());
      if (l == kNegInf) {
        lse(i, h) = ReportedLse(-std::numeric_limits<double>::infinity(), params.lse_log2,
                                params.empty_lse);
        continue;  // o stays 0
      }
      float factor = 1.0f;
      if (!p.sink.empty()) factor = 1.0f / (1.0f + std::exp(static_cast<float>(p.sink[h]) - l));
      double* out = o.MutableRow(i, h);
      for (int64_t c = 0; c < dv; ++c) out[c] = RoundTo(dt, acc[c] * factor);
      lse(i, h) = ReportedLse(l, params.lse_log2, params.empty_lse);
    }
  });
  return SparseAttentionOutputs{o.ToTensor(), lse.ToTensor(), max_logits.ToTensor()};
}

}  // namespace av
