// GEMM oracles in float64 with DeepGEMM's "NT" convention D[m, n] = sum_k A[m, k] B[n, k]
// (both operands K-major): a plain GEMM for f32/f16/bf16 (or f64) inputs, and DeepGEMM's
// block-scaled FP8 GEMM — plain, grouped contiguous and grouped masked.
// Each is the triple loop over exactly dequantised operands; the accumulation is float64,
// so the result is the exact product up to one float64 rounding per term.
// doc/ops.md ("gemm", "fp8_gemm"). Pure functions, callable from any thread.
#pragma once

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

// a [m, k], b [n, k], any floating dtypes -> d [m, n] float64.
Result<Tensor> ComputeGemmNt(const Tensor& a, const Tensor& b);

// DeepGEMM fp8_gemm_nt: a fp8 [m, k] with per-token scales sa f32 [m, ceil(k/128)];
// b fp8 [n, k] with per-block scales sb f32 [ceil(n/128), ceil(k/128)]. -> d [m, n] f64.
Result<Tensor> ComputeFp8GemmNt(const Tensor& a, const Tensor& sa, const Tensor& b,
                                const Tensor& sb);

// DeepGEMM m_grouped_fp8_gemm_nt_contiguous: a [m_sum, k], sa [m_sum, ceil(k/128)],
// b [groups, n, k], sb [groups, ceil(n/128), ceil(k/128)], m_indices (int) [m_sum]: row r
// uses group m_indices[r]; -1 marks a padding row, whose output row is 0 (DeepGEMM leaves
// it unspecified; compare only valid rows). -> d [m_sum, n] f64.
Result<Tensor> ComputeFp8GemmNtGroupedContiguous(const Tensor& a, const Tensor& sa, const Tensor& b,
                                                 const Tensor& sb, const Tensor& m_indices);

// DeepGEMM m_grouped_fp8_gemm_nt_masked: a [groups, max_m, k], sa [groups, max_m,
// ceil(k/128)], b [groups, n, k], sb [groups, ceil(n/128), ceil(k/128)], masked_m (int)
// [groups]: only rows < masked_m[g] of group g are computed; the rest are 0 (unspecified in
// DeepGEMM). -> d [groups, max_m, n] f64.
Result<Tensor> ComputeFp8GemmNtGroupedMasked(const Tensor& a, const Tensor& sa, const Tensor& b,
                                             const Tensor& sb, const Tensor& masked_m);

}  // namespace av
