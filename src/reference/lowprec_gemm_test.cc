// The GEMM low-precision references (lowprec_gemm.h) against the float64 oracles, with
// per-element bounds derived from their rounding points, a hand-worked case of DeepGEMM's
// per-k-block promotion, the grouped forms, and bitwise reproducibility across threads.
#include "reference/lowprec_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/fp8_quant.h"
#include "reference/gemm.h"
#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::Named;
using testing::RandomTensor;

constexpr double kU = 0x1p-24;  // float32 unit roundoff

// Unit roundoff of the dtype (half its spacing at 1): rounding moves x by <= Eps |x|.
double Eps(DType dt) { return dt == DType::kBF16 ? 0x1p-8 : 0x1p-11; }

Tensor Abs(const Tensor& t) {
  F64Array a = LoadF64(t);
  for (double& x : a.data) x = std::fabs(x);
  return a.ToTensor();
}

// |low - exact| <= rel * abs_product + eps * |exact| (eps: the output rounding; the
// rounding of the error itself is covered by the factor 1.01), element by element.
void ExpectWithin(const Tensor& low, const Tensor& exact, const Tensor& abs_product, double rel,
                  double eps, double absolute = 0) {
  F64Array l = LoadF64(low), e = LoadF64(exact), bound = LoadF64(abs_product);
  ASSERT_EQ(l.shape, e.shape);
  for (size_t i = 0; i < l.data.size(); ++i) {
    ASSERT_LE(std::fabs(l.data[i] - e.data[i]),
              1.01 * (rel * bound.data[i] + eps * std::fabs(e.data[i]) + absolute) + 1e-30)
        << "element " << i;
  }
}

// gemm: rounding a and b costs eps relative each (2 eps per product), float32 accumulation
// of k terms k * 2^-24 relative to sum |a b|, the output rounding eps * |d|. f16 also
// rounds below its normal range (2^-14) to a fixed spacing of 2^-24: up to 2^-25 more per
// rounding, i.e. (2k + 1) * 2^-25 with |a|, |b| <= 1 (bf16 shares float32's range).
TEST(LowprecGemmTest, WithinDerivedBoundAndRounded) {
  std::mt19937_64 rng(401);
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int64_t k : {1, 3, 128, 129}) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dt) << " k " << k);
      Tensor a = RandomTensor(rng, {65, k}, DType::kF32), b = RandomTensor(rng, {63, k});
      auto low = ComputeGemmNtLowprec(a, b, {dt, 2});
      auto exact = ComputeGemmNt(a, b);
      auto bound = ComputeGemmNt(Abs(a), Abs(b));
      ASSERT_TRUE(low.ok() && exact.ok() && bound.ok()) << low.status().message();
      const double subnormal = dt == DType::kF16 ? double(2 * k + 1) * 0x1p-25 : 0.0;
      ExpectWithin(*low, *exact, *bound, 2 * Eps(dt) + double(k) * kU, Eps(dt), subnormal);
      EXPECT_GT(testing::MaxRelDiff(*low, *exact, 1e-3), 0.0);
      for (double x : LoadF64(*low).data)
        EXPECT_EQ(x, LoadF64(F64Array{{1}, {x}}.ToTensor(dt)).data[0]);
    }
  }
}

// fp8_gemm: the fp8 operands are exact and so are their products; each k block's float32
// sum is off by <= 128 * 2^-24 of its sum of |products|, the scale product and the fused
// add by 2^-24 each, the running sum over ceil(k/128) blocks by that many 2^-24; relative
// to sum |sa sb a b| that is <= (128 + 2 + ceil(k/128)) * 2^-24; then the bf16 output.
TEST(LowprecGemmTest, Fp8WithinDerivedBound) {
  std::mt19937_64 rng(402);
  for (int64_t k : {128, 200, 384}) {
    SCOPED_TRACE(k);
    auto qa = QuantizePerToken(RandomTensor(rng, {70, k}, DType::kF32, -3, 3), false);
    auto qb = QuantizePerBlock(RandomTensor(rng, {130, k}), true);
    ASSERT_TRUE(qa.ok() && qb.ok());
    auto low = ComputeFp8GemmNtLowprec(qa->data, qa->scales, qb->data, qb->scales, {}, {},
                                       {DType::kBF16, 2});
    auto exact = ComputeFp8GemmNt(qa->data, qa->scales, qb->data, qb->scales);
    auto da = DequantizePerToken(qa->data, qa->scales);
    auto db = DequantizePerBlock(qb->data, qb->scales);
    ASSERT_TRUE(low.ok() && exact.ok() && da.ok() && db.ok()) << low.status().message();
    auto bound = ComputeGemmNt(Abs(*da), Abs(*db));
    ASSERT_TRUE(bound.ok());
    ExpectWithin(*low, *exact, *bound, double(130 + (k + 127) / 128) * kU, 0x1p-8);
  }
}

// One output, k = 256 in two blocks of 128 ones with different scales: the promotion
// computes R(fma(sa1 * sb1, 128, sa0 * sb0 * 128)), each scale product in float32.
TEST(LowprecGemmTest, Fp8PromotionPerKBlockByHand) {
  F64Array ones = F64Array::Zeros({1, 256});
  for (double& x : ones.data) x = 1;
  const Tensor a = ones.ToTensor(DType::kF8E4M3FN), b = a;
  const float sa0 = 0.1f, sa1 = 3.3f, sb0 = 0.7f, sb1 = 1.9f;
  F64Array sa = F64Array::Zeros({1, 2}), sb = F64Array::Zeros({1, 2});
  sa.data = {sa0, sa1};
  sb.data = {sb0, sb1};
  auto low = ComputeFp8GemmNtLowprec(a, sa.ToTensor(DType::kF32), b, sb.ToTensor(DType::kF32), {},
                                     {}, {DType::kF16, 1});
  ASSERT_TRUE(low.ok()) << low.status().message();
  const float expected = std::fma(sa1 * sb1, 128.0f, std::fma(sa0 * sb0, 128.0f, 0.0f));
  EXPECT_EQ(LoadF64(*low).data[0],
            LoadF64(F64Array{{1}, {expected}}.ToTensor(DType::kF16)).data[0]);
}

TEST(LowprecGemmTest, Fp8GroupedFormsMatchPlainPerGroup) {
  std::mt19937_64 rng(403);
  const int64_t k = 200, n = 129, groups = 3, max_m = 5;
  auto qa = QuantizePerToken(RandomTensor(rng, {groups * max_m, k}, DType::kF32), false);
  F64Array b_all = F64Array::Zeros({groups, n, k}), sb_all = F64Array::Zeros({groups, 2, 2});
  std::vector<Fp8Quantized> qb;
  for (int64_t g = 0; g < groups; ++g) {
    qb.push_back(*QuantizePerBlock(RandomTensor(rng, {n, k}), false));
    F64Array bg = LoadF64(qb.back().data), sg = LoadF64(qb.back().scales);
    std::copy(bg.data.begin(), bg.data.end(), b_all.data.begin() + g * n * k);
    std::copy(sg.data.begin(), sg.data.end(), sb_all.data.begin() + g * 4);
  }
  const Tensor b = b_all.ToTensor(DType::kF8E4M3FN), sb = sb_all.ToTensor(DType::kF32);
  // Contiguous: rows 0..14 in groups 2, 2, -1, 0, 0, -1, 1, ... (padding rows give 0).
  std::vector<int64_t> m_idx;
  for (int64_t r = 0; r < groups * max_m; ++r) m_idx.push_back(r % 3 == 2 ? -1 : (r / 2) % 3);
  const Tensor m_indices = IntTensor(m_idx, {groups * max_m});
  auto contiguous =
      ComputeFp8GemmNtLowprec(qa->data, qa->scales, b, sb, m_indices, {}, {DType::kBF16, 2});
  // Masked: a reshaped [groups, max_m, k]; group g keeps rows < masked_m[g].
  auto a3 = qa->data.Reshape({groups, max_m, k});
  auto sa3 = qa->scales.Reshape({groups, max_m, 2});
  ASSERT_TRUE(a3.ok() && sa3.ok());
  const std::vector<int64_t> valid = {5, 0, 2};
  auto masked =
      ComputeFp8GemmNtLowprec(*a3, *sa3, b, sb, {}, IntTensor(valid, {groups}), {DType::kBF16, 3});
  ASSERT_TRUE(contiguous.ok() && masked.ok()) << contiguous.status().message();
  F64Array dc = LoadF64(*contiguous), dm = LoadF64(*masked);
  for (int64_t g = 0; g < groups; ++g) {
    auto plain = ComputeFp8GemmNtLowprec(qa->data, qa->scales, qb[g].data, qb[g].scales, {}, {},
                                         {DType::kBF16, 1});
    ASSERT_TRUE(plain.ok());
    F64Array dp = LoadF64(*plain);
    for (int64_t r = 0; r < groups * max_m; ++r)
      for (int64_t j = 0; j < n; ++j) {
        if (m_idx[r] == g) {
          EXPECT_EQ(dc(r, j), dp(r, j));
        }
        if (m_idx[r] == -1) {
          EXPECT_EQ(dc(r, j), 0.0);
        }
        if (r / max_m == g) {
          EXPECT_EQ(dm(g, r % max_m, j), r % max_m < valid[g] ? dp(r, j) : 0.0);
        }
      }
  }
}

TEST(LowprecGemmTest, BitwiseAcrossThreadsAndRefOps) {
  std::mt19937_64 rng(404);
  Tensor a = RandomTensor(rng, {33, 130}, DType::kBF16), b = RandomTensor(rng, {17, 130});
  auto one = ComputeGemmNtLowprec(a, b, {DType::kF16, 1});
  ASSERT_TRUE(one.ok());
  for (int threads : {2, 5}) {
    auto many = ComputeGemmNtLowprec(a, b, {DType::kF16, threads});
    ASSERT_TRUE(many.ok());
    EXPECT_TRUE(BitwiseEqual(*many, *one));
  }
  RefImpl impl{.kind = ImplKind::kLowprec, .threads = 2, .lowprec_dtype = DType::kF16};
  auto op = RunReferenceOp("gemm", {{"a", a}, {"b", b}}, {}, impl);
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_TRUE(BitwiseEqual(Named(*op, "d"), *one));
  auto qa = QuantizePerToken(a, false);
  auto qb = QuantizePerBlock(b, false);
  ASSERT_TRUE(qa.ok() && qb.ok());
  auto fp8 = RunReferenceOp(
      "fp8_gemm", {{"a", qa->data}, {"sa", qa->scales}, {"b", qb->data}, {"sb", qb->scales}}, {},
      impl);
  ASSERT_TRUE(fp8.ok()) << fp8.status().message();
  EXPECT_EQ(Named(*fp8, "d").shape(), (Shape{33, 17}));
}

// A float64 operand was rounded to float32, then to bf16 (finding: a = -0x1.22ffff4a3aa44p-2,
// b = 1 gave -0x1.24p-2, the float32 midpoint tied to even); rounded once from the double
// it is -0x1.22p-2, as doc/ops.md's d = R(sum R(a) R(b)) and doc/dtypes.md say. f16 alike:
// 1 + 3·2^-11 - 2^-40 lies just below the f16 midpoint 1 + 3·2^-11, so once it gives
// 1 + 2^-10; float32 makes it the midpoint, which ties to even, 1 + 2^-9.
TEST(LowprecGemmTest, Float64InputsRoundOnceNotThroughFloat32) {
  struct Trial {
    DType dt;
    double a, once;
  };
  for (Trial t : {Trial{DType::kBF16, -0x1.22ffff4a3aa44p-2, -0x1.22p-2},
                  Trial{DType::kF16, 1 + 3 * 0x1p-11 - 0x1p-40, 1 + 0x1p-10}}) {
    SCOPED_TRACE(DTypeName(t.dt));
    const Tensor a = F64Array{{1, 1}, {t.a}}.ToTensor(), b = F64Array{{1, 1}, {1.0}}.ToTensor();
    auto d = ComputeGemmNtLowprec(a, b, {t.dt, 1});
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(LoadF64(*d).data[0], t.once);
  }
}

}  // namespace
}  // namespace av
