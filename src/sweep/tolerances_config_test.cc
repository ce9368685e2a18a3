// The shipped config/tolerances.json, judged on what it must accept and reject: its fp8_gemm
// rule (DeepGEMM's calc_diff plus our row bound) passes correct block-scaled FP8 GEMMs and
// fails a 1 % wrong output scale, which calc_diff alone lets through.
#include "sweep/tolerances_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "numerics/compare.h"
#include "reference/f64_array.h"
#include "reference/fp8_quant.h"
#include "reference/gemm.h"
#include "reference/lowprec_gemm.h"
#include "sweep/input_gen.h"
#include "sweep/rng.h"
#include "testing/test_util.h"

namespace av {
namespace {

// The fp8_gemm row bound, row_rel_l2 = 3·2^-9 = 0.005859375, derived from how a correct
// block-scaled FP8 GEMM can differ from the reference. The reference is the exact
// (float64) product of the dequantised operands the candidate itself receives, so the
// quantisation error is not part of the difference (DeepGEMM's test compares with the
// original bf16 operands instead; that is what its loose calc_diff < 1e-3 absorbs).
//  * Output: d is bf16, rounded to nearest: each element moves by at most u·|d|,
//    u = 2^-8 = 0.0039, so row i by at most u·||r_i|| (first order).
//  * Accumulation, float32 per 128-k block, promoted with sa·sb (DeepGEMM's sm90 kernel,
//    our lowprec emulation, the CPU candidate): within (130 + ceil(k/128))·2^-24 of
//    Σ_k |sa a sb b| per element (doc/ops.md), ~1.3e-4 of ||r_i|| for k = 448 normal
//    operands. Hopper's FP8 tensor cores keep about 14 bits inside a block: a random walk
//    of 128 additions, each off by up to 2^-14 of the running sum, is about
//    2^-14·sqrt(128·129/6) / sqrt(128) ≈ 2.8e-4 of the block sum. Budget: 2^-9 ≈ 1.95e-3,
//    about 7 times that.
//  So δ = u + 2^-9 = 3·2^-9. An output off by a uniform factor s has row error at least
//  |s - 1| - u·s - s·ε_acc; at s = 1.01 that is >= 0.01 - 0.00394 - 0.0001 = 0.00596 > δ in
//  every row: a 1 % wrong epilogue scale fails whatever the data (a 0.5 % one may pass).
//  DeepGEMM's calc_diff for a = s·r is (s - 1)^2 / (1 + s^2): 5e-5 at 1 %, 4.4e-4 at 3 %.
constexpr double kFp8RowBound = 3 * 0x1p-9;

struct Operands {
  Tensor a, sa, b, sb;
};

Operands Quantised(uint64_t seed, int64_t m, int64_t n, int64_t k, bool saturating) {
  Result<Fp8Quantized> qa =
      QuantizePerToken(GenerateGemmOperand(Rng(StreamKey("a", "a", seed)), m, k, saturating),
                       false);
  Result<Fp8Quantized> qb =
      QuantizePerBlock(GenerateGemmOperand(Rng(StreamKey("b", "b", seed)), n, k, saturating),
                       false);
  CHECK(qa.ok() && qb.ok());
  return {qa->data, qa->scales, qb->data, qb->scales};
}

// d = s·x, rounded once to bf16 (a kernel that writes its bf16 output with a wrong scale).
Tensor ScaledBf16(const Tensor& x, double s) {
  F64Array a = LoadF64(x);
  for (double& v : a.data) v *= s;
  return a.ToTensor(DType::kBF16);
}

TEST(Fp8GemmTolerance, ShippedRuleIsCosDiffWithTheDerivedRowBound) {
  Result<TolerancesConfig> config =
      LoadTolerancesConfig(testing::SourceDir() + "/config/tolerances.json");
  ASSERT_TRUE(config.ok()) << config.status().message();
  const ToleranceEntry* e = FindTolerance(*config, "fp8_gemm", "d", DType::kF8E4M3FN);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->request.kind, RuleKind::kCosDiff);
  EXPECT_EQ(e->request.cos_tol, 1e-3);  // DeepGEMM's own threshold, kept
  ASSERT_TRUE(e->request.row_rel_l2.has_value());
  EXPECT_EQ(*e->request.row_rel_l2, kFp8RowBound);
}

// Over the default sweep's fp8_gemm shapes (m 1 and 129; n 192, 576; k 256, 448; both
// generators) and seeds 0-4: correct products pass, 1 % and 3 % scale errors fail (and
// the 1 % one passes calc_diff < 1e-3, the gap this bound closes).
TEST(Fp8GemmTolerance, OnePercentScaleErrorFailsWhileCorrectProductsPass) {
  Result<TolerancesConfig> config =
      LoadTolerancesConfig(testing::SourceDir() + "/config/tolerances.json");
  ASSERT_TRUE(config.ok()) << config.status().message();
  const RuleRequest rule = FindTolerance(*config, "fp8_gemm", "d", DType::kF8E4M3FN)->request;
  RuleRequest cos_only = rule;
  cos_only.row_rel_l2.reset();
  double honest_worst = 0, cheat_best = INFINITY;
  for (int64_t m : {1, 129})
    for (int64_t n : {192, 576})
      for (int64_t k : {256, 448})
        for (bool saturating : {false, true})
          for (uint64_t seed = 0; seed < 5; ++seed) {
            SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " saturating "
                                              << saturating << " seed " << seed);
            const Operands x = Quantised(seed, m, n, k, saturating);
            Result<Tensor> ref = ComputeFp8GemmNt(x.a, x.sa, x.b, x.sb);
            // DeepGEMM's sm90 kernel emulated (float32 block sums, FMA promotion, bf16 out).
            Result<Tensor> kernel =
                ComputeFp8GemmNtLowprec(x.a, x.sa, x.b, x.sb, Tensor(), Tensor(), {});
            ASSERT_TRUE(ref.ok() && kernel.ok());
            // The exact product rounded once (a float64 candidate, e.g. numpy's).
            for (const Tensor& honest : {ScaledBf16(*ref, 1.0), *kernel}) {
              Result<CompareReport> r = CompareTensors(honest, *ref, nullptr, rule);
              ASSERT_TRUE(r.ok());
              EXPECT_TRUE(r->passed) << r->failures.front();
              honest_worst = std::max(honest_worst, r->row_errors.worst);
            }
            for (double s : {1.01, 0.99, 1.03}) {
              Result<CompareReport> r = CompareTensors(ScaledBf16(*ref, s), *ref, nullptr, rule);
              ASSERT_TRUE(r.ok());
              EXPECT_FALSE(r->passed) << "scale " << s;
              // Every row but the all-zero ones of fp8_saturating (r % 7 == 3: 0 = 0·s).
              EXPECT_EQ(r->row_errors.over, saturating ? m - (m + 3) / 7 : m) << "scale " << s;
              cheat_best = std::min(cheat_best, r->row_errors.worst);
            }
            Result<CompareReport> cos = CompareTensors(ScaledBf16(*ref, 1.01), *ref, nullptr,
                                                       cos_only);
            ASSERT_TRUE(cos.ok());
            EXPECT_TRUE(cos->passed);  // DeepGEMM's calc_diff alone accepts the 1 % error
          }
  std::cout << "fp8_gemm row relative L2 error: correct products worst " << honest_worst
            << ", scaled outputs best " << cheat_best << ", bound " << kFp8RowBound << "\n";
  EXPECT_LT(honest_worst, kFp8RowBound);
}

}  // namespace
}  // namespace av
