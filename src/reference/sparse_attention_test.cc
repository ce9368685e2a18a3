// Sparse top-k attention: with every key listed it is dense attention; invalid indices
// (-1, negative, >= s_kv, past topk_length) are masked; all-invalid rows give o = 0.
#include "reference/sparse_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::HasNaN;
using testing::IntTensor;
using testing::MaxRelDiff;
using testing::RandomTensor;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SparseAttentionTest, AllKeysListedInAnyOrderEqualsDenseAttention) {
  std::mt19937_64 rng(41);
  const int64_t s_q = 3, s_kv = 9, h_q = 4, h_kv = 2, d = 8, dv = 5;
  SparseAttentionInputs in;
  in.q = RandomTensor(rng, {s_q, h_q, d});
  in.kv = RandomTensor(rng, {s_kv, h_kv, d});
  std::vector<int64_t> idx;
  for (int64_t r = 0; r < s_q * h_kv; ++r) {
    std::vector<int64_t> perm(s_kv);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    idx.insert(idx.end(), perm.begin(), perm.end());
  }
  in.indices = IntTensor(idx, {s_q, h_kv, s_kv});
  SparseAttentionParams sp;
  sp.head_dim_v = dv;
  auto sparse = ComputeSparseAttention(in, sp);
  ASSERT_TRUE(sparse.ok()) << sparse.status().message();
  AttentionInputs dense;
  dense.q = *in.q.Reshape({1, s_q, h_q, d});
  dense.k = *in.kv.Reshape({1, s_kv, h_kv, d});
  dense.v = dense.k.Slice(3, 0, dv)->Contiguous();
  auto ref = ComputeAttention(dense, {});
  ASSERT_TRUE(ref.ok());
  EXPECT_LE(MaxRelDiff(*sparse->o.Reshape({1, s_q, h_q, dv}), ref->o), 1e-14);
  F64Array l = LoadF64(sparse->lse), lr = LoadF64(ref->lse);
  for (int64_t i = 0; i < s_q; ++i)
    for (int64_t h = 0; h < h_q; ++h) EXPECT_NEAR(l(i, h), lr(0, h, i), 1e-14);
}

TEST(SparseAttentionTest, InvalidIndicesAreMaskedAndNeverRead) {
  std::mt19937_64 rng(42);
  const int64_t s_kv = 6;
  SparseAttentionInputs in;
  in.q = RandomTensor(rng, {1, 1, 4});
  F64Array kv = LoadF64(RandomTensor(rng, {s_kv, 1, 4}));
  for (int64_t c = 0; c < 4; ++c) kv(5, 0, c) = std::numeric_limits<double>::quiet_NaN();
  in.kv = kv.ToTensor();
  in.indices = IntTensor({2, -1, 4, -7, 6, 1 << 30, 0}, {1, 1, 7});
  auto noisy = ComputeSparseAttention(in, {});
  in.indices = IntTensor({2, 4, 0}, {1, 1, 3});
  auto clean = ComputeSparseAttention(in, {});
  ASSERT_TRUE(noisy.ok() && clean.ok());
  EXPECT_FALSE(HasNaN(noisy->o));
  EXPECT_EQ(MaxRelDiff(noisy->o, clean->o), 0.0);
  EXPECT_EQ(MaxRelDiff(noisy->lse, clean->lse), 0.0);
}

TEST(SparseAttentionTest, AllInvalidRowGivesZeroAndFlashMlaLse) {
  std::mt19937_64 rng(43);
  SparseAttentionInputs in;
  in.q = RandomTensor(rng, {2, 2, 4});
  in.kv = RandomTensor(rng, {3, 1, 4});
  in.indices = IntTensor({-1, 3, 0, 2}, {2, 1, 2});  // row 0: nothing valid
  for (EmptyLse e : {EmptyLse::kPosInf, EmptyLse::kNegInf}) {
    SparseAttentionParams p;
    p.empty_lse = e;
    auto out = ComputeSparseAttention(in, p);
    ASSERT_TRUE(out.ok());
    F64Array o = LoadF64(out->o), lse = LoadF64(out->lse), mx = LoadF64(out->max_logits);
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(o(0, h, c), 0.0);
      EXPECT_EQ(lse(0, h), e == EmptyLse::kPosInf ? kInf : -kInf);
      EXPECT_EQ(mx(0, h), -kInf);
      EXPECT_TRUE(std::isfinite(lse(1, h)));
    }
  }
}

TEST(SparseAttentionTest, TopkLengthDuplicatesAndSinkByHand) {
  // One query (1), keys k = (0), (2); scale 1: scores 0 and 2. indices (1, 1, 0, 0) with
  // topk_length 3: key 1 twice, key 0 once -> weights 2e^2 / (2e^2 + 1) and 1 / (2e^2 + 1).
  SparseAttentionInputs in;
  F64Array q = F64Array::Zeros({1, 1, 1}), kv = F64Array::Zeros({2, 1, 1});
  q.data = {1};
  kv.data = {0, 2};
  in.q = q.ToTensor();
  in.kv = kv.ToTensor();
  in.indices = IntTensor({1, 1, 0, 0}, {1, 1, 4});
  in.topk_length = IntTensor({3}, {1});
  SparseAttentionParams p;
  p.sm_scale = 1.0;
  auto out = ComputeSparseAttention(in, p);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const double e2 = std::exp(2.0), lse = std::log(2 * e2 + 1);
  EXPECT_NEAR(LoadF64(out->o).data[0], 2 * (2 * e2) / (2 * e2 + 1), 1e-15);  // v = k
  EXPECT_NEAR(LoadF64(out->lse).data[0], lse, 1e-15);
  EXPECT_EQ(LoadF64(out->max_logits).data[0], 2.0);
  F64Array sink = F64Array::Zeros({1});
  sink.data = {1.5};
  in.attn_sink = sink.ToTensor();
  auto sunk = ComputeSparseAttention(in, p);
  ASSERT_TRUE(sunk.ok());
  EXPECT_NEAR(LoadF64(sunk->o).data[0], LoadF64(out->o).data[0] / (1 + std::exp(1.5 - lse)), 1e-15);
}

}  // namespace
}  // namespace av
