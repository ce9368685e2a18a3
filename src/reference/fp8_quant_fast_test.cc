// The fast FP8 quantisation recipes equal the oracle's bit for bit (data codes, scales and
// dequantised values), for both granularities, ue8m0, edge shapes around the 128 groups,
// strided and bf16/f64 inputs, zeros, huge and NaN values, and any thread count.
#include "reference/fp8_quant_fast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::Named;
using testing::RandomTensor;

bool SameBytes(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const Tensor x = a.Contiguous(), y = b.Contiguous();
  const size_t bytes = static_cast<size_t>(x.numel()) * x.element_size();
  return bytes == 0 || std::memcmp(x.data(), y.data(), bytes) == 0;
}

TEST(FastFp8QuantTest, BitwiseEqualToOracle) {
  std::mt19937_64 rng(601);
  for (int64_t rows : {1, 127, 129})
    for (int64_t k : {1, 128, 200})
      for (DType dt : {DType::kF64, DType::kBF16})
        for (bool block : {false, true})
          for (bool ue8m0 : {false, true}) {
            SCOPED_TRACE(::testing::Message() << rows << "x" << k << " " << DTypeName(dt)
                                              << " block " << block << " ue8m0 " << ue8m0);
            F64Array x = LoadF64(RandomTensor(rng, {rows, k}, DType::kF64, -500, 500));
            x.data[0] = 0;
            if (x.data.size() > 5) x.data[5] = 1e30;  // saturates / overflows to NaN code
            if (x.data.size() > 7) x.data[7] = std::numeric_limits<double>::quiet_NaN();
            const Tensor t = x.ToTensor(dt);
            auto fast = QuantizeFast(t, block, ue8m0, {.threads = 3});
            auto oracle = block ? QuantizePerBlock(t, ue8m0) : QuantizePerToken(t, ue8m0);
            ASSERT_TRUE(fast.ok() && oracle.ok()) << fast.status().message();
            EXPECT_TRUE(SameBytes(fast->data, oracle->data));
            EXPECT_TRUE(SameBytes(fast->scales, oracle->scales));
            auto back = DequantizeFast(fast->data, fast->scales, block, {.threads = 2});
            auto back_oracle = block ? DequantizePerBlock(oracle->data, oracle->scales)
                                     : DequantizePerToken(oracle->data, oracle->scales);
            ASSERT_TRUE(back.ok() && back_oracle.ok());
            EXPECT_TRUE(SameBytes(*back, *back_oracle));
          }
}

TEST(FastFp8QuantTest, StridedInputAndThreadCounts) {
  std::mt19937_64 rng(602);
  const Tensor wide = RandomTensor(rng, {300, 260}, DType::kF32, -3, 3);
  auto strided = wide.Slice(1, 1, 260, 2);  // [300, 130], channel stride 2
  ASSERT_TRUE(strided.ok());
  auto oracle = QuantizePerBlock(*strided, false);
  ASSERT_TRUE(oracle.ok());
  for (int threads : {1, 2, 5}) {
    auto fast = QuantizeFast(*strided, true, false, {.threads = threads});
    ASSERT_TRUE(fast.ok());
    EXPECT_TRUE(SameBytes(fast->data, oracle->data)) << threads;
    EXPECT_TRUE(SameBytes(fast->scales, oracle->scales)) << threads;
  }
}

TEST(FastFp8QuantTest, RefOpsImplFast) {
  std::mt19937_64 rng(603);
  const Tensor x = RandomTensor(rng, {130, 300}, DType::kBF16, -10, 10);
  RefImpl fast{.kind = ImplKind::kFast, .threads = 2};
  const OpParams params({{"granularity", "block"}, {"ue8m0", "true"}});
  auto q = RunReferenceOp("fp8_quant", {{"x", x}}, params, fast);
  auto q_oracle = RunReferenceOp("fp8_quant", {{"x", x}}, params);
  ASSERT_TRUE(q.ok() && q_oracle.ok()) << q.status().message();
  EXPECT_TRUE(SameBytes(Named(*q, "data"), Named(*q_oracle, "data")));
  EXPECT_TRUE(SameBytes(Named(*q, "scales"), Named(*q_oracle, "scales")));
  NamedTensors parts = {{"data", Named(*q, "data")}, {"scales", Named(*q, "scales")}};
  const OpParams block({{"granularity", "block"}, {"out_dtype", "f32"}});
  auto x_fast = RunReferenceOp("fp8_dequant", parts, block, fast);
  auto x_oracle = RunReferenceOp("fp8_dequant", parts, block);
  ASSERT_TRUE(x_fast.ok() && x_oracle.ok()) << x_fast.status().message();
  EXPECT_EQ(Named(*x_fast, "x").dtype(), DType::kF32);
  EXPECT_TRUE(SameBytes(Named(*x_fast, "x"), Named(*x_oracle, "x")));
  EXPECT_FALSE(DequantizeFast(Named(*q, "data"), Named(*q, "scales"), false, {}).ok());
}

// Both recipes left a NaN out of a group's amax (std::max skips it): x = ones with
// x[0][0] = NaN and x[0][1] = 448 gave scale 1 and codes 0x7f, 0x7e, 0x38, ...; DeepGEMM's
// torch recipe takes amax with torch's amax, which propagates NaN, so that group's scale is
// NaN and every code of it NaN. Groups without the NaN are untouched.
TEST(Fp8QuantTest, NanInAGroupMakesItsScaleAndEveryCodeNanAsTorchAmax) {
  F64Array x = F64Array::Zeros({130, 256});
  for (double& v : x.data) v = 1.0;
  x(0, 0) = std::numeric_limits<double>::quiet_NaN();
  x(0, 1) = 448;
  const Tensor t = x.ToTensor(DType::kF32);
  for (bool block : {false, true}) {
    auto oracle = block ? QuantizePerBlock(t, false) : QuantizePerToken(t, false);
    auto fast = QuantizeFast(t, block, false, {.threads = 2});
    ASSERT_TRUE(oracle.ok() && fast.ok());
    for (const Fp8Quantized* q : {&*oracle, &*fast}) {
      SCOPED_TRACE(::testing::Message() << (q == &*fast ? "fast" : "oracle") << " block "
                                        << block);
      const F64Array s = LoadF64(q->scales), d = LoadF64(q->data);
      EXPECT_TRUE(std::isnan(s(0, 0)));
      EXPECT_EQ(static_cast<float>(s(0, 1)), 1.0f / 448.0f);  // the next group: amax 1
      const int64_t rows = block ? 128 : 1;  // the rows sharing group (0, 0)'s scale
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < 128; ++c) ASSERT_TRUE(std::isnan(d(r, c))) << r << ", " << c;
      EXPECT_EQ(d(0, 128), 448.0);  // 1 / (1/448): the largest e4m3 value
      EXPECT_FALSE(std::isnan(d(rows, 0)));
    }
    EXPECT_TRUE(SameBytes(fast->data, oracle->data));
  }
}

}  // namespace
}  // namespace av
