#include "reference/lowprec_splitk.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "reference/f64_array.h"
#include "reference/lowprec_row.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

Status ExpectPartialDtype(DType dt) {
  if (dt == DType::kF32 || dt == DType::kBF16 || dt == DType::kF16) return Status::Ok();
  return InvalidInput("lowprec partial dtype must be f32, bf16 or f16, got " +
                      std::string(DTypeName(dt)));
}

}  // namespace

Result<SplitPartials> ComputeSplitPartialsLowprec(const AttentionInputs& inputs,
                                                  const AttentionParams& params,
                                                  const SplitPlan& plan,
                                                  const LowprecSplitOptions& options) {
  AV_RETURN_IF_ERROR(ExpectPartialDtype(options.partials));
  AV_ASSIGN_OR_RETURN(RangeOutputs parts, ComputeAttentionOverRangesLowprec(
                                              inputs, params, plan.splits, options.lowprec));
  const int64_t total = static_cast<int64_t>(plan.splits.size());
  const int64_t s_q = inputs.q.dim(1), h_q = inputs.q.dim(2);
  const int64_t dv = total > 0 ? parts.per_range[0].first.dim(2) : 0;
  const int64_t o_per = s_q * h_q * dv, lse_per = h_q * s_q;
  // Float32 slabs first, then one conversion to the partial dtype (round to nearest even).
  F64Array o = F64Array::Zeros({total, s_q, h_q, dv});
  Tensor lse = Tensor::Zeros(DType::kF32, {total, h_q, s_q});
  for (int64_t s = 0; s < total; ++s) {
    const auto& [os, ls] = parts.per_range[static_cast<size_t>(s)];
    const float* op = reinterpret_cast<const float*>(os.data());
    for (int64_t n = 0; n < o_per; ++n) o.data[size_t(s * o_per + n)] = op[n];
    std::memcpy(lse.mutable_data() + s * lse_per * sizeof(float), ls.data(),
                static_cast<size_t>(lse_per) * sizeof(float));
  }
  return SplitPartials{o.ToTensor(options.partials), std::move(lse)};
}

Result<AttentionOutputs> CombineSplitsLowprec(const Tensor& o_accum, const Tensor& lse_accum,
                                              const Tensor& num_splits, const Tensor& sink,
                                              const AttentionParams& params,
                                              const LowprecSplitOptions& options) {
  const DType dt = options.lowprec.dtype, pt = options.partials;
  AV_RETURN_IF_ERROR(ExpectHalfDtype(dt, "lowprec dtype"));
  AV_RETURN_IF_ERROR(ExpectPartialDtype(pt));
  AV_ASSIGN_OR_RETURN(CombineShape shape, CheckCombineInputs(o_accum, lse_accum, num_splits, sink));
  const int64_t s_q = shape.s_q, h_q = shape.h_q, dv = shape.dv;
  const std::vector<int64_t>& cum = shape.cum;
  const std::vector<float> sinks(shape.sinks.begin(), shape.sinks.end());
  // The partials as the combine kernel loads them: o_s in the partial dtype, lse_s float32.
  std::vector<float> o_s, lse_s;
  for (double x : LoadF64(o_accum).data) o_s.push_back(RoundInputTo(pt, x));
  for (double x : LoadF64(lse_accum).data) lse_s.push_back(static_cast<float>(x));
  const int64_t batch = static_cast<int64_t>(cum.size()) - 1;
  F64Array o = F64Array::Zeros({batch, s_q, h_q, dv});
  F64Array lse = F64Array::Zeros({batch, h_q, s_q});
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  ParallelFor(batch * s_q, options.lowprec.threads, [&](int64_t unit, int) {
    const int64_t b = unit / s_q, i = unit % s_q;
    std::vector<float> acc(static_cast<size_t>(dv));
    for (int64_t h = 0; h < h_q; ++h) {
      auto l_of = [&](int64_t s) { return lse_s[size_t((s * h_q + h) * s_q + i)]; };
      float m = kNegInf;
      for (int64_t s = cum[b]; s < cum[b + 1]; ++s) m = std::max(m, l_of(s));
      if (m == kNegInf) m = 0;  // every split empty: keeps exp() finite
      float sum = 0;
      for (int64_t s = cum[b]; s < cum[b + 1]; ++s) sum += std::exp(l_of(s) - m);
      const float l = m + std::log(sum);
      if (l != kNegInf) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t s = cum[b]; s < cum[b + 1]; ++s) {
          if (l_of(s) == kNegInf) continue;  // an empty split contributes nothing
          const float w = std::exp(l_of(s) - l);
          const float* os = &o_s[size_t(((s * s_q + i) * h_q + h) * dv)];
          for (int64_t c = 0; c < dv; ++c) acc[c] += w * os[c];
        }
        float factor = 1.0f;
        if (!sinks.empty()) factor = 1.0f / (1.0f + std::exp(sinks[size_t(h)] - l));
        double* out = o.MutableRow(b, i, h);
        for (int64_t c = 0; c < dv; ++c) out[c] = RoundTo(dt, acc[c] * factor);
      }
      lse(b, h, i) = ReportedLse(l, params.lse_log2, params.empty_lse);
    }
  });
  return AttentionOutputs{o.ToTensor(), lse.ToTensor()};
}

}  // namespace av
