// The fast GEMM paths against the float64 oracles (gemm.h) on shapes around the 64-column
// block, the 512-row unit and the 128-channel scale groups, and bitwise equality across
// thread counts. Tolerance: float32 accumulation of k products (plus rounding each
// dequantised operand) is off by at most (k + 2) * 2^-24 * sum_c |a_c b_c| per element.
#include "reference/fast_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/fp8_quant.h"
#include "reference/gemm.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::RandomTensor;

Tensor Abs(const Tensor& t) {
  F64Array a = LoadF64(t);
  for (double& x : a.data) x = std::fabs(x);
  return a.ToTensor();
}

void ExpectWithinBound(const Tensor& fast, const Tensor& oracle, const Tensor& abs_product,
                       int64_t k) {
  F64Array f = LoadF64(fast), o = LoadF64(oracle), bound = LoadF64(abs_product);
  ASSERT_EQ(f.shape, o.shape);
  for (size_t i = 0; i < f.data.size(); ++i) {
    ASSERT_LE(std::fabs(f.data[i] - o.data[i]), double(k + 2) * 0x1p-24 * bound.data[i] + 1e-30)
        << "element " << i;
  }
}

TEST(FastGemmTest, MatchesOracleAroundBlockEdges) {
  std::mt19937_64 rng(21);
  for (int64_t m : {1, 63, 65, 513})
    for (int64_t n : {1, 64, 65, 129})
      for (int64_t k : {1, 3, 128, 129}) {
        SCOPED_TRACE(::testing::Message() << m << " x " << n << " x " << k);
        Tensor a = RandomTensor(rng, {m, k}, DType::kBF16), b = RandomTensor(rng, {n, k});
        auto fast = ComputeGemmNtFast(a, b, {});
        auto oracle = ComputeGemmNt(a, b);
        auto bound = ComputeGemmNt(Abs(a), Abs(b));
        ASSERT_TRUE(fast.ok() && oracle.ok() && bound.ok());
        ExpectWithinBound(*fast, *oracle, *bound, k);
      }
}

TEST(FastGemmTest, Fp8MatchesOracle) {
  std::mt19937_64 rng(22);
  for (int64_t k : {128, 200, 384}) {
    auto qa = QuantizePerToken(RandomTensor(rng, {70, k}, DType::kF32, -3, 3), false);
    auto qb = QuantizePerBlock(RandomTensor(rng, {130, k}), true);
    ASSERT_TRUE(qa.ok() && qb.ok());
    auto fast = ComputeFp8GemmNtFast(qa->data, qa->scales, qb->data, qb->scales, {});
    auto oracle = ComputeFp8GemmNt(qa->data, qa->scales, qb->data, qb->scales);
    auto da = DequantizePerToken(qa->data, qa->scales);
    auto db = DequantizePerBlock(qb->data, qb->scales);
    ASSERT_TRUE(fast.ok() && oracle.ok() && da.ok() && db.ok()) << fast.status().message();
    auto bound = ComputeGemmNt(Abs(*da), Abs(*db));
    ASSERT_TRUE(bound.ok());
    ExpectWithinBound(*fast, *oracle, *bound, k);
  }
}

TEST(FastGemmTest, BitwiseIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(23);
  Tensor a = RandomTensor(rng, {600, 257}), b = RandomTensor(rng, {200, 257});
  auto ref = ComputeGemmNtFast(a, b, {1, false, true});
  ASSERT_TRUE(ref.ok());
  for (int threads : {2, 3, 8}) {
    auto out = ComputeGemmNtFast(a, b, {threads, false, true});
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(BitwiseEqual(*out, *ref)) << threads;
  }
  auto portable = ComputeGemmNtFast(a, b, {2, true, false});
  auto oracle = ComputeGemmNt(a, b);
  ASSERT_TRUE(portable.ok() && oracle.ok());
  EXPECT_LE(testing::MaxRelDiff(*portable, *oracle), 1e-12);
}

TEST(FastGemmTest, RejectsUnscaledOperandsForFp8) {
  std::mt19937_64 rng(24);
  Tensor a = RandomTensor(rng, {4, 128}, DType::kBF16);
  Tensor s = RandomTensor(rng, {4, 1}, DType::kF32);
  EXPECT_FALSE(ComputeFp8GemmNtFast(a, s, a, s, {}).ok());
}

}  // namespace
}  // namespace av
