// GEMM oracles: a hand-checked product, DeepGEMM's FP8 GEMM against the float64 GEMM of
// its dequantised operands (and, loosely, of the original operands, as DeepGEMM's tests
// do), and the grouped contiguous / masked layouts against per-group plain GEMMs.
#include "reference/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "reference/fp8_quant.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::RandomTensor;

// DeepGEMM's calc_diff: 1 - 2 sum(a r) / sum(a^2 + r^2).
double CosDiff(const Tensor& a, const Tensor& r) {
  F64Array x = LoadF64(a), y = LoadF64(r);
  double num = 0, den = 0;
  for (size_t i = 0; i < x.data.size(); ++i) {
    num += x.data[i] * y.data[i];
    den += x.data[i] * x.data[i] + y.data[i] * y.data[i];
  }
  return 1 - 2 * num / den;
}

// The oracle's blocked, threaded loops against the plain triple loop, bit for bit. The
// values span 12 decades, so a sum taken in another order would differ in its last bits.
// k = 16384 makes the oracle read B 128 rows at a time: 301 rows are three blocks, the
// last one partial and ending inside a 4 x 4 tile.
TEST(GemmOracleTest, BlockedLoopsEqualTheTripleLoopBitwise) {
  std::mt19937_64 rng(91);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{67, 53, 300},
                         {1, 5, 1},
                         {130, 9, 513},
                         {4, 4, 256},
                         {3, 70, 1000},
                         {5, 301, 16384}}) {
    F64Array a = F64Array::Zeros({m, k}), b = F64Array::Zeros({n, k});
    for (F64Array* x : {&a, &b})
      for (double& v : x->data) v = std::ldexp(mantissa(rng), exponent(rng));
    auto d = ComputeGemmNt(a.ToTensor(), b.ToTensor());
    ASSERT_TRUE(d.ok());
    F64Array want = F64Array::Zeros({m, n});
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t c = 0; c < k; ++c) sum += a(i, c) * b(j, c);
        want(i, j) = sum;
      }
    EXPECT_TRUE(BitwiseEqual(*d, want.ToTensor())) << m << "x" << n << "x" << k;
  }
}

TEST(GemmTest, TwoByTwoByHand) {
  F64Array a = F64Array::Zeros({2, 3}), b = F64Array::Zeros({2, 3});
  a.data = {1, 2, 3, 4, 5, 6};
  b.data = {1, 0, -1, 2, 1, 0};  // rows of B are columns of the product
  auto d = ComputeGemmNt(a.ToTensor(DType::kBF16), b.ToTensor(DType::kF16));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(LoadF64(*d).data, (std::vector<double>{-2, 4, -2, 13}));
}

struct Fp8Operands {
  Tensor a, b;  // original operands (bf16)
  Fp8Quantized qa, qb;
};

Fp8Operands MakeOperands(std::mt19937_64& rng, int64_t m, int64_t n, int64_t k) {
  Fp8Operands o;
  o.a = RandomTensor(rng, {m, k}, DType::kBF16);
  o.b = RandomTensor(rng, {n, k}, DType::kBF16);
  o.qa = *QuantizePerToken(o.a, false);
  o.qb = *QuantizePerBlock(o.b, false);
  return o;
}

TEST(Fp8GemmTest, EqualsTheGemmOfDequantisedOperands) {
  std::mt19937_64 rng(61);
  // n = 260, k = 16384: B dequantised 128 rows at a time, three blocks (gemm.cc).
  for (auto [m, n, k] : {std::tuple{1, 130, 200}, std::tuple{5, 128, 128}, std::tuple{3, 7, 300},
                         std::tuple{2, 260, 16384}}) {
    Fp8Operands o = MakeOperands(rng, m, n, k);
    auto d = ComputeFp8GemmNt(o.qa.data, o.qa.scales, o.qb.data, o.qb.scales);
    ASSERT_TRUE(d.ok()) << d.status().message();
    auto ref = ComputeGemmNt(*DequantizePerToken(o.qa.data, o.qa.scales),
                             *DequantizePerBlock(o.qb.data, o.qb.scales));
    ASSERT_TRUE(ref.ok());
    EXPECT_TRUE(BitwiseEqual(*d, *ref));
    // DeepGEMM's own acceptance: against the original bf16 operands, calc_diff < 1e-3.
    EXPECT_LT(CosDiff(*d, *ComputeGemmNt(o.a, o.b)), 1e-3);
  }
}

// B is read a block of rows at a time, but its scales are checked whole first: a scale
// tensor one row group short is refused by name before any row is multiplied, even when
// the rows it lacks belong to a later block.
TEST(Fp8GemmTest, ShortBlockScalesAreRefusedWhole) {
  std::mt19937_64 rng(63);
  Fp8Operands o = MakeOperands(rng, 2, 260, 16384);
  auto short_sb = o.qb.scales.Slice(0, 0, 2);  // 260 rows need ceil(260/128) = 3
  ASSERT_TRUE(short_sb.ok());
  auto d = ComputeFp8GemmNt(o.qa.data, o.qa.scales, o.qb.data, short_sb->Contiguous());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("b/sb"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find("row groups"), std::string::npos) << d.status().message();
}

TEST(Fp8GemmTest, GroupedContiguousUsesEachRowsGroupAndZeroesPadding) {
  std::mt19937_64 rng(62);
  const int64_t groups = 3, n = 130, k = 160, m = 7;
  Tensor a = RandomTensor(rng, {m, k}, DType::kBF16);
  auto qa = *QuantizePerToken(a, true);
  std::vector<Fp8Quantized> qb;
  F64Array bdata = F64Array::Zeros({groups, n, k}), bscale = F64Array::Zeros({groups, 2, 2});
  for (int64_t g = 0; g < groups; ++g) {
    qb.push_back(*QuantizePerBlock(RandomTensor(rng, {n, k}, DType::kBF16), true));
    F64Array d = LoadF64(qb[g].data), s = LoadF64(qb[g].scales);
    std::copy(d.data.begin(), d.data.end(), bdata.data.begin() + g * n * k);
    std::copy(s.data.begin(), s.data.end(), bscale.data.begin() + g * 4);
  }
  const std::vector<int64_t> m_indices = {0, 0, 2, -1, 1, 2, -1};
  auto d =
      ComputeFp8GemmNtGroupedContiguous(qa.data, qa.scales, bdata.ToTensor(DType::kF8E4M3FN),
                                        bscale.ToTensor(DType::kF32), IntTensor(m_indices, {m}));
  ASSERT_TRUE(d.ok()) << d.status().message();
  F64Array got = LoadF64(*d);
  for (int64_t g = 0; g < groups; ++g) {
    F64Array want = LoadF64(*ComputeFp8GemmNt(qa.data, qa.scales, qb[g].data, qb[g].scales));
    for (int64_t r = 0; r < m; ++r) {
      if (m_indices[r] != g) continue;
      for (int64_t j = 0; j < n; ++j) EXPECT_EQ(got(r, j), want(r, j)) << r << ", " << j;
    }
  }
  for (int64_t j = 0; j < n; ++j) EXPECT_EQ(got(3, j), 0.0);  // padding rows
  auto bad = ComputeFp8GemmNtGroupedContiguous(qa.data, qa.scales, bdata.ToTensor(DType::kF8E4M3FN),
                                               bscale.ToTensor(DType::kF32),
                                               IntTensor({0, 0, 3, -1, 1, 2, -1}, {m}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("m_indices[2] = 3"), std::string::npos);
}

TEST(Fp8GemmTest, GroupedMaskedComputesOnlyTheValidRows) {
  std::mt19937_64 rng(63);
  const int64_t groups = 2, max_m = 4, n = 9, k = 140;
  F64Array a = F64Array::Zeros({groups, max_m, k}), sa = F64Array::Zeros({groups, max_m, 2});
  F64Array b = F64Array::Zeros({groups, n, k}), sb = F64Array::Zeros({groups, 1, 2});
  std::vector<Fp8Operands> ops;
  for (int64_t g = 0; g < groups; ++g) {
    ops.push_back(MakeOperands(rng, max_m, n, k));
    auto put = [&](F64Array& dst, const Tensor& src, int64_t size) {
      F64Array s = LoadF64(src);
      std::copy(s.data.begin(), s.data.end(), dst.data.begin() + g * size);
    };
    put(a, ops[g].qa.data, max_m * k);
    put(sa, ops[g].qa.scales, max_m * 2);
    put(b, ops[g].qb.data, n * k);
    put(sb, ops[g].qb.scales, 2);
  }
  auto d = ComputeFp8GemmNtGroupedMasked(a.ToTensor(DType::kF8E4M3FN), sa.ToTensor(DType::kF32),
                                         b.ToTensor(DType::kF8E4M3FN), sb.ToTensor(DType::kF32),
                                         IntTensor({3, 0}, {groups}));
  ASSERT_TRUE(d.ok()) << d.status().message();
  F64Array got = LoadF64(*d);
  F64Array want = LoadF64(
      *ComputeFp8GemmNt(ops[0].qa.data, ops[0].qa.scales, ops[0].qb.data, ops[0].qb.scales));
  for (int64_t i = 0; i < max_m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(got(0, i, j), i < 3 ? want(i, j) : 0.0);
      EXPECT_EQ(got(1, i, j), 0.0);  // masked_m[1] = 0
    }
}

TEST(Fp8GemmTest, RejectsUnscaledOperandsAndMisshapedScales) {
  std::mt19937_64 rng(64);
  Fp8Operands o = MakeOperands(rng, 2, 3, 128);
  auto out = ComputeFp8GemmNt(o.a, o.qa.scales, o.qb.data, o.qb.scales);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("use gemm"), std::string::npos);
  out = ComputeFp8GemmNt(o.qa.data, o.qb.scales, o.qb.data, o.qb.scales);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("a/sa"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace av
