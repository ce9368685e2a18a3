// The split-k low-precision reference (lowprec_splitk.h) against the float64 oracle: one
// split is bitwise lowprec attention; any plan's combine stays within the derived bound of
// unsplit oracle attention; bf16 partials differ measurably from float32 ones (the
// "split-k partials rounded to bf16" bug class); bitwise reproducible across threads; the
// ref op's --impl lowprec with --lowprec-partials.
#include "reference/lowprec_splitk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::Named;
using testing::RandomTensor;

const std::vector<int64_t>& kLens = testing::kSplitkLens;

AttentionInputs Case(std::mt19937_64& rng, bool with_sink) {
  return testing::SplitkCase(rng, with_sink, 32, 24);
}

std::vector<SplitPlan> Plans() { return testing::SplitkPlans(); }

SplitPlan OneSplitPerBatch() {
  std::vector<KeyRange> whole;
  for (int64_t b = 0; b < int64_t(kLens.size()); ++b) whole.push_back({b, 0, kLens[size_t(b)]});
  return *MakeSplitPlan(whole, kLens);
}

Tensor Counts(const SplitPlan& plan) {
  return IntTensor(plan.num_splits, {int64_t(plan.num_splits.size())});
}

double Eps(DType dt) {
  switch (dt) {
    case DType::kBF16:
      return 0x1p-8;
    case DType::kF16:
      return 0x1p-11;
    default:
      return 0;  // f32 partials: no rounding at the partial
  }
}

double MaxAbsDiff(const Tensor& a, const Tensor& b) {
  F64Array x = LoadF64(a), y = LoadF64(b);
  EXPECT_EQ(x.shape, y.shape);
  double err = 0;
  for (size_t i = 0; i < x.data.size(); ++i) err = std::max(err, std::fabs(x.data[i] - y.data[i]));
  return err;
}

Result<AttentionOutputs> SplitK(const AttentionInputs& in, const AttentionParams& p,
                                const SplitPlan& plan, const LowprecSplitOptions& options) {
  AV_ASSIGN_OR_RETURN(SplitPartials parts, ComputeSplitPartialsLowprec(in, p, plan, options));
  return CombineSplitsLowprec(parts.o_accum, parts.lse_accum, Counts(plan), in.sink, p, options);
}

TEST(LowprecSplitKTest, OneSplitIsBitwiseLowprecAttention) {
  std::mt19937_64 rng(201);
  const AttentionInputs in = Case(rng, /*with_sink=*/true);
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int trial = 0; trial < 3; ++trial) {
      AttentionParams p;
      p.mask.causal = trial == 1;
      if (trial == 2) p.softcap = 0.5, p.mask.window_left = 20;
      auto whole = ComputeAttentionLowprec(in, p, {dt, 2});
      auto split = SplitK(in, p, OneSplitPerBatch(), {{dt, 2}, DType::kF32});
      ASSERT_TRUE(whole.ok() && split.ok()) << split.status().message();
      EXPECT_TRUE(BitwiseEqual(split->o, whole->o)) << DTypeName(dt) << " trial " << trial;
      EXPECT_TRUE(BitwiseEqual(split->lse, whole->lse)) << DTypeName(dt) << " trial " << trial;
    }
  }
}

// Bound on max |o_lowprec_splitk - o_oracle| (max|v| = 1, |S| <= 1.5 as in
// lowprec_attention_test.cc). Key j's final weight is w_s P_sj with w_s = exp(lse_s - lse):
// the perturbations of S (2 eps |S| per score) move lse_s and P_sj together exactly as they
// move the unsplit P_j, so the unsplit budget of 8 eps covers inputs, S, P and the output
// rounding; the float32 combine adds a few 2^-24; rounding each o_s to the partial dtype
// adds eps_p * max|o_s| <= eps_p (eps: unit roundoff, 2^-8 bf16, 2^-11 f16). Bound:
// 8 eps + eps_p.
TEST(LowprecSplitKTest, EveryPlanWithinDerivedBoundOfOracle) {
  std::mt19937_64 rng(202);
  const AttentionInputs in = Case(rng, /*with_sink=*/true);
  const std::vector<SplitPlan> plans = Plans();
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (DType pt : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (size_t n = 0; n < plans.size(); ++n) {
        for (int trial = 0; trial < 2; ++trial) {
          SCOPED_TRACE(::testing::Message() << DTypeName(dt) << " partials " << DTypeName(pt)
                                            << " plan " << n << " trial " << trial);
          AttentionParams p;
          p.mask.causal = trial == 1;
          auto oracle = ComputeAttention(in, p);
          auto low = SplitK(in, p, plans[n], {{dt, 2}, pt});
          ASSERT_TRUE(oracle.ok() && low.ok()) << low.status().message();
          const double eps = Eps(dt);
          EXPECT_LE(MaxAbsDiff(low->o, oracle->o), 8 * eps + Eps(pt));
          // lse: float32 throughout, within S's perturbation (as lowprec attention's test).
          F64Array a = LoadF64(low->lse), b = LoadF64(oracle->lse);
          for (size_t i = 0; i < a.data.size(); ++i) {
            if (std::isinf(b.data[i]))
              EXPECT_EQ(a.data[i], b.data[i]);
            else
              EXPECT_NEAR(a.data[i], b.data[i], 4 * eps);
          }
        }
      }
    }
  }
}

// What catches a kernel that rounds its split-k partials to bf16: against float32 partials
// the combined output moves by up to eps_bf16 * |o_s| (unit roundoff 2^-8) — in an f16
// pipeline 8x the f16 output rounding, and in a bf16 pipeline still visible after the
// final bf16 rounding.
TEST(LowprecSplitKTest, Bf16PartialsDifferMeasurablyFromF32Partials) {
  std::mt19937_64 rng(203);
  const AttentionInputs in = Case(rng, /*with_sink=*/false);
  const SplitPlan plan = Plans()[0];  // every batch cut in the middle
  ASSERT_GT(plan.splits.size(), kLens.size());
  for (DType dt : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(dt));
    auto f32 = SplitK(in, {}, plan, {{dt, 1}, DType::kF32});
    auto bf16 = SplitK(in, {}, plan, {{dt, 1}, DType::kBF16});
    auto oracle = ComputeAttention(in, {});
    ASSERT_TRUE(f32.ok() && bf16.ok() && oracle.ok());
    const double diff = MaxAbsDiff(bf16->o, f32->o);
    const double max_o = MaxAbsDiff(oracle->o, F64Array::Zeros(oracle->o.shape()).ToTensor());
    // Rounding o_s to bf16 moves elements by up to eps_bf16 * |o_s|; its max over
    // thousands of elements reaches a good part of that.
    EXPECT_GE(diff, 0.1 * 0x1p-8 * max_o) << "max |o| " << max_o;
    if (dt == DType::kF16) {
      // In an f16 pipeline the bf16 partials dominate the error against the oracle.
      EXPECT_GT(MaxAbsDiff(bf16->o, oracle->o), 2 * MaxAbsDiff(f32->o, oracle->o));
    }
  }
}

TEST(LowprecSplitKTest, BitwiseReproducibleAcrossThreads) {
  std::mt19937_64 rng(204);
  const AttentionInputs in = Case(rng, /*with_sink=*/true);
  AttentionParams p;
  p.mask.causal = true;
  const SplitPlan plan = Plans()[0];
  auto one = SplitK(in, p, plan, {{DType::kBF16, 1}, DType::kBF16});
  ASSERT_TRUE(one.ok());
  for (int threads : {2, 3, 7}) {
    auto many = SplitK(in, p, plan, {{DType::kBF16, threads}, DType::kBF16});
    ASSERT_TRUE(many.ok());
    EXPECT_TRUE(BitwiseEqual(many->o, one->o)) << threads;
    EXPECT_TRUE(BitwiseEqual(many->lse, one->lse)) << threads;
  }
}

TEST(LowprecSplitKTest, EmptySplitsAndEmptyRows) {
  std::mt19937_64 rng(205);
  const AttentionInputs in = Case(rng, /*with_sink=*/false);
  auto parts = ComputeSplitPartialsLowprec(in, {}, Plans()[0], {{DType::kBF16, 2}, DType::kF16});
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(parts->o_accum.dtype(), DType::kF16);
  EXPECT_EQ(parts->lse_accum.dtype(), DType::kF32);
  auto out = CombineSplitsLowprec(parts->o_accum, parts->lse_accum, Counts(Plans()[0]), {}, {},
                                  {{DType::kBF16, 2}, DType::kF16});
  ASSERT_TRUE(out.ok());
  // Batch 3 has no keys: o = 0, lse = -inf; nothing is NaN.
  F64Array o = LoadF64(out->o), lse = LoadF64(out->lse);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t h = 0; h < 4; ++h) {
      EXPECT_EQ(lse(3, h, i), -INFINITY);
      for (int64_t c = 0; c < 24; ++c) EXPECT_EQ(o(3, i, h, c), 0.0);
    }
  EXPECT_FALSE(testing::HasNaN(out->o));
}

TEST(LowprecSplitKTest, RefOpLowprecWithPartialDtypes) {
  std::mt19937_64 rng(206);
  NamedTensors in = {{"q", RandomTensor(rng, {2, 2, 8, 32}, DType::kBF16)},
                     {"k", RandomTensor(rng, {2, 640, 2, 32}, DType::kBF16)},
                     {"v", RandomTensor(rng, {2, 640, 2, 16}, DType::kBF16)},
                     {"seqlens_k", IntTensor({640, 65}, {2})}};
  const OpParams params({{"num_sms", "16"}, {"causal", "1"}});
  auto oracle = RunReferenceOp("attention", in,
                               OpParams(std::map<std::string, std::string>{{"causal", "1"}}));
  ASSERT_TRUE(oracle.ok()) << oracle.status().message();
  for (DType pt : {DType::kF32, DType::kBF16}) {
    RefImpl impl{.kind = ImplKind::kLowprec,
                 .threads = 2,
                 .lowprec_dtype = DType::kBF16,
                 .lowprec_partials = pt};
    auto low = RunReferenceOp("attention_splitk", in, params, impl);
    ASSERT_TRUE(low.ok()) << low.status().message();
    EXPECT_GT(Named(*low, "o_accum").dim(0), 2);  // the plan really splits
    EXPECT_EQ(Named(*low, "o_accum").dtype(), pt);
    EXPECT_EQ(Named(*low, "lse_accum").dtype(), DType::kF32);
    EXPECT_LE(MaxAbsDiff(Named(*low, "o"), Named(*oracle, "o")), 8 * 0x1p-8 + Eps(pt));
    // `combine --impl lowprec` on the emitted partials reproduces o and lse bit for bit.
    NamedTensors parts = {{"o_accum", Named(*low, "o_accum")},
                          {"lse_accum", Named(*low, "lse_accum")},
                          {"num_splits", Named(*low, "num_splits")}};
    auto merged = RunReferenceOp("combine", parts, {}, impl);
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_TRUE(BitwiseEqual(Named(*merged, "o"), Named(*low, "o")));
    EXPECT_TRUE(BitwiseEqual(Named(*merged, "lse"), Named(*low, "lse")));
  }
}

}  // namespace
}  // namespace av
