// MLA decode in FlashMLA's layout (d = 576, dv = 512, page 64, h_kv = 1) equals batched
// attention over the gathered cache with V = K[..., :512]; NaN-poisoned pages and a random
// block table change nothing; causal only matters for s_q > 1; empty rows report +inf.
#include "reference/mla_decode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::HasNaN;
using testing::IntTensor;
using testing::RandomTensor;

struct MlaCase {
  MlaDecodeInputs in;
  AttentionInputs gathered;  // batched K/V holding the same keys
};

MlaCase MakeCase(std::mt19937_64& rng, int64_t b, int64_t s_q, int64_t h_q,
                 const std::vector<int64_t>& lens) {
  const int64_t d = 576, dv = 512, page = 64;
  const int64_t max_len = std::max<int64_t>(1, *std::max_element(lens.begin(), lens.end()));
  const int64_t max_blocks = (max_len + page - 1) / page, blocks = b * max_blocks;
  MlaCase c;
  c.in.q = RandomTensor(rng, {b, s_q, h_q, d}, DType::kBF16);
  F64Array cache = F64Array::Zeros({blocks, page, 1, d});
  std::fill(cache.data.begin(), cache.data.end(), std::numeric_limits<double>::quiet_NaN());
  std::vector<int64_t> perm(static_cast<size_t>(blocks));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  F64Array k = F64Array::Zeros({b, max_len, 1, d});
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t bb = 0; bb < b; ++bb)
    for (int64_t j = 0; j < lens[bb]; ++j) {
      const int64_t phys = perm[size_t(bb * max_blocks + j / page)];
      for (int64_t ch = 0; ch < d; ++ch) {
        k(bb, j, 0, ch) = dist(rng);
        cache(phys, j % page, 0, ch) = k(bb, j, 0, ch);
      }
    }
  c.in.k_cache = cache.ToTensor(DType::kF32);
  c.in.block_table = IntTensor(perm, {b, max_blocks});
  c.in.cache_seqlens = IntTensor(lens, {b});
  c.gathered.q = c.in.q;
  c.gathered.k = k.ToTensor(DType::kF32);
  c.gathered.v = c.gathered.k.Slice(3, 0, dv)->Contiguous();
  c.gathered.seqlens_k = c.in.cache_seqlens;
  return c;
}

TEST(AttentionMlaDecodeTest, EqualsBatchedAttentionOverTheGatheredCache) {
  std::mt19937_64 rng(21);
  for (int64_t s_q : {1, 2, 4}) {
    for (int64_t h_q : {1, 16}) {
      MlaCase c = MakeCase(rng, 3, s_q, h_q, {140, 0, 20});
      for (bool causal : {false, true}) {
        MlaDecodeParams mp;
        mp.causal = causal;
        auto mla = ComputeMlaDecode(c.in, mp);
        ASSERT_TRUE(mla.ok()) << mla.status().message();
        AttentionParams ap;
        ap.mask.causal = causal;
        ap.empty_lse = EmptyLse::kPosInf;
        auto ref = ComputeAttention(c.gathered, ap);
        ASSERT_TRUE(ref.ok());
        EXPECT_EQ(mla->o.shape(), (Shape{3, s_q, h_q, 512}));
        EXPECT_FALSE(HasNaN(mla->o));
        EXPECT_TRUE(BitwiseEqual(mla->o, ref->o)) << "s_q " << s_q << " h_q " << h_q;
        EXPECT_TRUE(BitwiseEqual(mla->lse, ref->lse));
        // Batch 1 has no keys: o = 0 and FlashMLA's +inf LSE.
        F64Array lse = LoadF64(mla->lse);
        EXPECT_EQ(lse(1, 0, 0), std::numeric_limits<double>::infinity());
      }
    }
  }
}

TEST(AttentionMlaDecodeTest, CausalChangesNothingForOneQueryRow) {
  std::mt19937_64 rng(22);
  MlaCase one = MakeCase(rng, 2, 1, 4, {65, 3});
  MlaDecodeParams plain, causal;
  causal.causal = true;
  auto a = ComputeMlaDecode(one.in, plain), b = ComputeMlaDecode(one.in, causal);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(BitwiseEqual(a->o, b->o));
  MlaCase two = MakeCase(rng, 2, 2, 4, {65, 3});
  a = ComputeMlaDecode(two.in, plain);
  b = ComputeMlaDecode(two.in, causal);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(BitwiseEqual(a->o, b->o));  // row 0 of s_q = 2 loses the last key
}

TEST(AttentionMlaDecodeTest, RejectsHeadDimVLargerThanTheCache) {
  std::mt19937_64 rng(23);
  MlaCase c = MakeCase(rng, 1, 1, 1, {5});
  MlaDecodeParams p;
  p.head_dim_v = 600;
  auto out = ComputeMlaDecode(c.in, p);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("head_dim_v"), std::string::npos);
}

}  // namespace
}  // namespace av
