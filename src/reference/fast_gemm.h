// The fast GEMM path: DeepGEMM's NT GEMM D = A Bᵀ (gemm.h) for f32/f16/bf16 operands and
// for block-scaled FP8 (1x128 per-token scales on A, 128x128 block scales on B), blocked
// and multithreaded with float32 (or float64) accumulation on the same register-blocked
// kernel as attention's score block. Operands are dequantised once into float (each fp8
// value times its scale, rounded to float32), then each unit (64 columns of D, up to 512
// rows) packs its 64 rows of B channel-major and runs the kernel. On CPUs with AVX512-BF16
// the FP8 forms instead take the dot-product kernel of fast_fp8_dot.h: fp8 values are
// exact bf16s, each 128-channel block is summed from exact products in float32 and
// scaled into D once (no operand rounding; about 1.9x the FMA path's speed and 10x closer
// to the oracle, doc/ops.md). Units are fixed by the shape, so results are bitwise
// identical for every thread count. Callable from any thread.
#pragma once

#include <string>

#include "core/status.h"
#include "reference/fast_attention.h"
#include "tensor/tensor.h"

namespace av {

// a [m, k], b [n, k] -> d [m, n] float32 (float64 with accumulate_f64).
Result<Tensor> ComputeGemmNtFast(const Tensor& a, const Tensor& b, const FastOptions& options);

// As ComputeFp8GemmNt (plain form).
Result<Tensor> ComputeFp8GemmNtFast(const Tensor& a, const Tensor& sa, const Tensor& b,
                                    const Tensor& sb, const FastOptions& options);

// The grouped forms of gemm.h (contiguous with m_indices, -1 rows; masked with masked_m):
// exactly one of m_indices / masked_m defined. Rows outside every group are 0. Each
// group's rows run the plain path above on that group's B, so they are bitwise what
// ComputeFp8GemmNtFast gives for those rows and that B.
Result<Tensor> ComputeFp8GemmNtGroupedFast(const Tensor& a, const Tensor& sa, const Tensor& b,
                                           const Tensor& sb, const Tensor& m_indices,
                                           const Tensor& masked_m, const FastOptions& options);

// The kernel the FP8 forms run on with these options on this CPU: "amx-bf16-tiles",
// "emulated-bf16-tiles", "avx512bf16-dot", else the block kernels' ISA and "-fma".
std::string DescribeFp8GemmKernel(const FastOptions& options);

}  // namespace av
