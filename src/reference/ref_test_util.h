// Helpers for the reference-op tests only (header-only, never linked into the library):
// seeded random tensors, integer tensors from lists, NaN poisoning, comparisons that
// treat equal infinities as equal, and the split-k tests' shared case and plans.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "reference/f64_array.h"
#include "reference/splitk.h"
#include "tensor/tensor.h"

namespace av::testing {

inline Tensor RandomTensor(std::mt19937_64& rng, Shape shape, DType dtype = DType::kF64,
                           double lo = -1, double hi = 1) {
  F64Array a = F64Array::Zeros(std::move(shape));
  std::uniform_real_distribution<double> dist(lo, hi);
  for (double& x : a.data) x = dist(rng);
  return a.ToTensor(dtype);
}

inline Tensor IntTensor(const std::vector<int64_t>& values, Shape shape,
                        DType dtype = DType::kI32) {
  Tensor t = Tensor::Zeros(dtype, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.SetDouble(t.Unravel(i), double(values[size_t(i)]));
  return t;
}

inline Tensor FromArray(const F64Array& a, DType dtype = DType::kF64) { return a.ToTensor(dtype); }

inline bool HasNaN(const Tensor& t) {
  for (double x : LoadF64(t).data)
    if (std::isnan(x)) return true;
  return false;
}

// Max |a - b| / max(|b|, floor) over elements; equal infinities count as 0, an infinity or
// NaN on one side only as +inf. Shapes must match.
inline double MaxRelDiff(const Tensor& a, const Tensor& b, double floor = 1.0) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return std::numeric_limits<double>::infinity();
  F64Array x = LoadF64(a), y = LoadF64(b);
  double worst = 0;
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (x.data[i] == y.data[i]) continue;
    if (!std::isfinite(x.data[i]) || !std::isfinite(y.data[i])) {
      return std::numeric_limits<double>::infinity();
    }
    worst =
        std::max(worst, std::fabs(x.data[i] - y.data[i]) / std::max(std::fabs(y.data[i]), floor));
  }
  return worst;
}

// The tensor called `name` in an op's outputs; a test failure (and an empty tensor) if absent.
inline const Tensor& Named(const std::vector<std::pair<std::string, Tensor>>& outputs,
                           const std::string& name) {
  for (const auto& [n, x] : outputs)
    if (n == name) return x;
  ADD_FAILURE() << "no output " << name;
  static const Tensor none;
  return none;
}

inline bool BitwiseEqual(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  F64Array x = LoadF64(a), y = LoadF64(b);
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (std::isnan(x.data[i]) && std::isnan(y.data[i])) continue;
    if (x.data[i] != y.data[i]) return false;
  }
  return true;
}

// Split-k key lengths around the 64-key block, with an empty batch.
inline const std::vector<int64_t> kSplitkLens = {129, 1, 64, 0, 65, 63};

// Batched GQA attention (s_q 3, h_q 4 : h_kv 2) over kSplitkLens with head dims d, dv.
inline AttentionInputs SplitkCase(std::mt19937_64& rng, bool with_sink, int64_t d, int64_t dv) {
  const int64_t b = int64_t(kSplitkLens.size()), s_q = 3, s_k = 129, h_q = 4, h_kv = 2;
  AttentionInputs in;
  in.q = RandomTensor(rng, {b, s_q, h_q, d}, DType::kF32);
  in.k = RandomTensor(rng, {b, s_k, h_kv, d}, DType::kF32);
  in.v = RandomTensor(rng, {b, s_k, h_kv, dv}, DType::kF32);
  in.seqlens_k = IntTensor(kSplitkLens, {b});
  if (with_sink) in.sink = RandomTensor(rng, {h_q});
  return in;
}

// First, explicit cuts of every batch in the middle with empty splits (repeated cuts, a
// cut at 0 and at the end); then FlashMLA's scheduler for 1..6 SM parts.
inline std::vector<SplitPlan> SplitkPlans() {
  std::vector<SplitPlan> plans;
  std::vector<KeyRange> cuts;
  for (int64_t b = 0; b < int64_t(kSplitkLens.size()); ++b) {
    const int64_t n = kSplitkLens[size_t(b)], mid = n / 2;
    for (auto [lo, hi] :
         {std::pair{int64_t(0), int64_t(0)}, {0, mid}, {mid, mid}, {mid, n}, {n, n}})
      cuts.push_back({b, lo, hi});
  }
  auto explicit_plan = MakeSplitPlan(cuts, kSplitkLens);
  EXPECT_TRUE(explicit_plan.ok()) << explicit_plan.status().message();
  if (explicit_plan.ok()) plans.push_back(*explicit_plan);
  for (int64_t parts = 1; parts <= 6; ++parts)
    plans.push_back(*FlashMlaSplitPlan(kSplitkLens, parts));
  return plans;
}

}  // namespace av::testing
