#include "reference/lowprec_gemm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/thread_pool.h"
#include "reference/f64_array.h"
#include "reference/fp8_gemm_layout.h"
#include "reference/fp8_quant.h"
#include "reference/lowprec_row.h"

namespace av {
namespace {

// Values of a tensor as float32, each rounded to `dtype` (f32: as loaded).
std::vector<float> AsFloats(const Tensor& t, DType dtype) {
  std::vector<float> out;
  const F64Array x = LoadF64(t);
  out.reserve(x.data.size());
  for (double v : x.data) out.push_back(RoundInputTo(dtype, v));
  return out;
}

}  // namespace

Result<Tensor> ComputeGemmNtLowprec(const Tensor& a, const Tensor& b,
                                    const LowprecOptions& options) {
  const DType dt = options.dtype;
  AV_RETURN_IF_ERROR(ExpectHalfDtype(dt, "lowprec dtype"));
  AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", "[m, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(b, 2, "b", "[n, k]"));
  AV_RETURN_IF_ERROR(ExpectFloating(a, "a"));
  AV_RETURN_IF_ERROR(ExpectFloating(b, "b"));
  AV_RETURN_IF_ERROR(ExpectDim(b, 1, a.dim(1), "b", "k"));
  const int64_t m = a.dim(0), n = b.dim(0), k = a.dim(1);
  const std::vector<float> av = AsFloats(a, dt), bv = AsFloats(b, dt);
  F64Array d = F64Array::Zeros({m, n});
  ParallelFor(m, options.threads, [&](int64_t i, int) {
    for (int64_t j = 0; j < n; ++j) {
      const float* x = &av[size_t(i * k)];
      const float* y = &bv[size_t(j * k)];
      float sum = 0;
      for (int64_t c = 0; c < k; ++c) sum += x[c] * y[c];
      d(i, j) = RoundTo(dt, sum);
    }
  });
  return d.ToTensor();
}

Result<Tensor> ComputeFp8GemmNtLowprec(const Tensor& a, const Tensor& sa, const Tensor& b,
                                       const Tensor& sb, const Tensor& m_indices,
                                       const Tensor& masked_m, const LowprecOptions& options) {
  const DType dt = options.dtype;
  AV_RETURN_IF_ERROR(ExpectHalfDtype(dt, "lowprec dtype"));
  AV_ASSIGN_OR_RETURN(Fp8GemmProblem p, ResolveFp8Gemm(a, sa, b, sb, m_indices, masked_m));
  const int64_t rows = p.rows, n = p.n, k = p.k, kb_count = (k + kFp8Group - 1) / kFp8Group;
  // fp8 values and float32 scales are exact in float32.
  const std::vector<float> av = AsFloats(p.a, DType::kF32), sav = AsFloats(p.sa, DType::kF32);
  std::vector<std::vector<float>> bv, sbv;
  for (size_t g = 0; g < p.b.size(); ++g) {
    bv.push_back(AsFloats(p.b[g], DType::kF32));
    sbv.push_back(AsFloats(p.sb[g], DType::kF32));
  }
  F64Array d = F64Array::Zeros({rows, n});
  ParallelFor(rows, options.threads, [&](int64_t r, int) {
    const int64_t g = p.group_of[static_cast<size_t>(r)];
    if (g < 0) return;  // padding (m_indices = -1) or past masked_m: stays 0
    const std::vector<float>& bg = bv[size_t(g)];
    const std::vector<float>& sbg = sbv[size_t(g)];
    const float* x = &av[size_t(r * k)];
    for (int64_t j = 0; j < n; ++j) {
      const float* y = &bg[size_t(j * k)];
      float final_accum = 0;
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        float accum = 0;  // the tensor cores' accumulator, fresh for every k block
        for (int64_t c = kb * kFp8Group; c < std::min(k, (kb + 1) * kFp8Group); ++c) {
          accum += x[c] * y[c];
        }
        const float scale =
            sav[size_t(r * kb_count + kb)] * sbg[size_t((j / kFp8Group) * kb_count + kb)];
        final_accum = std::fma(scale, accum, final_accum);
      }
      d(r, j) = RoundTo(dt, final_accum);
    }
  });
  return d.Reshaped(p.out_shape).ToTensor();
}

}  // namespace av
