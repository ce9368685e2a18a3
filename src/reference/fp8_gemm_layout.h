// Resolves the three forms of DeepGEMM's block-scaled FP8 GEMM (gemm.h: plain
// fp8_gemm_nt, grouped contiguous with m_indices, grouped masked with masked_m) into one
// problem: A as [rows, k] with per-token scales [rows, ceil(k/128)], one (B, sb) pair per
// group, and the group of every row of A (-1: the output row is not computed and stays 0).
// Every shape, dtype and index is validated here. Used by the fast (fast_gemm.h) and
// low-precision (lowprec_gemm.h) paths. Internal to reference/; callable from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

struct Fp8GemmProblem {
  int64_t rows = 0, n = 0, k = 0;
  Tensor a, sa;                   // [rows, k] fp8, [rows, ceil(k/128)]
  std::vector<Tensor> b, sb;      // per group: [n, k] fp8, [ceil(n/128), ceil(k/128)]
  std::vector<int64_t> group_of;  // [rows]: group of each row of a, -1 = skipped (0)
  Shape out_shape;                // plain/contiguous [rows, n], masked [groups, max_m, n]
};

// m_indices and masked_m are optional (undefined tensors); at most one may be given.
Result<Fp8GemmProblem> ResolveFp8Gemm(const Tensor& a, const Tensor& sa, const Tensor& b,
                                      const Tensor& sb, const Tensor& m_indices,
                                      const Tensor& masked_m);

}  // namespace av
