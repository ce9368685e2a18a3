// Fast split-k partials against the float64 oracle's: per split within 2e-6 * max|o_s|
// (the fast path's tolerance, fast_attention_test.cc) over explicit plans with empty
// splits and FlashMLA scheduler plans at block-edge lengths; their combine against unsplit
// oracle attention; bitwise equality across thread counts; the ref op's `--impl fast`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"
#include "reference/splitk.h"

namespace av {
namespace {

using testing::Named;

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::RandomTensor;

const std::vector<int64_t>& kLens = testing::kSplitkLens;

AttentionInputs Case(std::mt19937_64& rng, bool with_sink) {
  return testing::SplitkCase(rng, with_sink, 24, 16);
}

std::vector<SplitPlan> Plans() { return testing::SplitkPlans(); }

// Split s of o_accum [total, s_q, h_q, dv] within rel * max|o_s| of the oracle's, and its
// lse within rel * max(1, |lse|) (equal infinities equal).
void ExpectSplitsClose(const SplitPartials& fast, const SplitPartials& oracle, double rel) {
  ASSERT_EQ(fast.o_accum.shape(), oracle.o_accum.shape());
  ASSERT_EQ(fast.lse_accum.shape(), oracle.lse_accum.shape());
  const F64Array fo = LoadF64(fast.o_accum), oo = LoadF64(oracle.o_accum);
  const F64Array fl = LoadF64(fast.lse_accum), ol = LoadF64(oracle.lse_accum);
  const int64_t total = fast.o_accum.dim(0);
  const size_t o_per = fo.data.size() / size_t(std::max<int64_t>(total, 1));
  const size_t l_per = fl.data.size() / size_t(std::max<int64_t>(total, 1));
  for (int64_t s = 0; s < total; ++s) {
    double scale = 0, err = 0;
    for (size_t n = s * o_per; n < (s + 1) * o_per; ++n) {
      ASSERT_FALSE(std::isnan(fo.data[n])) << "split " << s;
      scale = std::max(scale, std::fabs(oo.data[n]));
      err = std::max(err, std::fabs(fo.data[n] - oo.data[n]));
    }
    EXPECT_LE(err, rel * scale) << "split " << s << ", max |o_s| = " << scale;
    for (size_t n = s * l_per; n < (s + 1) * l_per; ++n) {
      if (std::isinf(ol.data[n])) {
        EXPECT_EQ(fl.data[n], ol.data[n]) << "split " << s << " lse[" << n << "]";
      } else {
        EXPECT_LE(std::fabs(fl.data[n] - ol.data[n]), rel * std::max(1.0, std::fabs(ol.data[n])))
            << "split " << s << " lse[" << n << "]";
      }
    }
  }
}

AttentionParams Masks(int trial) {
  AttentionParams p;
  p.mask.causal = trial % 2 == 1;
  p.mask.window_left = trial % 3 == 0 ? 40 : -1;
  p.softcap = trial % 4 == 2 ? 2.0 : 0.0;
  return p;
}

TEST(FastSplitKTest, PartialsMatchOraclePerSplit) {
  std::mt19937_64 rng(101);
  const AttentionInputs in = Case(rng, /*with_sink=*/false);
  const std::vector<SplitPlan> plans = Plans();
  for (size_t n = 0; n < plans.size(); ++n) {
    for (int trial = 0; trial < 4; ++trial) {
      SCOPED_TRACE("plan " + std::to_string(n) + ", trial " + std::to_string(trial));
      const AttentionParams p = Masks(trial);
      auto oracle = ComputeSplitPartials(in, p, plans[n], /*round_to_f32=*/false);
      ASSERT_TRUE(oracle.ok()) << oracle.status().message();
      for (bool f32 : {false, true}) {
        auto fast = ComputeSplitPartialsFast(in, p, plans[n], {}, f32);
        ASSERT_TRUE(fast.ok()) << fast.status().message();
        EXPECT_EQ(fast->o_accum.dtype(), DType::kF32);
        EXPECT_EQ(fast->lse_accum.dtype(), f32 ? DType::kF32 : DType::kF64);
        ExpectSplitsClose(*fast, *oracle, 2e-6);
      }
    }
  }
}

// Combined o = sum_s w_s o_s, w_s = exp(lse_s - lse): |Δo| <= max|Δo_s| + max|o_s| ·
// sum_s w_s |Δlse_s - Δlse| <= (2e-6 + 2 · 2e-6 · L) · max|v|, and |Δlse| <= 2e-6 · L, with
// L = max(1, |lse_s|) <= log(s_k) + sqrt(d) (inputs in [-1, 1]: |score| <= d / sqrt(d)) and
// MaxRelDiff's floor of 1 >= max|v|. Float32 storage of o_s, lse_s adds 2^-24 relative.
double CombinedTolerance(int64_t s_k, int64_t d) {
  const double lse_bound = std::log(double(s_k)) + std::sqrt(double(d));
  return 2e-6 * (1 + 2 * lse_bound) + std::ldexp(1.0, -24) * (1 + lse_bound);
}

TEST(FastSplitKTest, CombineOfFastPartialsMatchesUnsplitOracle) {
  std::mt19937_64 rng(102);
  const AttentionInputs in = Case(rng, /*with_sink=*/true);
  const std::vector<SplitPlan> plans = Plans();
  for (size_t n = 0; n < plans.size(); ++n) {
    for (int trial = 0; trial < 4; ++trial) {
      SCOPED_TRACE("plan " + std::to_string(n) + ", trial " + std::to_string(trial));
      const AttentionParams p = Masks(trial);
      auto whole = ComputeAttention(in, p);
      ASSERT_TRUE(whole.ok());
      auto parts = ComputeSplitPartialsFast(in, p, plans[n], {});
      ASSERT_TRUE(parts.ok()) << parts.status().message();
      auto merged =
          CombineSplits(parts->o_accum, parts->lse_accum,
                        IntTensor(plans[n].num_splits, {int64_t(kLens.size()) + 1}), in.sink, p);
      ASSERT_TRUE(merged.ok()) << merged.status().message();
      EXPECT_LE(testing::MaxRelDiff(merged->o, whole->o), CombinedTolerance(129, 24));
      EXPECT_LE(testing::MaxRelDiff(merged->lse, whole->lse), CombinedTolerance(129, 24));
    }
  }
}

TEST(FastSplitKTest, BitwiseIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(103);
  const AttentionInputs in = Case(rng, /*with_sink=*/false);
  AttentionParams p;
  p.mask.causal = true;
  for (const SplitPlan& plan : Plans()) {
    auto one = ComputeSplitPartialsFast(in, p, plan, {.threads = 1});
    ASSERT_TRUE(one.ok()) << one.status().message();
    for (int threads : {2, 3}) {
      auto many = ComputeSplitPartialsFast(in, p, plan, {.threads = threads});
      ASSERT_TRUE(many.ok());
      EXPECT_TRUE(BitwiseEqual(many->o_accum, one->o_accum)) << threads << " threads";
      EXPECT_TRUE(BitwiseEqual(many->lse_accum, one->lse_accum)) << threads << " threads";
    }
  }
}

TEST(FastSplitKTest, RefOpImplFastMatchesOracle) {
  std::mt19937_64 rng(104);
  // Batched K/V with a FlashMLA plan, then the MLA layout (V inside a paged k_cache).
  NamedTensors batched = {{"q", RandomTensor(rng, {2, 2, 8, 32}, DType::kF32)},
                          {"k", RandomTensor(rng, {2, 640, 2, 32}, DType::kF32)},
                          {"v", RandomTensor(rng, {2, 640, 2, 16}, DType::kF32)},
                          {"seqlens_k", IntTensor({640, 65}, {2})}};
  NamedTensors mla = {{"q", RandomTensor(rng, {2, 1, 16, 48}, DType::kBF16)},
                      {"k_cache", RandomTensor(rng, {13, 32, 1, 48}, DType::kBF16)},
                      {"block_table", IntTensor({12, 3, 7,  0, 9, 1, 11, 4, 6, 2,  //
                                                 5,  8, 10, 0, 0, 0, 0,  0, 0, 0},
                                                {2, 10})},
                      {"cache_seqlens", IntTensor({300, 96}, {2})}};
  // 8 SM parts of payload 8 blocks cut batch 0 (10 blocks) into 4 splits: 5 in all; MLA:
  // 16 parts of payload 7 blocks cut batch 0 (5 blocks) into 3: 4 in all.
  const OpParams batched_params({{"num_sms", "16"}, {"causal", "1"}});
  const OpParams mla_params({{"num_sms", "16"}, {"head_dim_v", "32"}});
  for (auto [in, params] : {std::pair{&batched, &batched_params}, {&mla, &mla_params}}) {
    auto oracle = RunReferenceOp("attention_splitk", *in, *params);
    ASSERT_TRUE(oracle.ok()) << oracle.status().message();
    RefImpl fast_impl{.kind = ImplKind::kFast, .threads = 2};
    auto fast = RunReferenceOp("attention_splitk", *in, *params, fast_impl);
    ASSERT_TRUE(fast.ok()) << fast.status().message();
    EXPECT_TRUE(BitwiseEqual(Named(*fast, "split_ranges"), Named(*oracle, "split_ranges")));
    EXPECT_GT(Named(*fast, "o_accum").dim(0), 2);             // the plan really splits
    EXPECT_EQ(Named(*fast, "o_accum").dtype(), DType::kF64);  // out_dtype's default
    // Both sides' partials are float32-rounded (partials_f32), |v| <= 1, s_k <= 640, d <= 48.
    const double tol = CombinedTolerance(640, 48);
    EXPECT_LE(testing::MaxRelDiff(Named(*fast, "o_accum"), Named(*oracle, "o_accum")),
              2e-6 + std::ldexp(1.0, -23));
    EXPECT_LE(testing::MaxRelDiff(Named(*fast, "o"), Named(*oracle, "o")), tol);
    EXPECT_LE(testing::MaxRelDiff(Named(*fast, "lse"), Named(*oracle, "lse")), tol);
    // The fast combine is the oracle's, bit for bit.
    NamedTensors parts = {{"o_accum", Named(*fast, "o_accum")},
                          {"lse_accum", Named(*fast, "lse_accum")},
                          {"num_splits", Named(*fast, "num_splits")}};
    auto merged = RunReferenceOp("combine", parts, {}, fast_impl);
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_TRUE(BitwiseEqual(Named(*merged, "o"), Named(*fast, "o")));
    EXPECT_TRUE(BitwiseEqual(Named(*merged, "lse"), Named(*fast, "lse")));
  }
}

}  // namespace
}  // namespace av
