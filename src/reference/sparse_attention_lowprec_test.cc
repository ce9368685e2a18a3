// The sparse low-precision reference against the float64 oracle: within the lowprec
// attention bound (8 eps * max|v|, derived in lowprec_attention_test.cc), visibly rounded,
// masked entries never read (they point at NaN rows), empty rows o = 0, bitwise
// reproducible for any thread count, and reachable as `ref sparse_attention --impl lowprec`.
#include "reference/sparse_attention_lowprec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::Named;
using testing::RandomTensor;

// s_q rows, topk entries each; kv rows >= 100 are NaN and only ever named by masked
// entries (past topk_length, -1, negative, >= s_kv), and row 1 has no valid entry.
SparseAttentionInputs Case(std::mt19937_64& rng, int64_t topk, bool sink) {
  const int64_t s_q = 5, h_q = 8, h_kv = 2, d = 32, s_kv = 130;
  SparseAttentionInputs in;
  in.q = RandomTensor(rng, {s_q, h_q, d}, DType::kBF16);
  F64Array kv = LoadF64(RandomTensor(rng, {s_kv, h_kv, d}));
  for (int64_t j = 100; j < s_kv; ++j)
    for (int64_t h = 0; h < h_kv; ++h)
      for (int64_t c = 0; c < d; ++c) kv(j, h, c) = std::numeric_limits<double>::quiet_NaN();
  in.kv = kv.ToTensor(DType::kBF16);
  std::vector<int64_t> idx, len;
  std::uniform_int_distribution<int64_t> valid(0, 99);
  const int64_t invalid[] = {-1, -7, 130, 1000};
  for (int64_t i = 0; i < s_q; ++i) {
    len.push_back(i == 3 ? topk / 2 : topk);
    for (int64_t h = 0; h < h_kv; ++h)
      for (int64_t t = 0; t < topk; ++t) {
        const bool masked = i == 1 || t % 5 == 4 || (i == 3 && t >= topk / 2);
        idx.push_back(masked ? (t >= topk / 2 && i == 3 ? 120 : invalid[t % 4]) : valid(rng));
      }
  }
  in.indices = IntTensor(idx, {s_q, h_kv, topk});
  in.topk_length = IntTensor(len, {s_q});
  if (sink) in.attn_sink = RandomTensor(rng, {h_q});
  return in;
}

TEST(LowprecSparseTest, WithinDtypeErrorOfOracle) {
  std::mt19937_64 rng(301);
  for (int64_t topk : {1, 3, 64, 65, 129}) {
    for (DType dt : {DType::kBF16, DType::kF16}) {
      SCOPED_TRACE(::testing::Message() << "topk " << topk << " " << DTypeName(dt));
      const SparseAttentionInputs in = Case(rng, topk, topk % 2 == 1);
      SparseAttentionParams p;
      p.head_dim_v = 24;
      auto oracle = ComputeSparseAttention(in, p);
      auto low = ComputeSparseAttentionLowprec(in, p, {dt, 2});
      ASSERT_TRUE(oracle.ok() && low.ok()) << low.status().message();
      ASSERT_FALSE(testing::HasNaN(low->o));
      const double eps = dt == DType::kBF16 ? 0x1p-8 : 0x1p-11;
      F64Array a = LoadF64(low->o), b = LoadF64(oracle->o);
      double err = 0;
      for (size_t i = 0; i < a.data.size(); ++i)
        err = std::max(err, std::fabs(a.data[i] - b.data[i]));
      EXPECT_LE(err, 8 * eps);
      if (topk > 1) {
        EXPECT_GT(err, 0.01 * eps) << "no rounding happened";
      }
      for (const auto& [x, y] :
           {std::pair{&low->lse, &oracle->lse}, {&low->max_logits, &oracle->max_logits}}) {
        F64Array l = LoadF64(*x), r = LoadF64(*y);
        for (size_t i = 0; i < l.data.size(); ++i) {
          if (std::isinf(r.data[i]))
            EXPECT_EQ(l.data[i], r.data[i]);
          else
            EXPECT_NEAR(l.data[i], r.data[i], 4 * eps);
        }
      }
      // Row 1 has no valid entry: o = 0, lse = +inf (FlashMLA's), max_logits = -inf.
      F64Array lse = LoadF64(low->lse), ml = LoadF64(low->max_logits);
      for (int64_t h = 0; h < 8; ++h) {
        EXPECT_EQ(lse(1, h), std::numeric_limits<double>::infinity());
        EXPECT_EQ(ml(1, h), -std::numeric_limits<double>::infinity());
        for (int64_t c = 0; c < 24; ++c) EXPECT_EQ(a(1, h, c), 0.0);
      }
    }
  }
}

TEST(LowprecSparseTest, BitwiseReproducibleAcrossThreadsAndDtypeValued) {
  std::mt19937_64 rng(302);
  const SparseAttentionInputs in = Case(rng, 65, true);
  auto one = ComputeSparseAttentionLowprec(in, {}, {DType::kF16, 1});
  ASSERT_TRUE(one.ok());
  for (int threads : {2, 3, 5}) {
    auto many = ComputeSparseAttentionLowprec(in, {}, {DType::kF16, threads});
    ASSERT_TRUE(many.ok());
    EXPECT_TRUE(BitwiseEqual(many->o, one->o));
    EXPECT_TRUE(BitwiseEqual(many->lse, one->lse));
  }
  for (double x : LoadF64(one->o).data) {
    EXPECT_EQ(x, LoadF64(F64Array{{1}, {x}}.ToTensor(DType::kF16)).data[0]);
  }
}

TEST(LowprecSparseTest, RefOpImplLowprec) {
  std::mt19937_64 rng(303);
  const SparseAttentionInputs in = Case(rng, 64, false);
  NamedTensors named = {
      {"q", in.q}, {"kv", in.kv}, {"indices", in.indices}, {"topk_length", in.topk_length}};
  RefImpl impl{.kind = ImplKind::kLowprec, .threads = 2, .lowprec_dtype = DType::kBF16};
  auto out =
      RunReferenceOp("sparse_attention", named,
                     OpParams(std::map<std::string, std::string>{{"head_dim_v", "16"}}), impl);
  ASSERT_TRUE(out.ok()) << out.status().message();
  SparseAttentionParams p;
  p.head_dim_v = 16;
  auto direct = ComputeSparseAttentionLowprec(in, p, {DType::kBF16, 1});
  ASSERT_TRUE(direct.ok());
  EXPECT_TRUE(BitwiseEqual(Named(*out, "o"), direct->o));
  EXPECT_TRUE(BitwiseEqual(Named(*out, "max_logits"), direct->max_logits));
}

}  // namespace
}  // namespace av
