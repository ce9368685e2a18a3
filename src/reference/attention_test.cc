// The attention oracle on cases small enough to check by hand, and the mask semantics
// (FACTS §2: bottom-right causal, window (left, right), empty rows) on shapes around edges.
#include "reference/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "reference/attention_mask.h"
#include "reference/ref_test_util.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

using testing::IntTensor;
using testing::RandomTensor;
constexpr double kInf = std::numeric_limits<double>::infinity();

F64Array Arr(Shape shape, std::vector<double> values) {
  F64Array a = F64Array::Zeros(std::move(shape));
  a.data = std::move(values);
  return a;
}

TEST(AttentionOracleTest, OneQueryTwoKeysByHand) {
  // q = (1, 0); k0 = (1, 0), k1 = (0, 1); scale 1/sqrt(2): s = (1/sqrt 2, 0).
  // p1 = 1 / (e^{1/sqrt 2} + 1) = 0.330238..., o = v0 + p1 (v1 - v0) = (1, 2) + 2 p1 (1, 1).
  AttentionInputs in;
  in.q = Arr({1, 1, 1, 2}, {1, 0}).ToTensor();
  in.k = Arr({1, 2, 1, 2}, {1, 0, 0, 1}).ToTensor();
  in.v = Arr({1, 2, 1, 2}, {1, 2, 3, 4}).ToTensor();
  auto out = ComputeAttention(in, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  F64Array o = LoadF64(out->o), lse = LoadF64(out->lse);
  EXPECT_EQ(o.shape, (Shape{1, 1, 1, 2}));
  EXPECT_EQ(lse.shape, (Shape{1, 1, 1}));
  EXPECT_NEAR(o(0, 0, 0, 0), 1.66047690, 1e-8);
  EXPECT_NEAR(o(0, 0, 0, 1), 2.66047690, 1e-8);
  EXPECT_NEAR(lse(0, 0, 0), 1.10794031, 1e-8);  // log(e^{1/sqrt 2} + 1)
}

TEST(AttentionOracleTest, LengthOneKeyReturnsItsValueAndScore) {
  AttentionInputs in;
  in.q = Arr({1, 1, 1, 2}, {2, 3}).ToTensor();
  in.k = Arr({1, 1, 1, 2}, {0.5, -1}).ToTensor();
  in.v = Arr({1, 1, 1, 3}, {7, -8, 9}).ToTensor();
  AttentionParams p;
  p.scale = 0.25;
  auto out = ComputeAttention(in, p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(LoadF64(out->o).data, (std::vector<double>{7, -8, 9}));  // p = 1 exactly
  EXPECT_DOUBLE_EQ(LoadF64(out->lse).data[0], 0.25 * (2 * 0.5 - 3));
}

// Which keys each row sees, read off o with V = identity (dv = s_k): weight of key j.
std::vector<std::vector<bool>> Visibility(int64_t s_q, int64_t s_k, const MaskSpec& mask,
                                          std::vector<double>* lse_out = nullptr) {
  std::mt19937_64 rng(7);
  F64Array eye = F64Array::Zeros({1, s_k, 1, s_k});
  for (int64_t j = 0; j < s_k; ++j) eye(0, j, 0, j) = 1;
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, s_q, 1, 4});
  in.k = RandomTensor(rng, {1, s_k, 1, 4});
  in.v = eye.ToTensor();
  AttentionParams p;
  p.mask = mask;
  auto out = ComputeAttention(in, p);
  EXPECT_TRUE(out.ok()) << out.status().message();
  F64Array o = LoadF64(out->o);
  std::vector<std::vector<bool>> seen(static_cast<size_t>(s_q),
                                      std::vector<bool>(static_cast<size_t>(s_k)));
  for (int64_t i = 0; i < s_q; ++i)
    for (int64_t j = 0; j < s_k; ++j) seen[i][j] = o(0, i, 0, j) > 0;
  if (lse_out) *lse_out = LoadF64(out->lse).data;
  return seen;
}

// FACTS §2 written out independently: masked iff j > i + sk - sq + right (right >= 0) or
// (left >= 0 and j < i + sk - sq - left); causal = (left, 0).
bool Expected(int64_t i, int64_t j, int64_t sq, int64_t sk, int64_t left, int64_t right) {
  if (right >= 0 && j > i + sk - sq + right) return false;
  if (left >= 0 && j < i + sk - sq - left) return false;
  return true;
}

TEST(AttentionMaskTest, CausalIsBottomRightAligned) {
  // s_q = 2, s_k = 3: row 0 sees keys 0, 1; row 1 sees 0, 1, 2.
  MaskSpec causal{true, -1, -1};
  auto seen = Visibility(2, 3, causal);
  EXPECT_EQ(seen, (std::vector<std::vector<bool>>{{true, true, false}, {true, true, true}}));
}

TEST(AttentionMaskTest, MoreQueriesThanKeysLeavesTopRowsEmpty) {
  // s_q = 4, s_k = 2 causal: rows 0 and 1 align before key 0 and see nothing.
  std::vector<double> lse;
  auto seen = Visibility(4, 2, MaskSpec{true, -1, -1}, &lse);
  EXPECT_EQ(seen, (std::vector<std::vector<bool>>{
                      {false, false}, {false, false}, {true, false}, {true, true}}));
  EXPECT_EQ(lse[0], -kInf);
  EXPECT_EQ(lse[1], -kInf);
  EXPECT_TRUE(std::isfinite(lse[2]));
}

TEST(AttentionMaskTest, WindowsMatchTheFormulaAroundEveryEdge) {
  const int64_t sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {3, 7}, {7, 3}, {6, 6}, {2, 9}};
  const int64_t windows[][2] = {{-1, -1}, {0, 0},  {1, 1}, {2, 0}, {-1, 0},   {0, -1},
                                {3, -1},  {-1, 2}, {0, 2}, {5, 5}, {100, 100}};
  for (const auto& sz : sizes) {
    for (const auto& w : windows) {
      for (bool causal : {false, true}) {
        const int64_t sq = sz[0], sk = sz[1];
        MaskSpec m{causal, w[0], w[1]};
        std::vector<double> lse;
        auto seen = Visibility(sq, sk, m, &lse);
        for (int64_t i = 0; i < sq; ++i) {
          bool any = false;
          for (int64_t j = 0; j < sk; ++j) {
            bool want = Expected(i, j, sq, sk, w[0], causal ? 0 : w[1]);
            any |= want;
            EXPECT_EQ(seen[i][j], want)
                << "s_q " << sq << " s_k " << sk << " window (" << w[0] << ", " << w[1]
                << ") causal " << causal << " row " << i << " key " << j;
          }
          EXPECT_EQ(std::isinf(lse[i]), !any);
        }
      }
    }
  }
}

TEST(AttentionOracleTest, ZeroLengthSequenceGivesZeroAndInfiniteLse) {
  std::mt19937_64 rng(1);
  AttentionInputs in;
  in.q = RandomTensor(rng, {2, 3, 2, 4});
  in.k = RandomTensor(rng, {2, 5, 2, 4});
  in.v = RandomTensor(rng, {2, 5, 2, 3});
  in.seqlens_k = IntTensor({0, 5}, {2});
  for (EmptyLse e : {EmptyLse::kNegInf, EmptyLse::kPosInf}) {
    AttentionParams p;
    p.empty_lse = e;
    auto out = ComputeAttention(in, p);
    ASSERT_TRUE(out.ok());
    F64Array o = LoadF64(out->o), lse = LoadF64(out->lse);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t h = 0; h < 2; ++h) {
        for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(o(0, i, h, c), 0.0);
        EXPECT_EQ(lse(0, h, i), e == EmptyLse::kNegInf ? -kInf : kInf);
        EXPECT_TRUE(std::isfinite(lse(1, h, i)));
      }
  }
}

TEST(AttentionOracleTest, Log2LseIsNaturalLseOverLn2) {
  std::mt19937_64 rng(2);
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, 2, 1, 4});
  in.k = RandomTensor(rng, {1, 3, 1, 4});
  in.v = RandomTensor(rng, {1, 3, 1, 4});
  AttentionParams p;
  auto natural = ComputeAttention(in, p);
  p.lse_log2 = true;
  auto log2 = ComputeAttention(in, p);
  ASSERT_TRUE(natural.ok() && log2.ok());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(LoadF64(log2->lse).data[i], LoadF64(natural->lse).data[i] / std::numbers::ln2,
                1e-15);
  }
}

// Two keys, V one-hot: o = softmax weights, compared with the formula applied by hand.
std::vector<double> TwoKeyWeights(const AttentionInputs& in, const AttentionParams& p) {
  auto out = ComputeAttention(in, p);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return LoadF64(out->o).data;
}

TEST(AttentionOracleTest, SoftcapAlibiAndSinkFollowTheFormulas) {
  AttentionInputs in;
  in.q = Arr({1, 1, 1, 1}, {3}).ToTensor();
  in.k = Arr({1, 2, 1, 1}, {2, -1}).ToTensor();
  in.v = Arr({1, 2, 1, 2}, {1, 0, 0, 1}).ToTensor();
  AttentionParams p;
  p.scale = 1.0;
  // Raw scores 6 and -3.
  auto w = TwoKeyWeights(in, p);
  EXPECT_NEAR(w[0], 1 / (1 + std::exp(-9.0)), 1e-15);
  p.softcap = 5;  // 5 tanh(6/5), 5 tanh(-3/5)
  w = TwoKeyWeights(in, p);
  double s0 = 5 * std::tanh(1.2), s1 = 5 * std::tanh(-0.6);
  EXPECT_NEAR(w[0], 1 / (1 + std::exp(s1 - s0)), 1e-15);
  p.softcap = 0;
  in.alibi_slopes = Arr({1}, {0.5}).ToTensor();  // one row aligned at key 1: bias -0.5, 0
  w = TwoKeyWeights(in, p);
  EXPECT_NEAR(w[0], 1 / (1 + std::exp(-3 - (6 - 0.5))), 1e-15);
  in.alibi_slopes = Tensor();
  in.sink = Arr({1}, {4}).ToTensor();  // o *= 1 / (1 + exp(sink - lse))
  w = TwoKeyWeights(in, p);
  double lse = std::log(std::exp(6.0) + std::exp(-3.0));
  EXPECT_NEAR(w[0], 1 / (1 + std::exp(-9.0)) / (1 + std::exp(4 - lse)), 1e-15);
  auto out = ComputeAttention(in, p);
  EXPECT_NEAR(LoadF64(out->lse).data[0], lse, 1e-14);  // the sink leaves lse alone
}

TEST(AttentionOracleTest, GqaEqualsMhaWithReplicatedKvHeads) {
  for (int64_t h_kv : {1, 2}) {
    for (int64_t ratio : {1, 2, 3, 4, 7, 8, 16, 32, 64, 128}) {
      std::mt19937_64 rng(uint64_t(ratio * 10 + h_kv));
      const int64_t h_q = h_kv * ratio, b = 1, s_q = 2, s_k = 3, d = 4, dv = 3;
      AttentionInputs gqa;
      gqa.q = RandomTensor(rng, {b, s_q, h_q, d});
      gqa.k = RandomTensor(rng, {b, s_k, h_kv, d});
      gqa.v = RandomTensor(rng, {b, s_k, h_kv, dv});
      F64Array k = LoadF64(gqa.k), v = LoadF64(gqa.v);
      F64Array kr = F64Array::Zeros({b, s_k, h_q, d}), vr = F64Array::Zeros({b, s_k, h_q, dv});
      for (int64_t j = 0; j < s_k; ++j)
        for (int64_t h = 0; h < h_q; ++h) {
          for (int64_t c = 0; c < d; ++c) kr(0, j, h, c) = k(0, j, h / ratio, c);
          for (int64_t c = 0; c < dv; ++c) vr(0, j, h, c) = v(0, j, h / ratio, c);
        }
      AttentionInputs mha = gqa;
      mha.k = kr.ToTensor();
      mha.v = vr.ToTensor();
      AttentionParams p;
      p.mask.causal = true;
      auto a = ComputeAttention(gqa, p), m = ComputeAttention(mha, p);
      ASSERT_TRUE(a.ok() && m.ok()) << a.status().message();
      EXPECT_TRUE(testing::BitwiseEqual(a->o, m->o)) << "ratio " << ratio;
      EXPECT_TRUE(testing::BitwiseEqual(a->lse, m->lse)) << "ratio " << ratio;
    }
  }
}

TEST(AttentionOracleTest, RejectsBadShapesWithTheTensorName) {
  std::mt19937_64 rng(3);
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, 2, 3, 4});
  in.k = RandomTensor(rng, {1, 2, 2, 4});  // 3 query heads, 2 kv heads
  in.v = RandomTensor(rng, {1, 2, 2, 4});
  auto out = ComputeAttention(in, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("multiple of kv heads"), std::string::npos);
  in.k = RandomTensor(rng, {1, 2, 3, 5});
  out = ComputeAttention(in, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("k: dimension 3 (d)"), std::string::npos)
      << out.status().message();
  in.k = RandomTensor(rng, {1, 2, 3, 4});
  in.v = RandomTensor(rng, {1, 2, 3, 4});
  in.seqlens_k = IntTensor({3}, {1});
  out = ComputeAttention(in, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("seqlens_k[0] = 3"), std::string::npos);
}

}  // namespace
}  // namespace av

namespace av {
namespace {

// The oracle's loops run key-outer over tiles of query rows (attention.cc); each score and
// each output element must still be the same float64 operations in the same order as the
// plain row-by-row loops written here, so results are bitwise equal (float64 inputs: any
// other order of a sum would round differently) — over GQA head
// groups that do not fill the 8-lane head blocks, a window, softcap, ALiBi and keys past
// the 16-key blocks.
TEST(AttentionOracleRegression, KeyOuterTilesEqualRowByRowLoopsBitwise) {
  std::mt19937_64 rng(11);
  const int64_t b = 2, s_q = 5, s_k = 37, h_q = 12, h_kv = 4, d = 40, dv = 24;
  AttentionInputs in;
  in.q = testing::RandomTensor(rng, {b, s_q, h_q, d}, DType::kF64);
  in.k = testing::RandomTensor(rng, {b, s_k, h_kv, d}, DType::kF64);
  in.v = testing::RandomTensor(rng, {b, s_k, h_kv, dv}, DType::kF64);
  in.alibi_slopes = testing::RandomTensor(rng, {h_q}, DType::kF32, 0, 0.5);
  AttentionParams params;
  params.mask.causal = true;
  params.mask.window_left = 20;
  params.softcap = 2.5;
  params.scale = 0.3;
  auto out = ComputeAttention(in, params);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const F64Array q = LoadF64(in.q), k = LoadF64(in.k), v = LoadF64(in.v);
  const F64Array slopes = LoadF64(in.alibi_slopes), o = LoadF64(out->o), lse = LoadF64(out->lse);
  int64_t checked = 0;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < s_q; ++i)
      for (int64_t h = 0; h < h_q; ++h) {
        const int64_t hk = h / (h_q / h_kv);
        std::vector<double> s;
        std::vector<int64_t> keys;
        for (int64_t j = 0; j < s_k; ++j) {
          if (!KeyVisible(params.mask, i, j, s_q, s_k)) continue;
          double x = 0;
          for (int64_t c = 0; c < d; ++c) x += q(bi, i, h, c) * k(bi, j, hk, c);
          x *= *params.scale;
          x = params.softcap * std::tanh(x / params.softcap);
          x += AlibiBias(slopes(h), i, j, s_q, s_k);
          s.push_back(x);
          keys.push_back(j);
        }
        RowSoftmax sm = SoftmaxOfRow(s);
        std::vector<double> want(static_cast<size_t>(dv), 0.0);
        for (size_t n = 0; n < keys.size(); ++n)
          for (int64_t c = 0; c < dv; ++c) want[c] += sm.p[n] * v(bi, keys[n], hk, c);
        for (int64_t c = 0; c < dv; ++c) ASSERT_EQ(o(bi, i, h, c), want[c]) << bi << i << h << c;
        ASSERT_EQ(lse(bi, h, i), sm.lse);
        checked += keys.empty() ? 0 : 1;
      }
  EXPECT_GT(checked, b * s_q * h_q / 2);
}

}  // namespace
}  // namespace av
