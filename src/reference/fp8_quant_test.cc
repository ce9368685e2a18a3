// DeepGEMM's FP8 recipes: scale shapes and values, ue8m0 powers of two, round trips within
// e4m3's half-ulp, exact round trips for representable inputs.
#include "reference/fp8_quant.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reference/ref_test_util.h"
#include "tensor/float_convert.h"

namespace av {
namespace {

using testing::RandomTensor;

TEST(Fp8QuantTest, CeilToUe8m0RoundsUpToPowersOfTwo) {
  EXPECT_EQ(CeilToUe8m0(1.0f), 1.0f);
  EXPECT_EQ(CeilToUe8m0(3.0f), 4.0f);
  EXPECT_EQ(CeilToUe8m0(0.3f), 0.5f);
  EXPECT_EQ(CeilToUe8m0(std::ldexp(1.0f, -10)), std::ldexp(1.0f, -10));
  EXPECT_EQ(CeilToUe8m0(std::nextafter(1.0f, 2.0f)), 2.0f);
  EXPECT_TRUE(std::isnan(CeilToUe8m0(NAN)));
}

// |deq - x| <= half an e4m3 ulp: 2^-4 |x| for normals, 2^-10 scale in the subnormal range.
void ExpectRoundTrip(const Tensor& x, const Tensor& deq, const Tensor& scales, int64_t row_group) {
  F64Array a = LoadF64(x), b = LoadF64(deq), s = LoadF64(scales);
  for (int64_t r = 0; r < a.dim(0); ++r)
    for (int64_t c = 0; c < a.dim(1); ++c) {
      const double scale = s(r / row_group, c / 128);
      const double xf = static_cast<float>(a(r, c));
      EXPECT_LE(std::fabs(b(r, c) - xf), std::max(std::fabs(xf) * 0x1p-4, scale * 0x1p-10) * 1.0001)
          << r << ", " << c;
    }
}

TEST(Fp8QuantTest, PerTokenScalesAndRoundTrip) {
  std::mt19937_64 rng(51);
  for (bool ue8m0 : {false, true}) {
    Tensor x = RandomTensor(rng, {3, 200}, DType::kBF16, -3, 3);  // k = 200: a partial group
    auto q = QuantizePerToken(x, ue8m0);
    ASSERT_TRUE(q.ok()) << q.status().message();
    EXPECT_EQ(q->data.dtype(), DType::kF8E4M3FN);
    EXPECT_EQ(q->scales.shape(), (Shape{3, 2}));
    F64Array xa = LoadF64(x), s = LoadF64(q->scales);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t g = 0; g < 2; ++g) {
        float amax = 0;
        for (int64_t c = g * 128; c < std::min<int64_t>(200, g * 128 + 128); ++c)
          amax = std::max(amax, static_cast<float>(std::fabs(xa(r, c))));
        const float plain = std::max(amax, 1e-4f) / 448.0f;
        EXPECT_EQ(s(r, g), ue8m0 ? CeilToUe8m0(plain) : plain);
      }
    auto deq = DequantizePerToken(q->data, q->scales);
    ASSERT_TRUE(deq.ok());
    ExpectRoundTrip(x, *deq, q->scales, 1);
  }
}

TEST(Fp8QuantTest, PerBlockScalesCover128By128Tiles) {
  std::mt19937_64 rng(52);
  Tensor x = RandomTensor(rng, {130, 129}, DType::kF32, -2, 2);
  auto q = QuantizePerBlock(x, false);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->scales.shape(), (Shape{2, 2}));
  F64Array xa = LoadF64(x), s = LoadF64(q->scales);
  float amax = 0;  // the bottom-right tile: rows 128..129, column 128
  for (int64_t r = 128; r < 130; ++r) amax = std::max(amax, float(std::fabs(xa(r, 128))));
  EXPECT_EQ(s(1, 1), amax / 448.0f);
  auto deq = DequantizePerBlock(q->data, q->scales);
  ASSERT_TRUE(deq.ok());
  ExpectRoundTrip(x, *deq, q->scales, 128);
}

TEST(Fp8QuantTest, ZeroInputUsesTheAmaxFloorAndRepresentableInputsRoundTripExactly) {
  auto q = QuantizePerToken(Tensor::Zeros(DType::kF32, {1, 4}), false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(LoadF64(q->scales).data[0], double(1e-4f / 448.0f));
  EXPECT_EQ(LoadF64(q->data).data, (std::vector<double>(4, 0.0)));
  // x = e4m3 values times 2^-3 with amax 448 * 2^-3: scale 2^-3 exactly, round trip exact.
  F64Array x = F64Array::Zeros({1, 5});
  x.data = {448, -0.015625, 3.5, -240, 0.5};
  for (double& v : x.data) v *= 0.125;
  auto exact = QuantizePerToken(x.ToTensor(DType::kF32), false);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(LoadF64(exact->scales).data[0], 0.125);
  auto deq = DequantizePerToken(exact->data, exact->scales);
  ASSERT_TRUE(deq.ok());
  EXPECT_EQ(LoadF64(*deq).data, x.data);
}

TEST(Fp8QuantTest, DequantizeRejectsMisshapedScales) {
  auto out = DequantizePerToken(Tensor::Zeros(DType::kF8E4M3FN, {4, 256}),
                                Tensor::Zeros(DType::kF32, {4, 1}));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("ceil(k/128)"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace av
