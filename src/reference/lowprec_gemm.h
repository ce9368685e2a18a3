// Low-precision references of the GEMMs, as the GPU libraries compute them (R = round to
// nearest even in the output dtype, bf16 or f16):
//   gemm:     d = R(sum_k R(a) R(b)), float32 accumulation in k order (a bf16/f16 GEMM
//             with a float32 accumulator; DeepGEMM's bf16 GEMM, cuBLAS's default).
//   fp8_gemm: DeepGEMM's sm90 1D2D kernel (sm90_fp8_gemm_1d2d.cuh): for each 128-wide k
//             block kb the tensor cores accumulate the raw fp8 products into a fresh
//             float32 `accum` (emulated: float32, round to nearest, k in order; each
//             e4m3/e5m2 product is exact in float32); then the CUDA cores "promote":
//             scale = sa[m, kb] * sb[n/128, kb] (one float32 product) and
//             final += scale * accum (one fused multiply-add, as nvcc contracts it);
//             d = R(final). The hardware's own accumulation inside a WGMMA (its order, and
//             the ~14 significant bits DeepSeek-V3 reports for Hopper's FP8 accumulator) is
//             not modelled: the emulation is the float32-exact version of each k block.
// Plain, grouped contiguous (m_indices; -1 rows give 0) and grouped masked (masked_m) forms.
// One output row per work unit, fixed order: bitwise the same for any thread count.
// Outputs are float64 tensors holding dtype values. Callable from any thread.
#pragma once

#include "core/status.h"
#include "reference/lowprec_attention.h"
#include "tensor/tensor.h"

namespace av {

// a [m, k], b [n, k] (any floating dtypes) -> d [m, n].
Result<Tensor> ComputeGemmNtLowprec(const Tensor& a, const Tensor& b,
                                    const LowprecOptions& options);

// The forms and shapes of gemm.h's fp8 oracles; m_indices / masked_m optional (undefined).
Result<Tensor> ComputeFp8GemmNtLowprec(const Tensor& a, const Tensor& sa, const Tensor& b,
                                       const Tensor& sb, const Tensor& m_indices,
                                       const Tensor& masked_m, const LowprecOptions& options);

}  // namespace av
