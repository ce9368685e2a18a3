// The fast sparse attention against the float64 oracle: topk around the 64-key block,
// invalid indices (-1, negative, >= s_kv, past topk_length) pointing at NaN rows that must
// never be read, duplicates, all-invalid rows (o = 0, FlashMLA's lse), a sink, MLA-style
// head_dim_v < d, and bitwise equality across thread counts. Tolerance as the fast
// attention's (fast_attention_test.cc): |Δo| <= 2e-6 max|o|, |Δlse| <= 2e-6 max(1, |lse|).
#include "reference/sparse_attention_fast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::RandomTensor;

void ExpectClose(const SparseAttentionOutputs& fast, const SparseAttentionOutputs& oracle) {
  ASSERT_EQ(fast.o.shape(), oracle.o.shape());
  const F64Array a = LoadF64(fast.o), b = LoadF64(oracle.o);
  double scale = 0, err = 0;
  for (size_t n = 0; n < a.data.size(); ++n) {
    ASSERT_FALSE(std::isnan(a.data[n])) << "o[" << n << "] is NaN";
    scale = std::max(scale, std::fabs(b.data[n]));
    err = std::max(err, std::fabs(a.data[n] - b.data[n]));
  }
  EXPECT_LE(err, 2e-6 * scale) << "max |o| = " << scale;
  for (auto [x, y] : {std::pair{&fast.lse, &oracle.lse}, {&fast.max_logits, &oracle.max_logits}}) {
    ASSERT_EQ(x->shape(), y->shape());
    const F64Array fx = LoadF64(*x), fy = LoadF64(*y);
    for (size_t n = 0; n < fx.data.size(); ++n) {
      if (std::isinf(fy.data[n])) {
        EXPECT_EQ(fx.data[n], fy.data[n]) << n;
      } else {
        EXPECT_LE(std::fabs(fx.data[n] - fy.data[n]), 2e-6 * std::max(1.0, std::fabs(fy.data[n])))
            << n;
      }
    }
  }
}

// The last two kv rows are NaN and appear only past topk_length, where they must not be
// read. Lists mix valid keys (repeats possible), -1, -7, s_kv and s_kv + 3; row 1's list is all
// -1, row 2 has topk_length 0.
SparseAttentionInputs Case(std::mt19937_64& rng, int64_t s_q, int64_t topk, int64_t h_q,
                           int64_t h_kv, int64_t d, bool sink) {
  const int64_t s_kv = 150;
  SparseAttentionInputs in;
  in.q = RandomTensor(rng, {s_q, h_q, d}, DType::kBF16);
  F64Array kv = LoadF64(RandomTensor(rng, {s_kv, h_kv, d}, DType::kBF16));
  for (int64_t j = s_kv - 2; j < s_kv; ++j)
    for (int64_t h = 0; h < h_kv; ++h)
      for (int64_t c = 0; c < d; ++c) kv(j, h, c) = std::nan("");
  in.kv = kv.ToTensor(DType::kBF16);
  std::vector<int64_t> idx, len;
  std::uniform_int_distribution<int64_t> key(0, s_kv - 3), kind(0, 9);
  for (int64_t i = 0; i < s_q; ++i) {
    len.push_back(i == 2 ? 0 : std::max<int64_t>(0, topk - i % 3));
    for (int64_t h = 0; h < h_kv; ++h)
      for (int64_t t = 0; t < topk; ++t) {
        const int64_t k = kind(rng);
        int64_t j = k == 0 ? -1 : k == 1 ? -7 : k == 2 ? s_kv + 3 : k == 3 ? s_kv : key(rng);
        if (i == 1) j = -1;
        if (t >= len.back()) j = s_kv - 1;  // NaN row past topk_length: must not be read
        idx.push_back(j);
      }
  }
  in.indices = IntTensor(idx, {s_q, h_kv, topk});
  in.topk_length = IntTensor(len, {s_q});
  if (sink) in.attn_sink = RandomTensor(rng, {h_q});
  return in;
}

TEST(FastSparseTest, MatchesOracleAroundBlockEdgesWithInvalidIndices) {
  std::mt19937_64 rng(201);
  for (int64_t topk : {1, 3, 63, 64, 65, 129}) {
    for (auto [h_q, h_kv, d, dv] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{4, 2, 24, 24},
                                    {16, 1, 96, 64},
                                    {3, 3, 8, 5}}) {
      SCOPED_TRACE("topk " + std::to_string(topk) + " h_q " + std::to_string(h_q));
      SparseAttentionInputs in = Case(rng, 5, topk, h_q, h_kv, d, /*sink=*/topk % 2 == 1);
      for (EmptyLse empty : {EmptyLse::kPosInf, EmptyLse::kNegInf}) {
        SparseAttentionParams sp;
        sp.head_dim_v = dv;
        sp.empty_lse = empty;
        auto oracle = ComputeSparseAttention(in, sp);
        ASSERT_TRUE(oracle.ok()) << oracle.status().message();
        auto fast = ComputeSparseAttentionFast(in, sp, {});
        ASSERT_TRUE(fast.ok()) << fast.status().message();
        ExpectClose(*fast, *oracle);
      }
    }
  }
}

TEST(FastSparseTest, AllInvalidRowsGiveZero) {
  std::mt19937_64 rng(202);
  SparseAttentionInputs in = Case(rng, 4, 10, 4, 2, 16, /*sink=*/true);
  auto fast = ComputeSparseAttentionFast(in, {}, {});
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  const F64Array o = LoadF64(fast->o), lse = LoadF64(fast->lse), ml = LoadF64(fast->max_logits);
  for (int64_t i : {1, 2}) {  // row 1: every index -1; row 2: topk_length 0
    for (int64_t h = 0; h < 4; ++h) {
      for (int64_t c = 0; c < 16; ++c) EXPECT_EQ(o(i, h, c), 0.0) << i;
      EXPECT_EQ(lse(i, h), std::numeric_limits<double>::infinity());  // FlashMLA's +inf
      EXPECT_EQ(ml(i, h), -std::numeric_limits<double>::infinity());
    }
  }
}

TEST(FastSparseTest, BitwiseIdenticalAcrossThreadCountsAndPortableKernels) {
  std::mt19937_64 rng(203);
  SparseAttentionInputs in = Case(rng, 7, 130, 8, 2, 40, /*sink=*/false);
  auto one = ComputeSparseAttentionFast(in, {}, {.threads = 1});
  ASSERT_TRUE(one.ok()) << one.status().message();
  for (int threads : {2, 3}) {
    auto many = ComputeSparseAttentionFast(in, {}, {.threads = threads});
    ASSERT_TRUE(many.ok());
    EXPECT_TRUE(BitwiseEqual(many->o, one->o)) << threads;
    EXPECT_TRUE(BitwiseEqual(many->lse, one->lse)) << threads;
    EXPECT_TRUE(BitwiseEqual(many->max_logits, one->max_logits)) << threads;
  }
  auto oracle = ComputeSparseAttention(in, {});
  auto portable = ComputeSparseAttentionFast(in, {}, {.allow_avx512 = false});
  ASSERT_TRUE(oracle.ok() && portable.ok());
  ExpectClose(*portable, *oracle);
}

TEST(FastSparseTest, RefOpImplFast) {
  std::mt19937_64 rng(204);
  SparseAttentionInputs s = Case(rng, 3, 20, 4, 1, 32, /*sink=*/true);
  NamedTensors in = {{"q", s.q},
                     {"kv", s.kv},
                     {"indices", s.indices},
                     {"topk_length", s.topk_length},
                     {"attn_sink", s.attn_sink}};
  const OpParams params(std::map<std::string, std::string>{{"head_dim_v", "16"}});
  auto fast =
      RunReferenceOp("sparse_attention", in, params, {.kind = ImplKind::kFast, .threads = 2});
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  SparseAttentionParams sp;
  sp.head_dim_v = 16;
  auto direct = ComputeSparseAttentionFast(s, sp, {.threads = 1});
  ASSERT_TRUE(direct.ok());
  ASSERT_EQ(fast->size(), 3u);
  EXPECT_EQ((*fast)[0].second.dtype(), DType::kF64);  // out_dtype's default
  EXPECT_TRUE(BitwiseEqual((*fast)[0].second, direct->o));
  EXPECT_TRUE(BitwiseEqual((*fast)[1].second, direct->lse));
  EXPECT_TRUE(BitwiseEqual((*fast)[2].second, direct->max_logits));
}

}  // namespace
}  // namespace av
