#include "numerics/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace av {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor Make(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t = Tensor::Zeros(dtype, shape);
  CHECK(static_cast<int64_t>(values.size()) == t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) t.SetDouble(t.Unravel(i), values[static_cast<size_t>(i)]);
  return t;
}

Tensor Vec(const std::vector<double>& values, DType dtype = DType::kF32) {
  return Make(dtype, {static_cast<int64_t>(values.size())}, values);
}

CompareReport Check(const Tensor& a, const Tensor& r, RuleRequest req,
                    const Tensor* low = nullptr) {
  auto report = CompareTensors(a, r, low, req);
  CHECK(report.ok()) << report.status().message();
  return *report;
}

RuleRequest Req(RuleKind kind) {
  RuleRequest r;
  r.kind = kind;
  return r;
}

TEST(CompareMetricsTest, HandComputedValues) {
  Tensor r = Vec({1, 2, 3, 4}, DType::kF64);
  Tensor a = Vec({1, 2.5, 3, 3}, DType::kF64);
  CompareReport rep = Check(a, r, Req(RuleKind::kAllclose));
  const Metrics& m = rep.metrics;
  EXPECT_EQ(m.compared, 4);
  EXPECT_DOUBLE_EQ(m.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(m.max_rel, 1.0 / (4 + 1e-6));  // index 3 beats index 1's 0.5 / (2 + 1e-6)
  EXPECT_DOUBLE_EQ(m.mean_abs, 1.5 / 4);
  EXPECT_DOUBLE_EQ(m.rmse, std::sqrt(1.25 / 4));
  // sum a*a = 1 + 6.25 + 9 + 9 = 25.25; sum r*r = 30; sum (a-r)^2 = 1.25.
  EXPECT_DOUBLE_EQ(m.cos_diff, 1.25 / 55.25);
  EXPECT_DOUBLE_EQ(m.nmse, 1.25 / 30);
  EXPECT_FALSE(rep.passed);
  EXPECT_EQ(rep.mismatches, 2);
  EXPECT_DOUBLE_EQ(rep.mismatch_fraction, 0.5);
  ASSERT_EQ(rep.worst_abs.size(), 4u);
  EXPECT_EQ(rep.worst_abs[0].index, (std::vector<int64_t>{3}));
  EXPECT_EQ(rep.worst_abs[1].index, (std::vector<int64_t>{1}));
  EXPECT_EQ(rep.worst_rel[0].index, (std::vector<int64_t>{3}));
  EXPECT_EQ(rep.worst_rel[1].index, (std::vector<int64_t>{1}));
}

TEST(CompareMetricsTest, IdenticalTensorsPassEveryRule) {
  Tensor r = Vec({0.5, -1.25, 3.0, 1e-3});
  for (RuleKind kind :
       {RuleKind::kAllclose, RuleKind::kFlashMla, RuleKind::kCosDiff, RuleKind::kExact}) {
    CompareReport rep = Check(r, r, Req(kind));
    EXPECT_TRUE(rep.passed) << RuleName(kind);
    EXPECT_EQ(rep.metrics.cos_diff, 0.0);
    EXPECT_EQ(rep.mismatches, 0);
  }
}

// Anchors that disagree, each decided as its own project would.

TEST(CompareRulesTest, TinyOppositeValuesPassAllcloseButFailCosDiff) {
  // |a - r| = 2e-7 < atol 1e-5, so torch passes; the vectors point opposite ways.
  Tensor r = Vec({1e-7, -1e-7, 1e-7});
  Tensor a = Vec({-1e-7, 1e-7, -1e-7});
  EXPECT_TRUE(Check(a, r, Req(RuleKind::kAllclose)).passed);
  CompareReport cos = Check(a, r, Req(RuleKind::kCosDiff));
  EXPECT_FALSE(cos.passed);
  EXPECT_NEAR(cos.metrics.cos_diff, 2.0, 1e-6);
  // FlashMLA: sum(ref^2) < 1e-12 makes its cos_diff 0, and abs < atol passes each element.
  CompareReport fm = Check(a, r, Req(RuleKind::kFlashMla));
  EXPECT_TRUE(fm.passed);
  EXPECT_EQ(fm.rule_cos_diff, 0.0);
}

TEST(CompareRulesTest, MatchingNanFailsAllcloseOnlyAtThatPosition) {
  Tensor r = Vec({1.0, kNan, 2.0});
  Tensor a = Vec({1.0, kNan, 2.0});
  CompareReport torch = Check(a, r, Req(RuleKind::kAllclose));
  EXPECT_FALSE(torch.passed);  // torch.testing: equal_nan=False by default
  EXPECT_EQ(torch.mismatches, 1);
  EXPECT_EQ(torch.nonfinite_mismatches, 1);
  EXPECT_EQ(torch.nonfinite.position_mismatches, 0);
  RuleRequest eq = Req(RuleKind::kAllclose);
  eq.equal_nan = true;
  EXPECT_TRUE(Check(a, r, eq).passed);
  EXPECT_TRUE(Check(a, r, Req(RuleKind::kFlashMla)).passed);  // same positions, then zeroed
  EXPECT_TRUE(Check(a, r, Req(RuleKind::kCosDiff)).passed);
}

TEST(CompareRulesTest, MatchingInfinitiesAreClose) {
  Tensor r = Vec({-kInf, 1.0, kInf});
  EXPECT_TRUE(Check(r, r, Req(RuleKind::kAllclose)).passed);
  EXPECT_TRUE(Check(r, r, Req(RuleKind::kFlashMla)).passed);
  Tensor flipped = Vec({kInf, 1.0, kInf});
  CompareReport rep = Check(flipped, r, Req(RuleKind::kFlashMla));
  EXPECT_FALSE(rep.passed);
  EXPECT_EQ(rep.nonfinite.position_mismatches, 1);
  ASSERT_EQ(rep.nonfinite.first_mismatches.size(), 1u);
  EXPECT_EQ(rep.nonfinite.first_mismatches[0].index, (std::vector<int64_t>{0}));
}

TEST(CompareRulesTest, NanInCandidateFailsEveryRuleUnlessAllowed) {
  Tensor r = Vec({1.0, 2.0, 3.0});
  Tensor a = Vec({1.0, kNan, 3.0});
  for (RuleKind kind : {RuleKind::kAllclose, RuleKind::kFlashMla, RuleKind::kCosDiff}) {
    CompareReport rep = Check(a, r, Req(kind));
    EXPECT_FALSE(rep.passed) << RuleName(kind);
    EXPECT_EQ(rep.nonfinite.candidate.nan, 1);
    RuleRequest allow = Req(kind);
    allow.allow_nan = true;
    CompareReport allowed = Check(a, r, allow);
    EXPECT_TRUE(allowed.passed) << RuleName(kind);
    EXPECT_EQ(allowed.nonfinite.excluded, 1);
    EXPECT_EQ(allowed.metrics.compared, 2);
  }
}

TEST(CompareRulesTest, OneOutlierFailsAllcloseButNotCosDiff) {
  std::vector<double> ref(10000), cand(10000);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = cand[i] = std::sin(0.1 * static_cast<double>(i));
  cand[1234] += 0.01;
  CompareReport torch = Check(Vec(cand), Vec(ref), Req(RuleKind::kAllclose));
  EXPECT_FALSE(torch.passed);
  EXPECT_EQ(torch.mismatches, 1);
  EXPECT_EQ(torch.worst_abs[0].index, (std::vector<int64_t>{1234}));
  EXPECT_TRUE(Check(Vec(cand), Vec(ref), Req(RuleKind::kCosDiff)).passed);
}

TEST(CompareRulesTest, FlashMlaRelativeEscapeFailsAllclose) {
  // abs 5 > atol, rel 5/1000 < rtol 1e-2: FlashMLA passes the element, torch does not.
  std::vector<double> ref(1000, 1000.0), cand(1000, 1000.0);
  cand[7] = 1005.0;
  EXPECT_FALSE(Check(Vec(cand), Vec(ref), Req(RuleKind::kAllclose)).passed);
  RuleRequest fm = Req(RuleKind::kFlashMla);
  fm.cos_tol = 1e-5;
  EXPECT_TRUE(Check(Vec(cand), Vec(ref), fm).passed);
}

TEST(CompareRulesTest, FlashMlaUsesStrictBoundsAllcloseInclusive) {
  Tensor r = Vec({0.0, 1.0});
  Tensor a = Vec({0.5, 1.0});
  RuleRequest torch = Req(RuleKind::kAllclose);
  torch.atol = 0.5;
  torch.rtol = 0.0;
  EXPECT_TRUE(Check(a, r, torch).passed);  // 0.5 <= 0.5
  RuleRequest fm = Req(RuleKind::kFlashMla);
  fm.atol = 0.5;
  fm.rtol = 0.0;
  fm.cos_tol = 1.0;
  CompareReport rep = Check(a, r, fm);
  EXPECT_FALSE(rep.passed);  // 0.5 < 0.5 is false, and rel 5e5 is not < 0
  EXPECT_EQ(rep.mismatches, 1);
}

TEST(CompareRulesTest, FlashMlaComparesInFloat32) {
  // In float64 these differ by 1e-12; cast to float32 (as FlashMLA does) they are equal,
  // so even atol = rtol = 0 ... fails only because 0 < 0 is false; with rtol 1e-9 it passes.
  Tensor r = Vec({1.0}, DType::kF64);
  Tensor a = Vec({1.0 + 1e-12}, DType::kF64);
  RuleRequest fm = Req(RuleKind::kFlashMla);
  fm.atol = 1e-20;
  fm.rtol = 1e-30;
  EXPECT_TRUE(Check(a, r, fm).passed);
  RuleRequest torch = Req(RuleKind::kAllclose);
  torch.atol = 1e-20;
  torch.rtol = 1e-30;
  EXPECT_FALSE(Check(a, r, torch).passed);
}

TEST(CompareRulesTest, CosDiffOfAllZeroFailsLikeDeepGemm) {
  Tensor z = Vec({0, 0, 0});
  CompareReport rep = Check(z, z, Req(RuleKind::kCosDiff));
  EXPECT_FALSE(rep.passed);
  ASSERT_EQ(rep.failures.size(), 1u);
  EXPECT_NE(rep.failures[0].find("all zero"), std::string::npos);
  EXPECT_TRUE(Check(z, z, Req(RuleKind::kFlashMla)).passed);
  EXPECT_TRUE(Check(z, z, Req(RuleKind::kAllclose)).passed);
}

TEST(CompareRulesTest, CosDiffThresholdIsStrict) {
  // cos_diff = sum (a-r)^2 / sum(a^2 + r^2) = 1 / (1 + 0) ... use a = 2r: 1/5 exactly-ish.
  Tensor r = Vec({1.0}, DType::kF64);
  Tensor a = Vec({3.0}, DType::kF64);  // (2^2) / (9 + 1) = 0.4
  RuleRequest req = Req(RuleKind::kCosDiff);
  req.cos_tol = 0.4;
  EXPECT_FALSE(Check(a, r, req).passed);
  req.cos_tol = 0.40000001;
  EXPECT_TRUE(Check(a, r, req).passed);
}

// DeepGEMM's calc_diff cannot see a uniform scale error: a = s·r gives (s-1)^2 / (1 + s^2),
// 5.0e-5 at s = 1.01, 4.4e-4 at 1.03, under its 1e-3 (finding fp8_scale_3pct: 24 of 24 fp8
// cases passed at 3 %). row_rel_l2 bounds each row's |a_i - r_i| / |r_i| as well.
TEST(CompareRulesTest, CosDiffAloneMissesAUniformScaleErrorTheRowBoundCatchesIt) {
  const std::vector<double> r = {1, -2, 3, 0.5, 4, -1, 2, 2};
  std::vector<double> scaled;
  for (double x : r) scaled.push_back(1.01 * x);
  const Tensor ref = Make(DType::kF64, {2, 4}, r), cand = Make(DType::kF64, {2, 4}, scaled);
  RuleRequest req = Req(RuleKind::kCosDiff);
  CompareReport plain = Check(cand, ref, req);
  EXPECT_TRUE(plain.passed);
  EXPECT_FALSE(plain.row_errors.defined);
  req.row_rel_l2 = 0.005859375;  // 3·2^-9, config/tolerances.json's fp8_gemm bound
  CompareReport rep = Check(cand, ref, req);
  EXPECT_FALSE(rep.passed);
  ASSERT_TRUE(rep.row_errors.defined);
  EXPECT_EQ(rep.row_errors.rows, 2);
  EXPECT_EQ(rep.row_errors.over, 2);
  EXPECT_NEAR(rep.row_errors.worst, 0.01, 1e-12);  // |s - 1| in every row
  ASSERT_EQ(rep.failures.size(), 1u);
  EXPECT_NE(rep.failures[0].find("2 of 2 rows have a relative L2 error"), std::string::npos)
      << rep.failures[0];
  EXPECT_TRUE(Check(ref, ref, req).passed);
}

// One row off by 2 % among rows that are exact: the whole-tensor norm would dilute it; the
// row bound names the row. A row whose reference is all zero must be zero.
TEST(CompareRulesTest, RowBoundNamesTheWorstRowAndZeroRowsMustMatch) {
  const std::vector<double> r = {1, 2, 3, 4, 5, 6, 0, 0, 7, 8};
  std::vector<double> a = r;
  a[2] *= 1.02;
  a[3] *= 1.02;  // row 1 of [5, 2]
  RuleRequest req = Req(RuleKind::kCosDiff);
  req.row_rel_l2 = 0.01;
  CompareReport rep = Check(Make(DType::kF64, {5, 2}, a), Make(DType::kF64, {5, 2}, r), req);
  EXPECT_FALSE(rep.passed);
  EXPECT_EQ(rep.row_errors.over, 1);
  EXPECT_EQ(rep.row_errors.worst_row, (std::vector<int64_t>{1}));
  std::vector<double> z = r;
  z[6] = 1e-9;  // the reference row [3] is all zero
  CompareReport zero = Check(Make(DType::kF64, {5, 2}, z), Make(DType::kF64, {5, 2}, r), req);
  EXPECT_FALSE(zero.passed);
  EXPECT_EQ(zero.row_errors.worst, std::numeric_limits<double>::infinity());
  EXPECT_EQ(zero.row_errors.worst_row, (std::vector<int64_t>{3}));
  // Rank 3: a row is the last axis with the other two fixed.
  CompareReport r3 = Check(Make(DType::kF64, {5, 1, 2}, a), Make(DType::kF64, {5, 1, 2}, r), req);
  EXPECT_EQ(r3.row_errors.rows, 5);
  EXPECT_EQ(r3.row_errors.worst_row, (std::vector<int64_t>{1, 0}));
}

TEST(CompareRulesTest, RowBoundIsForCosDiffOnlyAndMustBeANumber) {
  const Tensor r = Vec({1.0});
  RuleRequest flashmla = Req(RuleKind::kFlashMla);
  flashmla.row_rel_l2 = 0.01;
  EXPECT_FALSE(CompareTensors(r, r, nullptr, flashmla).ok());
  RuleRequest neg = Req(RuleKind::kCosDiff);
  neg.row_rel_l2 = -1;
  EXPECT_FALSE(CompareTensors(r, r, nullptr, neg).ok());
  neg.row_rel_l2 = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(CompareTensors(r, r, nullptr, neg).ok());
}

TEST(CompareRulesTest, LowprecMultipleScalesWithTheLowPrecisionError) {
  Tensor r = Vec({1.0, 2.0, 3.0, 4.0}, DType::kF64);
  Tensor low = Vec({1.0, 2.01, 3.0, 4.0}, DType::kF64);  // its own error: 0.01
  Tensor a = Vec({1.0, 2.0, 3.025, 4.0}, DType::kF64);   // 0.025 = 2.5x that
  CompareReport two = Check(a, r, Req(RuleKind::kLowprecMultiple), &low);
  EXPECT_FALSE(two.passed);
  EXPECT_NEAR(two.lowprec_max_abs, 0.01, 1e-15);
  EXPECT_NEAR(two.threshold, 0.02, 1e-15);
  EXPECT_EQ(two.mismatches, 1);
  RuleRequest three = Req(RuleKind::kLowprecMultiple);
  three.k = 3;
  EXPECT_TRUE(Check(a, r, three, &low).passed);
  RuleRequest with_atol = Req(RuleKind::kLowprecMultiple);
  with_atol.atol = 0.006;
  EXPECT_TRUE(Check(a, r, with_atol, &low).passed);
}

TEST(CompareRulesTest, LowprecMultipleNeedsTheThirdTensor) {
  Tensor r = Vec({1.0});
  EXPECT_FALSE(CompareTensors(r, r, nullptr, Req(RuleKind::kLowprecMultiple)).ok());
  EXPECT_FALSE(CompareTensors(r, r, &r, Req(RuleKind::kAllclose)).ok());
}

TEST(CompareRulesTest, ExactIsBitwise) {
  Tensor r = Vec({0.0, 1.0});
  Tensor a = Vec({-0.0, 1.0});
  EXPECT_TRUE(Check(a, r, Req(RuleKind::kAllclose)).passed);
  CompareReport rep = Check(a, r, Req(RuleKind::kExact));
  EXPECT_FALSE(rep.passed);
  EXPECT_EQ(rep.mismatches, 1);
  EXPECT_FALSE(
      CompareTensors(Vec({1.0}, DType::kF16), Vec({1.0}), nullptr, Req(RuleKind::kExact)).ok());
}

TEST(CompareRulesTest, ExactDistinguishesLargeIntegersDoubleCannot) {
  Tensor r = Tensor::Zeros(DType::kI64, {1});
  Tensor a = Tensor::Zeros(DType::kI64, {1});
  r.Set<int64_t>(std::vector<int64_t>{0}, (int64_t{1} << 60));
  a.Set<int64_t>(std::vector<int64_t>{0}, (int64_t{1} << 60) + 1);
  EXPECT_FALSE(Check(a, r, Req(RuleKind::kExact)).passed);
}

TEST(CompareRulesTest, TorchDefaultsFollowTheLooserDtype) {
  Tensor r = Vec({1.0}, DType::kF32);
  Tensor a = Vec({1.0078125}, DType::kBF16);  // one bf16 ulp above 1: rel 0.0078 < 1.6e-2
  CompareReport rep = Check(a, r, Req(RuleKind::kAllclose));
  EXPECT_TRUE(rep.passed);
  EXPECT_DOUBLE_EQ(rep.rule.rtol, 1.6e-2);
  EXPECT_DOUBLE_EQ(rep.rule.atol, 1e-5);
  EXPECT_NE(rep.rule.defaults_source.find("torch"), std::string::npos);
  // fp8 has no torch default: exact.
  Tensor f8a = Vec({1.0, 2.0}, DType::kF8E4M3FN);
  Tensor f8b = Vec({1.0, 2.25}, DType::kF8E4M3FN);  // adjacent e4m3fn codes
  CompareReport f8 = Check(f8a, f8b, Req(RuleKind::kAllclose));
  EXPECT_FALSE(f8.passed);
  EXPECT_EQ(f8.rule.rtol, 0.0);
}

TEST(CompareRulesTest, FlagsARuleDoesNotReadAreErrors) {
  Tensor r = Vec({1.0});
  RuleRequest bad = Req(RuleKind::kAllclose);
  bad.k = 3;
  EXPECT_FALSE(CompareTensors(r, r, nullptr, bad).ok());
  RuleRequest neg = Req(RuleKind::kFlashMla);
  neg.atol = -1;
  EXPECT_FALSE(CompareTensors(r, r, nullptr, neg).ok());
  RuleRequest eq = Req(RuleKind::kFlashMla);
  eq.equal_nan = true;
  EXPECT_FALSE(CompareTensors(r, r, nullptr, eq).ok());
}

TEST(CompareTest, ShapeMismatchIsAnInputError) {
  auto rep = CompareTensors(Make(DType::kF32, {2, 3}, std::vector<double>(6)),
                            Make(DType::kF32, {3, 2}, std::vector<double>(6)), nullptr,
                            Req(RuleKind::kAllclose));
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.status().message().find("[2, 3]"), std::string::npos);
}

TEST(CompareTest, BreakdownFindsTheBadRowAndHead) {
  // [rows 8, heads 4, channels 16]; errors only in row 5, head 2.
  Shape shape{8, 4, 16};
  std::vector<double> ref(8 * 4 * 16), cand;
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = std::cos(static_cast<double>(i));
  cand = ref;
  for (int c = 0; c < 16; c += 2) cand[(5 * 4 + 2) * 16 + static_cast<size_t>(c)] += 1.0;
  CompareReport rep = Check(Make(DType::kF32, shape, cand), Make(DType::kF32, shape, ref),
                            Req(RuleKind::kAllclose));
  EXPECT_EQ(rep.mismatches, 8);
  ASSERT_EQ(rep.breakdown.size(), 3u);
  EXPECT_EQ(rep.breakdown[0].indices_touched, 1);
  EXPECT_EQ(rep.breakdown[0].top[0].begin, 5);
  EXPECT_DOUBLE_EQ(rep.breakdown[0].top[0].fraction, 1.0);
  EXPECT_EQ(rep.breakdown[1].top[0].begin, 2);
  EXPECT_EQ(rep.breakdown[2].indices_touched, 8);
  EXPECT_EQ(rep.worst_abs[0].index[0], 5);
  EXPECT_EQ(rep.worst_abs[0].index[1], 2);
}

TEST(CompareTest, LongAxesAreBucketed) {
  const int64_t n = 3 * kMaxAxisBuckets + 5;
  std::vector<double> ref(static_cast<size_t>(n), 1.0), cand = ref;
  cand[static_cast<size_t>(n - 1)] = 2.0;
  CompareReport rep = Check(Vec(cand), Vec(ref), Req(RuleKind::kAllclose));
  ASSERT_EQ(rep.breakdown.size(), 1u);
  EXPECT_EQ(rep.breakdown[0].bucket, 4);
  EXPECT_EQ(rep.breakdown[0].top[0].begin, n - 1 - (n - 1) % 4);
  EXPECT_EQ(rep.breakdown[0].top[0].end, n);
}

TEST(CompareTest, StridedInputsGiveTheSameReport) {
  std::vector<double> ref(6 * 7), cand(6 * 7);
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = static_cast<double>(i) * 0.25;
    cand[i] = ref[i] + (i % 5 == 0 ? 1e-3 : 0.0);
  }
  Tensor r = Make(DType::kF32, {6, 7}, ref), a = Make(DType::kF32, {6, 7}, cand);
  std::vector<int> t{1, 0};
  Tensor rt = r.Permute(t)->Contiguous(), at = a.Permute(t)->Contiguous();
  // Transpose back as views: strided, same logical values as r and a.
  Tensor rv = *rt.Permute(t), av = *at.Permute(t);
  ASSERT_FALSE(rv.is_contiguous());
  CompareReport flat = Check(a, r, Req(RuleKind::kAllclose));
  CompareReport strided = Check(av, rv, Req(RuleKind::kAllclose));
  EXPECT_EQ(flat.mismatches, strided.mismatches);
  EXPECT_EQ(flat.metrics.max_abs, strided.metrics.max_abs);
  EXPECT_EQ(flat.metrics.cos_diff, strided.metrics.cos_diff);
  EXPECT_EQ(flat.worst_abs[0].index, strided.worst_abs[0].index);
  EXPECT_TRUE(Check(av, rv, Req(RuleKind::kExact)).passed == false);
}

TEST(CompareTest, EmptyTensorsPassElementRules) {
  Tensor e = Make(DType::kF32, {0, 4}, {});
  EXPECT_TRUE(Check(e, e, Req(RuleKind::kAllclose)).passed);
  EXPECT_EQ(Check(e, e, Req(RuleKind::kAllclose)).metrics.compared, 0);
}

}  // namespace
}  // namespace av
