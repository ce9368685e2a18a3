// The fast GEMM path: DeepGEMM's NT GEMM D = A Bᵀ (gemm.h) for f32/f16/bf16 operands and
// for block-scaled FP8 (1x128 per-token scales on A, 128x128 block scales on B), blocked
// and multithreaded with float32 (or float64) accumulation on the same register-blocked
// kernel as attention's score block. Operands are dequantised once into float (each fp8
// value times its scale, rounded to float32), then each unit (64 columns of D, up to 512
// rows) packs its 64 rows of B channel-major and runs the kernel. Units are fixed by the
// shape, so results are bitwise identical for every thread count. Callable from any thread.
#pragma once

#include "core/status.h"
#include "reference/fast_attention.h"
#include "tensor/tensor.h"

namespace av {

// a [m, k], b [n, k] -> d [m, n] float32 (float64 with accumulate_f64).
Result<Tensor> ComputeGemmNtFast(const Tensor& a, const Tensor& b, const FastOptions& options);

// As ComputeFp8GemmNt (plain form).
Result<Tensor> ComputeFp8GemmNtFast(const Tensor& a, const Tensor& sa, const Tensor& b,
                                    const Tensor& sb, const FastOptions& options);

}  // namespace av
