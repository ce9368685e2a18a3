// The layouts agree: varlen and paged KV give exactly the batched result for the same
// data, whatever the block table's order and page size, and NaN poison in pages past each
// length, in padding or under the mask never reaches an output (FlashMLA's test trick).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "reference/attention.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::HasNaN;
using testing::IntTensor;
using testing::RandomTensor;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

AttentionParams Causal(int64_t left = -1) {
  AttentionParams p;
  p.mask.causal = true;
  p.mask.window_left = left;
  return p;
}

TEST(AttentionLayoutTest, VarlenEqualsBatchedForEqualLengths) {
  std::mt19937_64 rng(11);
  const int64_t b = 3, s_q = 4, s_k = 6, h_q = 4, h_kv = 2, d = 8, dv = 5;
  AttentionInputs batched;
  batched.q = RandomTensor(rng, {b, s_q, h_q, d});
  batched.k = RandomTensor(rng, {b, s_k, h_kv, d});
  batched.v = RandomTensor(rng, {b, s_k, h_kv, dv});
  AttentionInputs varlen;
  varlen.q = *batched.q.Reshape({b * s_q, h_q, d});
  varlen.k = *batched.k.Reshape({b * s_k, h_kv, d});
  varlen.v = *batched.v.Reshape({b * s_k, h_kv, dv});
  varlen.cu_seqlens_q = IntTensor({0, 4, 8, 12}, {4});
  varlen.cu_seqlens_k = IntTensor({0, 6, 12, 18}, {4});
  for (const AttentionParams& p : {AttentionParams{}, Causal(), Causal(2)}) {
    auto x = ComputeAttention(batched, p), y = ComputeAttention(varlen, p);
    ASSERT_TRUE(x.ok() && y.ok()) << y.status().message();
    EXPECT_TRUE(BitwiseEqual(*x->o.Reshape({b * s_q, h_q, dv}), y->o));
    // varlen lse is [h_q, total_q]; batched [b, h_q, s_q].
    F64Array lb = LoadF64(x->lse), lv = LoadF64(y->lse);
    for (int64_t bb = 0; bb < b; ++bb)
      for (int64_t h = 0; h < h_q; ++h)
        for (int64_t i = 0; i < s_q; ++i) EXPECT_EQ(lb(bb, h, i), lv(h, bb * s_q + i));
  }
}

TEST(AttentionLayoutTest, VarlenWithUnequalAndZeroLengthsEqualsEachSequenceAlone) {
  std::mt19937_64 rng(12);
  const std::vector<int64_t> lq = {3, 0, 1, 5}, lk = {4, 2, 0, 9};
  const int64_t h = 2, d = 4;
  std::vector<int64_t> cq = {0}, ck = {0};
  for (size_t i = 0; i < lq.size(); ++i) {
    cq.push_back(cq.back() + lq[i]);
    ck.push_back(ck.back() + lk[i]);
  }
  AttentionInputs varlen;
  varlen.q = RandomTensor(rng, {cq.back(), h, d});
  varlen.k = RandomTensor(rng, {ck.back(), h, d});
  varlen.v = RandomTensor(rng, {ck.back(), h, d});
  varlen.cu_seqlens_q = IntTensor(cq, {5});
  varlen.cu_seqlens_k = IntTensor(ck, {5});
  auto all = ComputeAttention(varlen, Causal());
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_FALSE(HasNaN(all->o));
  for (size_t s = 0; s < lq.size(); ++s) {
    if (lq[s] == 0) continue;
    AttentionInputs one;
    one.q = *varlen.q.Slice(0, cq[s], cq[s + 1])->Contiguous().Reshape({1, lq[s], h, d});
    one.k = *varlen.k.Slice(0, ck[s], ck[s + 1])->Contiguous().Reshape({1, lk[s], h, d});
    one.v = *varlen.v.Slice(0, ck[s], ck[s + 1])->Contiguous().Reshape({1, lk[s], h, d});
    auto ref = ComputeAttention(one, Causal());
    ASSERT_TRUE(ref.ok());
    EXPECT_TRUE(BitwiseEqual(
        *all->o.Slice(0, cq[s], cq[s + 1])->Contiguous().Reshape({1, lq[s], h, d}), ref->o))
        << "sequence " << s;
  }
}

// Paged KV with a random block permutation equals batched K/V cut at seqlens_k; pages
// past each length, unused blocks and padding entries of the table are NaN / garbage.
TEST(AttentionLayoutTest, PagedWithRandomBlockTableAndNaNPoisonEqualsBatched) {
  for (int64_t page : {1, 3, 16, 64}) {
    std::mt19937_64 rng(static_cast<uint64_t>(page));
    const int64_t b = 3, s_q = 2, h_q = 4, h_kv = 1, d = 8, dv = 6;
    const std::vector<int64_t> lens = {0, 37, 70};
    const int64_t max_len = 70, max_blocks = (max_len + page - 1) / page;
    const int64_t blocks = b * max_blocks + 2;  // two blocks nobody uses
    AttentionInputs batched;
    batched.q = RandomTensor(rng, {b, s_q, h_q, d});
    batched.k = RandomTensor(rng, {b, max_len, h_kv, d});
    batched.v = RandomTensor(rng, {b, max_len, h_kv, dv});
    batched.seqlens_k = IntTensor(lens, {b});
    std::vector<int64_t> perm(static_cast<size_t>(blocks));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    F64Array kc = F64Array::Zeros({blocks, page, h_kv, d}),
             vc = F64Array::Zeros({blocks, page, h_kv, dv});
    std::fill(kc.data.begin(), kc.data.end(), kNaN);
    std::fill(vc.data.begin(), vc.data.end(), kNaN);
    std::vector<int64_t> table(size_t(b * max_blocks), -1);  // -1 past each length
    const F64Array k = LoadF64(batched.k), v = LoadF64(batched.v);
    for (int64_t bb = 0; bb < b; ++bb) {
      for (int64_t blk = 0; blk * page < lens[bb]; ++blk) {
        const int64_t phys = perm[size_t(bb * max_blocks + blk)];
        table[size_t(bb * max_blocks + blk)] = phys;
        for (int64_t o = 0; o < page && blk * page + o < lens[bb]; ++o) {
          for (int64_t c = 0; c < d; ++c) kc(phys, o, 0, c) = k(bb, blk * page + o, 0, c);
          for (int64_t c = 0; c < dv; ++c) vc(phys, o, 0, c) = v(bb, blk * page + o, 0, c);
        }
      }
    }
    AttentionInputs paged;
    paged.q = batched.q;
    paged.k_cache = kc.ToTensor();
    paged.v_cache = vc.ToTensor();
    paged.block_table = IntTensor(table, {b, max_blocks});
    paged.seqlens_k = batched.seqlens_k;
    for (const AttentionParams& p : {AttentionParams{}, Causal(), Causal(5)}) {
      auto x = ComputeAttention(batched, p), y = ComputeAttention(paged, p);
      ASSERT_TRUE(x.ok() && y.ok()) << y.status().message();
      EXPECT_FALSE(HasNaN(y->o)) << "page " << page;
      EXPECT_TRUE(BitwiseEqual(x->o, y->o)) << "page " << page;
      EXPECT_TRUE(BitwiseEqual(x->lse, y->lse)) << "page " << page;
    }
  }
}

TEST(AttentionLayoutTest, NaNBeyondSeqlensAndUnderTheWindowNeverReachesTheOutput) {
  std::mt19937_64 rng(13);
  const int64_t s_q = 3, s_k = 10, len = 7, left = 1;
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, s_q, 2, 4});
  F64Array k = LoadF64(RandomTensor(rng, {1, s_k, 2, 4})),
           v = LoadF64(RandomTensor(rng, {1, s_k, 2, 4}));
  // Keys >= len are padding; with causal window left = 1 and s_q = 3, s_k = 7 the rows are
  // aligned at keys 4..6, so keys < 3 are never visible either.
  for (int64_t j = 0; j < s_k; ++j) {
    if (j >= 3 && j < len) continue;
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t c = 0; c < 4; ++c) k(0, j, h, c) = v(0, j, h, c) = kNaN;
  }
  in.k = k.ToTensor();
  in.v = v.ToTensor();
  in.seqlens_k = IntTensor({len}, {1});
  auto out = ComputeAttention(in, Causal(left));
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(HasNaN(out->o));
  EXPECT_FALSE(HasNaN(out->lse));
}

TEST(AttentionLayoutTest, BlockTableEntryCoveringAUsedKeyMustBeValid) {
  std::mt19937_64 rng(14);
  AttentionInputs in;
  in.q = RandomTensor(rng, {1, 1, 1, 4});
  in.k_cache = RandomTensor(rng, {2, 4, 1, 4});
  in.v_cache = RandomTensor(rng, {2, 4, 1, 4});
  in.block_table = IntTensor({1, 2}, {1, 2});  // block 2 does not exist
  in.seqlens_k = IntTensor({4}, {1});          // ... but only block 1 is used
  EXPECT_TRUE(ComputeAttention(in, {}).ok());
  in.seqlens_k = IntTensor({5}, {1});
  auto out = ComputeAttention(in, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("block_table[0, 1] = 2"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace av
