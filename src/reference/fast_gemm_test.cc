// The fast GEMM paths against the float64 oracles (gemm.h) on shapes around the 64-column
// block, the 512-row unit and the 128-channel scale groups, and bitwise equality across
// thread counts. Tolerance: float32 accumulation of k products (plus rounding each
// dequantised operand) is off by at most (k + 2) * 2^-24 * sum_c |a_c b_c| per element; the
// FP8 forms' bf16 dot-product path (exact products, <= 128 roundings a scale block, one
// for sa * sb, one per block added to D) by at most Fp8Bound(k) * 2^-24 * the same sum.
#include "reference/fast_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/fast_fp8_dot.h"
#include "reference/fp8_quant.h"
#include "reference/gemm.h"
#include "reference/ref_test_util.h"
#include "reference/tile_registers.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::RandomTensor;

Tensor Abs(const Tensor& t) {
  F64Array a = LoadF64(t);
  for (double& x : a.data) x = std::fabs(x);
  return a.ToTensor();
}

// The larger of the two paths' first-order bounds (in units of 2^-24), plus 2 for the
// second-order terms' slack.
int64_t Fp8Bound(int64_t k) {
  return std::max(k, std::min<int64_t>(k, 128) + (k + 127) / 128 + 1) + 2;
}

void ExpectWithinBound(const Tensor& fast, const Tensor& oracle, const Tensor& abs_product,
                       int64_t bound_ulps) {
  F64Array f = LoadF64(fast), o = LoadF64(oracle), bound = LoadF64(abs_product);
  ASSERT_EQ(f.shape, o.shape);
  for (size_t i = 0; i < f.data.size(); ++i) {
    ASSERT_LE(std::fabs(f.data[i] - o.data[i]), double(bound_ulps) * 0x1p-24 * bound.data[i] + 1e-30)
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
        ExpectWithinBound(*fast, *oracle, *bound, k + 2);
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
    ExpectWithinBound(*fast, *oracle, *bound, Fp8Bound(k));
  }
}

struct Fp8Operands {
  Tensor a, sa, b, sb;
  Tensor abs_product;  // the oracle on |a| and |b| (sign bits cleared): the bound's sum
};

// Every finite code of the format, uniformly (values over 2^-16 .. 57344 for e5m2), and
// scales in [0.5, 2]: a wider dynamic range than quantised data.
Tensor RandomCodes(std::mt19937_64& rng, Shape shape, DType dtype) {
  Tensor t = Tensor::Zeros(dtype, std::move(shape));
  auto* p = reinterpret_cast<uint8_t*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint8_t c;
    do {
      c = static_cast<uint8_t>(rng());
    } while (dtype == DType::kF8E5M2 ? (c & 0x7c) == 0x7c : (c & 0x7f) == 0x7f);
    p[i] = c;
  }
  return t;
}

Tensor ClearSigns(const Tensor& t) {
  Tensor c = Tensor::Zeros(t.dtype(), t.shape());
  const Tensor contiguous = t.Contiguous();
  const auto* src = reinterpret_cast<const uint8_t*>(contiguous.data());
  auto* p = reinterpret_cast<uint8_t*>(c.mutable_data());
  for (int64_t i = 0; i < c.numel(); ++i) p[i] = src[i] & 0x7f;
  return c;
}

Fp8Operands MakeFp8(std::mt19937_64& rng, int64_t m, int64_t n, int64_t k, DType dtype) {
  Fp8Operands op;
  const int64_t kb = (k + 127) / 128;
  op.a = RandomCodes(rng, {m, k}, dtype);
  op.b = RandomCodes(rng, {n, k}, dtype);
  op.sa = RandomTensor(rng, {m, kb}, DType::kF32, 0.5, 2);
  op.sb = RandomTensor(rng, {(n + 127) / 128, kb}, DType::kF32, 0.5, 2);
  op.abs_product = *ComputeFp8GemmNt(ClearSigns(op.a), op.sa, ClearSigns(op.b), op.sb);
  return op;
}

// The FP8 forms' kernels on bf16 pairs: the AVX512-BF16 dot product (tiles off), the
// AMX tiles and their emulation; each skips with a reason where the CPU lacks it.
struct Fp8Kernel {
  const char* name;
  TilePath tiles;
};
class Fp8PairKernelTest : public ::testing::TestWithParam<Fp8Kernel> {
 protected:
  void SetUp() override {
    if (GetParam().tiles == TilePath::kOff && !CpuHasAvx512Bf16())
      GTEST_SKIP() << "this CPU has no AVX512-BF16";
    if (GetParam().tiles == TilePath::kAuto && !CpuHasAmxBf16())
      GTEST_SKIP() << "this CPU (or OS) has no AMX-BF16";
  }
  FastOptions Options(int threads = 0) const {
    FastOptions f;
    f.threads = threads;
    f.tiles = GetParam().tiles;
    return f;
  }
};

// Shapes around the 6-row and 16-row tiles, the 64-column panel, the 128-channel scale
// block and odd k (a half-filled last pair), both fp8 formats; the FMA path
// (allow_avx512 = false) on the same inputs meets its bound too.
TEST_P(Fp8PairKernelTest, MatchesOracleAroundEdges) {
  std::mt19937_64 rng(25);
  for (DType dtype : {DType::kF8E4M3FN, DType::kF8E5M2})
    for (int64_t m : {1, 5, 7, 13, 17, 515})
      for (int64_t n : {1, 63, 65, 200})
        for (int64_t k : {1, 3, 127, 128, 257}) {
          SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " " << m << " x " << n << " x "
                                            << k);
          Fp8Operands op = MakeFp8(rng, m, n, k, dtype);
          auto oracle = ComputeFp8GemmNt(op.a, op.sa, op.b, op.sb);
          auto pairs = ComputeFp8GemmNtFast(op.a, op.sa, op.b, op.sb, Options());
          auto fma = ComputeFp8GemmNtFast(op.a, op.sa, op.b, op.sb,
                                          {.allow_avx512 = false});
          ASSERT_TRUE(oracle.ok() && pairs.ok() && fma.ok()) << pairs.status().message();
          ExpectWithinBound(*pairs, *oracle, op.abs_product, Fp8Bound(k));
          ExpectWithinBound(*fma, *oracle, op.abs_product, k + 2);
        }
}

TEST_P(Fp8PairKernelTest, BitwiseIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(26);
  Fp8Operands op = MakeFp8(rng, 1100, 300, 333, DType::kF8E4M3FN);
  auto one = ComputeFp8GemmNtFast(op.a, op.sa, op.b, op.sb, Options(1));
  ASSERT_TRUE(one.ok());
  for (int threads : {2, 3, 7}) {
    auto many = ComputeFp8GemmNtFast(op.a, op.sa, op.b, op.sb, Options(threads));
    ASSERT_TRUE(many.ok());
    EXPECT_TRUE(BitwiseEqual(*many, *one)) << threads;
  }
}

// NaN codes and e5m2 infinities reach D where the oracle's float64 sums put them: a NaN
// in a row of A makes that row NaN, inf times a finite nonzero value stays inf, and inf
// meeting -inf in one sum is NaN.
TEST_P(Fp8PairKernelTest, PropagatesNanAndInfLikeTheOracle) {
  std::mt19937_64 rng(27);
  Fp8Operands op = MakeFp8(rng, 9, 70, 140, DType::kF8E5M2);
  Tensor a = op.a, b = op.b;
  a.Set<uint8_t>(std::vector<int64_t>{2, 139}, 0x7f);  // e5m2 NaN
  a.Set<uint8_t>(std::vector<int64_t>{4, 5}, 0x7c);    // +inf
  b.Set<uint8_t>(std::vector<int64_t>{66, 5}, 0xfc);   // -inf: row 4, column 66 is inf - inf
  auto oracle = ComputeFp8GemmNt(a, op.sa, b, op.sb);
  auto pairs = ComputeFp8GemmNtFast(a, op.sa, b, op.sb, Options());
  ASSERT_TRUE(oracle.ok() && pairs.ok());
  F64Array o = LoadF64(*oracle), f = LoadF64(*pairs);
  int64_t nan = 0, inf = 0;
  for (size_t i = 0; i < o.data.size(); ++i) {
    ASSERT_EQ(std::isnan(o.data[i]), std::isnan(f.data[i])) << "element " << i;
    ASSERT_EQ(std::isinf(o.data[i]), std::isinf(f.data[i])) << "element " << i;
    if (std::isinf(o.data[i])) {
      ASSERT_EQ(o.data[i], f.data[i]) << "element " << i;
    }
    nan += std::isnan(o.data[i]);
    inf += std::isinf(o.data[i]);
  }
  EXPECT_GE(nan, 70);  // row 2, and at least row 4's column 66
  EXPECT_GE(inf, 1);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Fp8PairKernelTest,
                         ::testing::Values(Fp8Kernel{"Avx512Bf16Dot", TilePath::kOff},
                                           Fp8Kernel{"AmxTiles", TilePath::kAuto},
                                           Fp8Kernel{"EmulatedTiles", TilePath::kEmulated}),
                         [](const ::testing::TestParamInfo<Fp8Kernel>& info) {
                           return std::string(info.param.name);
                         });

// The AMX panel and its emulation give the same bits (so the emulation's results, tested
// on every CPU, stand for the hardware's).
TEST(FastGemmTest, Fp8AmxTilesAndTheirEmulationAgreeBitwise) {
  if (!CpuHasAmxBf16()) GTEST_SKIP() << "this CPU (or OS) has no AMX-BF16";
  std::mt19937_64 rng(28);
  for (DType dtype : {DType::kF8E4M3FN, DType::kF8E5M2}) {
    Fp8Operands op = MakeFp8(rng, 37, 130, 300, dtype);
    FastOptions amx, emulated;
    emulated.tiles = TilePath::kEmulated;
    auto x = ComputeFp8GemmNtFast(op.a, op.sa, op.b, op.sb, amx);
    auto y = ComputeFp8GemmNtFast(op.a, op.sa, op.b, op.sb, emulated);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_TRUE(BitwiseEqual(*x, *y)) << DTypeName(dtype);
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
