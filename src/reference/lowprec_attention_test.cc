// The low-precision reference against the float64 oracle: within the dtype's expected
// error (derived below), visibly rounded (not secretly float32), and bitwise reproducible
// for any thread count.
#include "reference/lowprec_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::RandomTensor;

// Max |o_lowprec - o_oracle|. o is a convex combination of v rows, so every error term is a
// multiple of eps * max|v| (max|v| = 1 here): rounding v (eps/2), P (eps/2 per weight,
// summed against |v|), O (eps/2), and S (q, k, scale q and S each eps/2 relative, moving
// each weight by about 2 eps |S| with |S| <= 1.5 here). 8 eps * max|v| covers the sum.
double MaxError(const AttentionOutputs& a, const AttentionOutputs& b) {
  F64Array x = LoadF64(a.o), y = LoadF64(b.o);
  double err = 0;
  for (size_t i = 0; i < x.data.size(); ++i) err = std::max(err, std::fabs(x.data[i] - y.data[i]));
  return err;
}

TEST(LowprecAttentionTest, WithinDtypeErrorOfOracle) {
  std::mt19937_64 rng(11);
  AttentionInputs in;
  in.q = RandomTensor(rng, {2, 65, 4, 32});
  in.k = RandomTensor(rng, {2, 130, 2, 32});
  in.v = RandomTensor(rng, {2, 130, 2, 24});
  in.seqlens_k = IntTensor({130, 7}, {2});
  for (DType dt : {DType::kBF16, DType::kF16}) {
    const double eps = dt == DType::kBF16 ? 0x1p-8 : 0x1p-11;
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dt) << " variant " << variant);
      AttentionParams p;
      p.mask.causal = variant & 1;
      if (variant & 2) p.softcap = 0.5, p.mask.window_left = 20;
      auto oracle = ComputeAttention(in, p);
      auto low = ComputeAttentionLowprec(in, p, {dt, 2});
      ASSERT_TRUE(oracle.ok() && low.ok());
      const double err = MaxError(*low, *oracle);
      EXPECT_LE(err, 8 * eps);
      EXPECT_GT(err, 0.01 * eps) << "no rounding happened";
      // lse is float32 throughout: within S's rounding (1.5 eps |S|) of the oracle.
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

TEST(LowprecAttentionTest, OutputsAreDtypeValues) {
  std::mt19937_64 rng(12);
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, 5, 2, 16});
  in.k = RandomTensor(rng, {1, 9, 2, 16});
  in.v = RandomTensor(rng, {1, 9, 2, 16});
  in.sink = RandomTensor(rng, {2});
  auto low = ComputeAttentionLowprec(in, {}, {DType::kBF16, 1});
  ASSERT_TRUE(low.ok());
  for (double x : LoadF64(low->o).data) {
    EXPECT_EQ(x, LoadF64(F64Array{{1}, {x}}.ToTensor(DType::kBF16)).data[0]);
  }
}

TEST(LowprecAttentionTest, BitwiseReproducibleAcrossThreads) {
  std::mt19937_64 rng(13);
  AttentionInputs in;
  in.q = RandomTensor(rng, {2, 40, 4, 32});
  in.k = RandomTensor(rng, {2, 50, 1, 32});
  in.v = RandomTensor(rng, {2, 50, 1, 32});
  AttentionParams p;
  p.mask.causal = true;
  auto ref = ComputeAttentionLowprec(in, p, {DType::kF16, 1});
  ASSERT_TRUE(ref.ok());
  for (int threads : {1, 2, 5}) {
    auto out = ComputeAttentionLowprec(in, p, {DType::kF16, threads});
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(BitwiseEqual(out->o, ref->o));
    EXPECT_TRUE(BitwiseEqual(out->lse, ref->lse));
  }
}

TEST(LowprecAttentionTest, RejectsNonHalfDtype) {
  std::mt19937_64 rng(14);
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, 1, 1, 4});
  in.k = in.v = RandomTensor(rng, {1, 1, 1, 4});
  EXPECT_FALSE(ComputeAttentionLowprec(in, {}, {DType::kF32, 1}).ok());
}

}  // namespace
}  // namespace av
