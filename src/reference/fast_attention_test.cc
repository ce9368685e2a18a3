// The fast attention path against the float64 oracle: shapes around the 64-key block and
// the row tiles, every mask kind and combination, varlen with empty sequences, GQA ratios
// 1..128, paged KV with NaN-poisoned pages, both kernel builds, and bitwise equality across
// thread counts and runs. Tolerance (the issue's): max |o - oracle| <= 2e-6 max |o|.
#include "reference/fast_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "reference/lowprec_attention.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::HasNaN;
using testing::IntTensor;
using testing::RandomTensor;

// Fast output within 2e-6 * max|o_oracle| of the oracle (o), and lse within 2e-6 * max(1,
// |lse|) (equal infinities count as equal).
void ExpectClose(const AttentionOutputs& fast, const AttentionOutputs& oracle, double rel = 2e-6) {
  ASSERT_EQ(fast.o.shape(), oracle.o.shape());
  ASSERT_EQ(fast.lse.shape(), oracle.lse.shape());
  F64Array a = LoadF64(fast.o), b = LoadF64(oracle.o);
  double scale = 0, err = 0;
  for (double x : b.data) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.data.size(); ++i) {
    ASSERT_FALSE(std::isnan(a.data[i])) << "o[" << i << "] is NaN";
    err = std::max(err, std::fabs(a.data[i] - b.data[i]));
  }
  EXPECT_LE(err, rel * scale) << "max |o| = " << scale;
  F64Array la = LoadF64(fast.lse), lb = LoadF64(oracle.lse);
  for (size_t i = 0; i < la.data.size(); ++i) {
    if (std::isinf(lb.data[i])) {
      EXPECT_EQ(la.data[i], lb.data[i]) << "lse[" << i << "]";
    } else {
      EXPECT_LE(std::fabs(la.data[i] - lb.data[i]), rel * std::max(1.0, std::fabs(lb.data[i])))
          << "lse[" << i << "]";
    }
  }
}

void CheckAgainstOracle(const AttentionInputs& in, const AttentionParams& params,
                        FastOptions options = {}, double rel = 2e-6) {
  auto oracle = ComputeAttention(in, params);
  ASSERT_TRUE(oracle.ok()) << oracle.status().message();
  auto fast = ComputeAttentionFast(in, params, options);
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  ExpectClose(*fast, *oracle, rel);
}

AttentionInputs Batched(std::mt19937_64& rng, int64_t b, int64_t s_q, int64_t s_k, int64_t h_q,
                        int64_t h_kv, int64_t d, int64_t dv, DType dtype = DType::kF32) {
  AttentionInputs in;
  in.q = RandomTensor(rng, {b, s_q, h_q, d}, dtype);
  in.k = RandomTensor(rng, {b, s_k, h_kv, d}, dtype);
  in.v = RandomTensor(rng, {b, s_k, h_kv, dv}, dtype);
  return in;
}

TEST(FastAttentionTest, MatchesOracleAroundBlockEdges) {
  std::mt19937_64 rng(1);
  for (int64_t s : {1, 3, 63, 64, 65, 127, 128, 129}) {
    for (int64_t s_k : {1, 64, 65, 129}) {
      SCOPED_TRACE("s_q " + std::to_string(s) + " s_k " + std::to_string(s_k));
      AttentionInputs in = Batched(rng, 1, s, s_k, 2, 1, 65, 17);
      AttentionParams causal;
      causal.mask.causal = true;
      CheckAgainstOracle(in, {});
      CheckAgainstOracle(in, causal);
    }
  }
}

TEST(FastAttentionTest, EveryMaskKindAndCombination) {
  std::mt19937_64 rng(2);
  AttentionInputs in = Batched(rng, 2, 70, 150, 4, 2, 32, 48, DType::kBF16);
  in.seqlens_k = IntTensor({150, 97}, {2});
  in.alibi_slopes = RandomTensor(rng, {4}, DType::kF32, 0, 0.2);
  in.sink = RandomTensor(rng, {4}, DType::kF32, -1, 2);
  const AttentionInputs plain = Batched(rng, 2, 70, 150, 4, 2, 32, 48);
  for (int variant = 0; variant < 8; ++variant) {  // alibi x sink x seqlens_k
    AttentionInputs x = plain;
    if (variant & 1) x.alibi_slopes = in.alibi_slopes;
    if (variant & 2) x.sink = in.sink;
    if (variant & 4) x.seqlens_k = in.seqlens_k;
    for (bool causal : {false, true})
      for (int64_t left : {-1, 0, 5, 80})
        for (int64_t right : {-1, 0, 7})
          for (double softcap : {0.0, 0.7}) {
            SCOPED_TRACE(::testing::Message()
                         << "variant " << variant << " causal " << causal << " window (" << left
                         << ", " << right << ") softcap " << softcap);
            AttentionParams p;
            p.mask = {causal, left, right};
            p.softcap = softcap;
            p.scale = 0.3;
            CheckAgainstOracle(x, p);
          }
  }
}

TEST(FastAttentionTest, VarlenWithZeroLengthSequences) {
  std::mt19937_64 rng(3);
  // Batches: (s_q, s_k) = (5, 0), (0, 7), (66, 130), (3, 3), (0, 0), (1, 64).
  std::vector<int64_t> cu_q = {0, 5, 5, 71, 74, 74, 75}, cu_k = {0, 0, 7, 137, 140, 140, 204};
  AttentionInputs in;
  in.q = RandomTensor(rng, {75, 6, 40});
  in.k = RandomTensor(rng, {204, 3, 40});
  in.v = RandomTensor(rng, {204, 3, 24});
  in.cu_seqlens_q = IntTensor(cu_q, {7});
  in.cu_seqlens_k = IntTensor(cu_k, {7});
  for (bool causal : {false, true}) {
    AttentionParams p;
    p.mask.causal = causal;
    CheckAgainstOracle(in, p);
    p.empty_lse = EmptyLse::kPosInf;
    p.lse_log2 = true;
    CheckAgainstOracle(in, p);
  }
}

TEST(FastAttentionTest, GqaRatiosOneTo128) {
  std::mt19937_64 rng(4);
  for (int64_t ratio : {1, 2, 3, 8, 16, 64, 128}) {
    SCOPED_TRACE("ratio " + std::to_string(ratio));
    AttentionInputs in = Batched(rng, 1, 3, 70, ratio * 2, 2, 16, 16);
    AttentionParams p;
    p.mask.causal = true;
    CheckAgainstOracle(in, p);
  }
}

// A paged cache with a random block table; every page (and every row past a sequence's
// length) that no sequence reads is NaN.
AttentionInputs PoisonedPaged(std::mt19937_64& rng, int64_t page, std::vector<int64_t> lens,
                              int64_t s_q, int64_t h_q, int64_t h_kv, int64_t d, int64_t dv) {
  const int64_t b = static_cast<int64_t>(lens.size()), max_blocks = 4;
  const int64_t blocks = b * max_blocks + 2;
  std::vector<int64_t> perm(static_cast<size_t>(blocks));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  F64Array kc = LoadF64(RandomTensor(rng, {blocks, page, h_kv, d}));
  F64Array vc = LoadF64(RandomTensor(rng, {blocks, page, h_kv, dv}));
  std::vector<bool> used(static_cast<size_t>(blocks * page), false);
  std::vector<int64_t> table;
  for (int64_t i = 0; i < b; ++i)
    for (int64_t m = 0; m < max_blocks; ++m) {
      const int64_t blk = perm[static_cast<size_t>(i * max_blocks + m)];
      table.push_back(m * page < lens[size_t(i)] ? blk : -1);
      for (int64_t o = 0; o < page; ++o)
        if (m * page + o < lens[size_t(i)]) used[size_t(blk * page + o)] = true;
    }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t r = 0; r < blocks * page; ++r) {
    if (used[size_t(r)]) continue;
    for (int64_t h = 0; h < h_kv; ++h) {
      for (int64_t c = 0; c < d; ++c) kc(r / page, r % page, h, c) = nan;
      for (int64_t c = 0; c < dv; ++c) vc(r / page, r % page, h, c) = nan;
    }
  }
  AttentionInputs in;
  in.q = RandomTensor(rng, {b, s_q, h_q, d});
  in.k_cache = kc.ToTensor(DType::kBF16);
  in.v_cache = vc.ToTensor(DType::kBF16);
  in.block_table = IntTensor(table, {b, max_blocks});
  in.seqlens_k = IntTensor(lens, {b});
  return in;
}

TEST(FastAttentionTest, PagedWithNaNPoisonedPages) {
  std::mt19937_64 rng(5);
  for (int64_t page : {1, 16, 64}) {
    SCOPED_TRACE("page " + std::to_string(page));
    std::vector<int64_t> lens = {page * 4, page * 2 + 1, 0, std::max<int64_t>(1, page - 1)};
    AttentionInputs in = PoisonedPaged(rng, page, lens, 2, 8, 2, 24, 20);
    for (bool causal : {false, true}) {
      AttentionParams p;
      p.mask.causal = causal;
      auto fast = ComputeAttentionFast(in, p, {});
      ASSERT_TRUE(fast.ok()) << fast.status().message();
      EXPECT_FALSE(HasNaN(fast->o));
      CheckAgainstOracle(in, p);
    }
  }
}

TEST(FastAttentionTest, BitwiseIdenticalAcrossThreadCountsAndRuns) {
  std::mt19937_64 rng(6);
  AttentionInputs in = Batched(rng, 2, 300, 333, 4, 2, 64, 64, DType::kBF16);
  AttentionParams p;
  p.mask.causal = true;
  for (bool f64 : {false, true}) {
    FastOptions one{1, f64, true};
    auto ref = ComputeAttentionFast(in, p, one);
    ASSERT_TRUE(ref.ok());
    for (int threads : {1, 2, 3, 7}) {
      auto out = ComputeAttentionFast(in, p, {threads, f64, true});
      ASSERT_TRUE(out.ok());
      EXPECT_TRUE(BitwiseEqual(out->o, ref->o)) << threads << " threads";
      EXPECT_TRUE(BitwiseEqual(out->lse, ref->lse)) << threads << " threads";
    }
  }
}

TEST(FastAttentionTest, PortableKernelsAndFloat64Accumulation) {
  std::mt19937_64 rng(7);
  AttentionInputs in = Batched(rng, 1, 67, 130, 4, 1, 72, 40);
  AttentionParams p;
  p.mask = {true, 40, -1};
  CheckAgainstOracle(in, p, {2, false, false});
  CheckAgainstOracle(in, p, {2, true, true}, 1e-12);
  CheckAgainstOracle(in, p, {2, true, false}, 1e-12);
}

TEST(FastAttentionTest, MlaDecodeMatchesOracle) {
  std::mt19937_64 rng(8);
  for (int64_t s_q : {1, 2, 4}) {
    SCOPED_TRACE("s_q " + std::to_string(s_q));
    AttentionInputs paged = PoisonedPaged(rng, 64, {200, 64, 0}, s_q, 16, 1, 72, 1);
    MlaDecodeInputs in{paged.q, paged.k_cache, paged.block_table, paged.seqlens_k};
    MlaDecodeParams mp;
    mp.head_dim_v = 64;
    mp.causal = true;
    auto oracle = ComputeMlaDecode(in, mp);
    auto fast = ComputeMlaDecodeFast(in, mp, {});
    ASSERT_TRUE(oracle.ok() && fast.ok());
    ExpectClose(*fast, *oracle);
  }
}

TEST(FastAttentionTest, KeyRangesMatchOracle) {
  std::mt19937_64 rng(9);
  AttentionInputs in = Batched(rng, 2, 3, 200, 4, 2, 32, 32);
  std::vector<KeyRange> ranges = {{0, 0, 0}, {0, 0, 64}, {0, 64, 200}, {1, 5, 131}, {1, 199, 200}};
  AttentionParams p;
  p.mask.causal = true;
  auto oracle = ComputeAttentionOverRanges(in, p, ranges);
  auto fast = ComputeAttentionOverRangesFast(in, p, ranges, {});
  ASSERT_TRUE(oracle.ok() && fast.ok());
  ASSERT_EQ(fast->per_range.size(), ranges.size());
  for (size_t n = 0; n < ranges.size(); ++n) {
    SCOPED_TRACE(n);
    ExpectClose({fast->per_range[n].first, fast->per_range[n].second},
                {oracle->per_range[n].first, oracle->per_range[n].second});
  }
}

// Every implementation refuses a range outside its batch's keys with the same message.
TEST(FastAttentionTest, KeyRangesOutsideTheBatchAreRefusedByEveryImplementation) {
  std::mt19937_64 rng(9);
  AttentionInputs in = Batched(rng, 2, 3, 200, 4, 2, 32, 32);
  const std::vector<KeyRange> bad = {{0, 0, 64}, {1, 150, 201}};
  AttentionParams p;
  LowprecOptions lp;
  lp.dtype = DType::kBF16;
  for (const Status& st : {ComputeAttentionOverRanges(in, p, bad).status(),
                           ComputeAttentionOverRangesFast(in, p, bad, {}).status(),
                           ComputeAttentionOverRangesLowprec(in, p, bad, lp).status()}) {
    EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
    EXPECT_EQ(st.message(), "key range (batch 1, [150, 201)) is outside the batch's keys");
  }
}

}  // namespace
}  // namespace av
