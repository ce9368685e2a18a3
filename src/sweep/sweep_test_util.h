// Test-only helpers of the sweep's unit tests, whose candidates are FakeProcessRunner
// handlers: GemmOfCase computes what a correct GEMM candidate writes for a gemm case
// folder (d = a bᵀ), which a test then perturbs to play a buggy or hostile kernel.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "tensor/safetensors.h"
#include "tensor/tensor.h"

namespace av::testing {

// d = a bᵀ of `case_dir`/inputs.safetensors: float64 sums, each passed through
// `adjust(i, j, sum)` when given, stored as float32. An empty d when the inputs cannot
// be read (the test has failed).
inline Tensor GemmOfCase(const std::string& case_dir,
                         const std::function<double(int64_t, int64_t, double)>& adjust = {}) {
  auto in = ReadSafetensors(case_dir + "/inputs.safetensors");
  EXPECT_TRUE(in.ok()) << in.status().message();
  if (!in.ok() || in->Find("a") == nullptr || in->Find("b") == nullptr) return Tensor();
  const Tensor& a = *in->Find("a");
  const Tensor& b = *in->Find("b");
  Tensor d = Tensor::Zeros(DType::kF32, {a.dim(0), b.dim(0)});
  for (int64_t i = 0; i < a.dim(0); ++i) {
    for (int64_t j = 0; j < b.dim(0); ++j) {
      double s = 0;
      for (int64_t k = 0; k < a.dim(1); ++k) {
        int64_t ia[] = {i, k}, ib[] = {j, k};
        s += a.GetDouble(ia) * b.GetDouble(ib);
      }
      int64_t id[] = {i, j};
      d.SetDouble(id, adjust ? adjust(i, j, s) : s);
    }
  }
  return d;
}

}  // namespace av::testing
