// The fast grouped FP8 GEMMs (contiguous with m_indices and -1 padding rows; masked with
// masked_m) against the float64 oracles of gemm.h, with row counts around the 128-row
// scale blocks and the 512-row unit, NaN-poisoned rows that must never be read, bitwise
// equality with the plain fast path per group and across thread counts, and the ref op.
// Tolerance as fast_gemm_test.cc: (k + 2) * 2^-24 * sum_c |a_c b_c| per element.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "reference/fast_gemm.h"
#include "reference/fp8_quant.h"
#include "reference/gemm.h"
#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::Named;
using testing::RandomTensor;

struct Grouped {
  Tensor a, sa, b, sb;  // a [rows, k] (contiguous form), b [groups, n, k]
  std::vector<Fp8Quantized> per_group;
};

// Per-group B quantised per block and stacked; A per token, its rows of invalid groups
// (picked by the caller) set to the e4m3 NaN code 0x7f after quantisation.
Grouped MakeGrouped(std::mt19937_64& rng, int64_t rows, int64_t n, int64_t k, int64_t groups,
                    const std::vector<bool>& poison) {
  Grouped g;
  auto qa = QuantizePerToken(RandomTensor(rng, {rows, k}, DType::kF32, -2, 2), false);
  g.a = qa->data;
  g.sa = qa->scales;
  for (int64_t r = 0; r < rows; ++r) {
    if (!poison[size_t(r)]) continue;
    for (int64_t c = 0; c < k; ++c) g.a.Set<uint8_t>(std::vector<int64_t>{r, c}, 0x7f);
  }
  const int64_t nb = (n + 127) / 128, kb = (k + 127) / 128;
  Tensor b = Tensor::Zeros(DType::kF8E4M3FN, {groups, n, k});
  F64Array sb = F64Array::Zeros({groups, nb, kb});
  for (int64_t grp = 0; grp < groups; ++grp) {
    g.per_group.push_back(*QuantizePerBlock(RandomTensor(rng, {n, k}), grp % 2 == 1));
    const Tensor& d = g.per_group.back().data;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < k; ++c)
        b.Set<uint8_t>(std::vector<int64_t>{grp, j, c}, d.At<uint8_t>(std::vector<int64_t>{j, c}));
    F64Array s = LoadF64(g.per_group.back().scales);
    std::copy(s.data.begin(), s.data.end(), sb.data.begin() + grp * nb * kb);
  }
  g.b = b;
  g.sb = sb.ToTensor(DType::kF32);
  return g;
}

Tensor Abs(const Tensor& t) {
  F64Array a = LoadF64(t);
  for (double& x : a.data) x = std::fabs(x);
  return a.ToTensor();
}

TEST(FastGroupedFp8GemmTest, ContiguousMatchesOracleAndPaddingIsZero) {
  std::mt19937_64 rng(501);
  // Groups of 1, 127, 129 rows (plus 128-row padding blocks, as DeepGEMM aligns them).
  const std::vector<int64_t> sizes = {1, 127, 129};
  std::vector<int64_t> m_idx;
  for (int64_t g = 0; g < 3; ++g) {
    for (int64_t r = 0; r < sizes[size_t(g)]; ++r) m_idx.push_back(g);
    while (m_idx.size() % 128 != 0) m_idx.push_back(-1);
  }
  const int64_t rows = int64_t(m_idx.size()), n = 65, k = 200;
  std::vector<bool> poison;
  for (int64_t g : m_idx) poison.push_back(g == -1);
  Grouped in = MakeGrouped(rng, rows, n, k, 3, poison);
  const Tensor m_indices = IntTensor(m_idx, {rows});
  auto fast = ComputeFp8GemmNtGroupedFast(in.a, in.sa, in.b, in.sb, m_indices, {}, {});
  auto oracle = ComputeFp8GemmNtGroupedContiguous(in.a, in.sa, in.b, in.sb, m_indices);
  ASSERT_TRUE(fast.ok() && oracle.ok()) << fast.status().message();
  ASSERT_FALSE(testing::HasNaN(*fast));
  F64Array f = LoadF64(*fast), o = LoadF64(*oracle);
  auto da = DequantizePerToken(in.a, in.sa);
  ASSERT_TRUE(da.ok());
  for (int64_t g = 0; g < 3; ++g) {
    auto db = DequantizePerBlock(in.per_group[g].data, in.per_group[g].scales);
    auto bound = ComputeGemmNt(Abs(*da), Abs(*db));
    auto plain =
        ComputeFp8GemmNtFast(in.a, in.sa, in.per_group[g].data, in.per_group[g].scales, {});
    ASSERT_TRUE(db.ok() && bound.ok() && plain.ok());
    F64Array bd = LoadF64(*bound), p = LoadF64(*plain);
    for (int64_t r = 0; r < rows; ++r) {
      if (m_idx[r] != g) continue;
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_LE(std::fabs(f(r, j) - o(r, j)), double(k + 2) * 0x1p-24 * bd(r, j) + 1e-30);
        ASSERT_EQ(f(r, j), p(r, j)) << "row " << r << " differs from the plain path";
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (m_idx[r] != -1) continue;
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(f(r, j), 0.0) << "padding row " << r;
    }
  }
}

TEST(FastGroupedFp8GemmTest, MaskedMatchesOracleAndRowsPastMaskedMAreZero) {
  std::mt19937_64 rng(502);
  const int64_t groups = 4, max_m = 130, n = 129, k = 256;
  const std::vector<int64_t> valid = {130, 0, 1, 64};
  std::vector<bool> poison;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t i = 0; i < max_m; ++i) poison.push_back(i >= valid[size_t(g)]);
  Grouped in = MakeGrouped(rng, groups * max_m, n, k, groups, poison);
  auto a3 = in.a.Reshape({groups, max_m, k});
  auto sa3 = in.sa.Reshape({groups, max_m, 2});
  ASSERT_TRUE(a3.ok() && sa3.ok());
  const Tensor masked_m = IntTensor(valid, {groups});
  auto fast = ComputeFp8GemmNtGroupedFast(*a3, *sa3, in.b, in.sb, {}, masked_m, {});
  auto oracle = ComputeFp8GemmNtGroupedMasked(*a3, *sa3, in.b, in.sb, masked_m);
  ASSERT_TRUE(fast.ok() && oracle.ok()) << fast.status().message();
  ASSERT_FALSE(testing::HasNaN(*fast));
  // sum_c |a_c b_c| <= 2 * 1 * k (a in [-2, 2], b in [-1, 1]); MaxRelDiff divides by >= 1.
  EXPECT_LE(testing::MaxRelDiff(*fast, *oracle, 1.0), double(k + 2) * 0x1p-24 * 2.0 * k);
  F64Array f = LoadF64(*fast);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t i = valid[size_t(g)]; i < max_m; ++i)
      for (int64_t j = 0; j < n; ++j) ASSERT_EQ(f(g, i, j), 0.0);
}

TEST(FastGroupedFp8GemmTest, BitwiseIdenticalAcrossThreadCountsAndRefOp) {
  std::mt19937_64 rng(503);
  std::vector<int64_t> m_idx;
  for (int64_t r = 0; r < 600; ++r) m_idx.push_back(r < 513 ? (r < 300 ? 1 : 0) : -1);
  Grouped in = MakeGrouped(rng, 600, 70, 130, 2, std::vector<bool>(600, false));
  const Tensor m_indices = IntTensor(m_idx, {600});
  auto one = ComputeFp8GemmNtGroupedFast(in.a, in.sa, in.b, in.sb, m_indices, {}, {.threads = 1});
  ASSERT_TRUE(one.ok());
  for (int threads : {2, 3, 8}) {
    auto many =
        ComputeFp8GemmNtGroupedFast(in.a, in.sa, in.b, in.sb, m_indices, {}, {.threads = threads});
    ASSERT_TRUE(many.ok());
    EXPECT_TRUE(BitwiseEqual(*many, *one)) << threads;
  }
  RefImpl impl{.kind = ImplKind::kFast, .threads = 2};
  NamedTensors named = {
      {"a", in.a}, {"sa", in.sa}, {"b", in.b}, {"sb", in.sb}, {"m_indices", m_indices}};
  auto op = RunReferenceOp("fp8_gemm", named, {}, impl);
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_TRUE(BitwiseEqual(Named(*op, "d"), *one));
  named.push_back({"masked_m", IntTensor({1, 1}, {2})});
  EXPECT_FALSE(RunReferenceOp("fp8_gemm", named, {}, impl).ok());  // both forms at once
}

TEST(FastGroupedFp8GemmTest, RejectsBadGroupIndices) {
  std::mt19937_64 rng(504);
  Grouped in = MakeGrouped(rng, 4, 8, 128, 2, std::vector<bool>(4, false));
  auto bad =
      ComputeFp8GemmNtGroupedFast(in.a, in.sa, in.b, in.sb, IntTensor({0, 1, 2, -1}, {4}), {}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("m_indices[2] = 2"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace av
