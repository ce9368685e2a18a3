// The fast reference's accuracy on the inputs that broke its float32 path (issue 17): MLA
// decode at FlashMLA's shape with near-tie keys (every key a shared base row plus 1e-3
// noise, q x 4: the float32 dot products' rounding is the same for every key, so it
// moves the LSE by its full size) and with large logits (q, k x 8). The attention
// family's fast path accumulates in float64: its LSE must be within 2.5e-7 of the
// oracle's (FlashMLA's LSE atol is 1e-6) and its output within 2.5e-7 x max|o|; the
// float32 path is checked to miss that, so the test would notice the inputs going soft.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/fast_attention.h"
#include "reference/ref_ops.h"
#include "reference/ref_test_util.h"

namespace av {
namespace {

using testing::IntTensor;

// b = 2, s_q = 2 (causal), h_q = 8, s_k = 300 keys in pages of 64, d = 576, dv = 512, bf16.
MlaDecodeInputs MlaCase(bool near_tie, double q_mul, double k_mul, uint64_t seed) {
  const int64_t b = 2, s_q = 2, h_q = 8, d = 576, page = 64, s_k = 300;
  const int64_t blocks = (s_k + page - 1) / page;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  F64Array q = F64Array::Zeros({b, s_q, h_q, d});
  for (double& x : q.data) x = q_mul * z(rng);
  std::vector<double> base(static_cast<size_t>(d));
  for (double& x : base) x = z(rng);
  F64Array k = F64Array::Zeros({b * blocks, page, 1, d});
  for (size_t i = 0; i < k.data.size(); ++i)
    k.data[i] = near_tie ? base[i % size_t(d)] + 1e-3 * z(rng) : k_mul * z(rng);
  std::vector<int64_t> table;
  for (int64_t i = 0; i < b * blocks; ++i) table.push_back((i * 7) % (b * blocks));
  return MlaDecodeInputs{q.ToTensor(DType::kBF16), k.ToTensor(DType::kBF16),
                         IntTensor(table, {b, blocks}), IntTensor({s_k, s_k - 63}, {b})};
}

struct Errors {
  double lse = 0, o = 0;  // max |Δlse|; max |Δo| / max |o_oracle|
};

Errors FastVsOracle(const MlaDecodeInputs& in, bool f64) {
  MlaDecodeParams p;
  p.causal = true;
  auto oracle = ComputeMlaDecode(in, p);
  FastOptions opt;
  opt.accumulate_f64 = f64;
  auto fast = ComputeMlaDecodeFast(in, p, opt);
  EXPECT_TRUE(oracle.ok() && fast.ok());
  if (!oracle.ok() || !fast.ok()) return {1, 1};
  F64Array lo = LoadF64(oracle->lse), lf = LoadF64(fast->lse);
  F64Array oo = LoadF64(oracle->o), of = LoadF64(fast->o);
  Errors e;
  for (size_t i = 0; i < lo.data.size(); ++i)
    e.lse = std::max(e.lse, std::fabs(lf.data[i] - lo.data[i]));
  double max_o = 0, max_d = 0;
  for (size_t i = 0; i < oo.data.size(); ++i) {
    max_o = std::max(max_o, std::fabs(oo.data[i]));
    max_d = std::max(max_d, std::fabs(of.data[i] - oo.data[i]));
  }
  e.o = max_d / max_o;
  return e;
}

TEST(FastAccuracyTest, NearTieMlaDecodeLseWithinQuarterOfFlashMlaAtol) {
  const MlaDecodeInputs in = MlaCase(/*near_tie=*/true, 4.0, 1.0, 7);
  const Errors f64 = FastVsOracle(in, true);
  EXPECT_LE(f64.lse, 2.5e-7);
  EXPECT_LE(f64.o, 2.5e-7);
  // The float32 path misses FlashMLA's atol on these very inputs (bench: 6.5e-6).
  EXPECT_GT(FastVsOracle(in, false).lse, 1e-6);
}

TEST(FastAccuracyTest, LargeLogitsMlaDecodeLseWithinQuarterOfFlashMlaAtol) {
  const MlaDecodeInputs in = MlaCase(/*near_tie=*/false, 8.0, 8.0, 8);
  const Errors f64 = FastVsOracle(in, true);
  EXPECT_LE(f64.lse, 2.5e-7);
  EXPECT_LE(f64.o, 2.5e-7);
  EXPECT_GT(FastVsOracle(in, false).lse, 1e-6);  // |lse| ~ 1e3: float32 has 6e-5 steps
}

// The ref op's fast path (what the sweep runs) is the float64 one; fast_f32 the other.
TEST(FastAccuracyTest, RefOpFastIsFloat64AccumulationUnlessFastF32) {
  const MlaDecodeInputs in = MlaCase(/*near_tie=*/true, 4.0, 1.0, 9);
  NamedTensors named = {{"q", in.q},
                        {"k_cache", in.k_cache},
                        {"block_table", in.block_table},
                        {"cache_seqlens", in.cache_seqlens}};
  OpParams params(std::map<std::string, std::string>{{"causal", "true"}});
  auto oracle = RunReferenceOp("mla_decode", named, params, {});
  RefImpl fast{ImplKind::kFast};
  auto f64 = RunReferenceOp("mla_decode", named, params, fast);
  fast.fast_f32 = true;
  auto f32 = RunReferenceOp("mla_decode", named, params, fast);
  ASSERT_TRUE(oracle.ok() && f64.ok() && f32.ok());
  const Tensor& lo = (*oracle)[1].second;
  EXPECT_LE(testing::MaxRelDiff((*f64)[1].second, lo, 1e9) * 1e9, 2.5e-7);
  EXPECT_GT(testing::MaxRelDiff((*f32)[1].second, lo, 1e9) * 1e9, 1e-6);
}

}  // namespace
}  // namespace av
