// The low-precision reference against the float64 oracle: within the dtype's expected
// error (derived below), visibly rounded (not secretly float32), and bitwise reproducible
// for any thread count.
#include "reference/lowprec_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "reference/ref_test_util.h"
#include "tensor/float_convert.h"

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

// A float64 input was rounded to float32 and then to bf16: -0x1.22ffff4a3aa44p-2 lies just
// below a bf16 midpoint, is that midpoint in float32 and tied to even away from its nearest
// bf16. The documented rounding (doc/ops.md, doc/dtypes.md) is once, from the double: the
// lowprec output on float64 inputs must equal the output on those inputs already rounded
// once to bf16 (for which the rounding is a no-op), and differ from the float32 detour.
TEST(LowprecAttentionTest, Float64InputsRoundOnceNotThroughFloat32) {
  std::mt19937_64 rng(15);
  const double tricky = -0x1.22ffff4a3aa44p-2;
  ASSERT_EQ(BFloat16ToFloat(DoubleToBFloat16(tricky)), -0x1.22p-2f);  // nearest, once
  ASSERT_EQ(BFloat16ToFloat(FloatToBFloat16(static_cast<float>(tricky))), -0x1.24p-2f);
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, 7, 2, 16});
  F64Array k = LoadF64(RandomTensor(rng, {1, 9, 2, 16})), v = LoadF64(RandomTensor(rng, {1, 9, 2, 16}));
  k(0, 3, 0, 5) = v(0, 3, 0, 5) = tricky;
  in.k = k.ToTensor();
  in.v = v.ToTensor();
  AttentionInputs once = in, via_f32 = in;
  auto rounded = [](const Tensor& t, bool through_f32) {
    F64Array a = LoadF64(t);
    for (double& x : a.data)
      x = through_f32 ? BFloat16ToFloat(FloatToBFloat16(static_cast<float>(x)))
                      : BFloat16ToFloat(DoubleToBFloat16(x));
    return a.ToTensor();
  };
  for (auto [t, o, f] : {std::tuple{&in.q, &once.q, &via_f32.q}, {&in.k, &once.k, &via_f32.k},
                         {&in.v, &once.v, &via_f32.v}}) {
    *o = rounded(*t, false);
    *f = rounded(*t, true);
  }
  AttentionParams p;
  p.scale = 1.0;  // q' = R(R(q) * 1) = R(q): the scale adds no rounding of its own
  auto out = ComputeAttentionLowprec(in, p, {DType::kBF16, 1});
  auto out_once = ComputeAttentionLowprec(once, p, {DType::kBF16, 1});
  auto out_f32 = ComputeAttentionLowprec(via_f32, p, {DType::kBF16, 1});
  ASSERT_TRUE(out.ok() && out_once.ok() && out_f32.ok());
  EXPECT_TRUE(BitwiseEqual(out->o, out_once->o));
  EXPECT_TRUE(BitwiseEqual(out->lse, out_once->lse));
  EXPECT_FALSE(BitwiseEqual(out->o, out_f32->o));  // the detour would be visible
}

}  // namespace
}  // namespace av
