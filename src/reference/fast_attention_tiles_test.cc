// The bf16 tile kernels (fast_attention_tiles_impl.h): the split's exactness claims over
// every bf16 value, the emulated tile instructions against the hardware's, and both builds
// against the float64 oracle over MLA decode, masks, GQA, varlen and split-k ranges, with
// the same bits for every thread count, and the FMA kernels taking over units whose data
// the tiles cannot scale. Hardware tests skip with a reason on CPUs without AMX-BF16.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "reference/fast_attention.h"
#include "reference/fast_attention_tiles.h"
#include "reference/tile_registers.h"
#include "reference/tile_split.h"
#include "reference/ref_test_util.h"
#include "tensor/float_convert.h"

namespace av {
namespace {

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::RandomTensor;

constexpr const char* kNoAmx = "this CPU (or OS) has no AMX-BF16: the hardware tile kernels cannot run";

// The largest |fast - oracle| over o (relative to max |o_oracle|) and over finite LSEs
// (relative to max(1, |lse|)); infinities must match exactly (else +inf).
struct Errors {
  double o = 0, lse = 0;
};
Errors Compare(const AttentionOutputs& fast, const AttentionOutputs& oracle) {
  Errors e;
  EXPECT_EQ(fast.o.shape(), oracle.o.shape());
  EXPECT_EQ(fast.lse.shape(), oracle.lse.shape());
  if (fast.o.shape() != oracle.o.shape() || fast.lse.shape() != oracle.lse.shape()) {
    return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  }
  F64Array a = LoadF64(fast.o), b = LoadF64(oracle.o);
  double scale = 0;
  for (double x : b.data) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double diff = std::fabs(a.data[i] - b.data[i]);
    e.o = std::max(e.o, std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff);
  }
  if (scale > 0) e.o /= scale;
  F64Array la = LoadF64(fast.lse), lb = LoadF64(oracle.lse);
  for (size_t i = 0; i < la.data.size(); ++i) {
    if (std::isinf(lb.data[i]) || std::isinf(la.data[i])) {
      if (la.data[i] != lb.data[i]) e.lse = std::numeric_limits<double>::infinity();
      continue;
    }
    const double diff = std::fabs(la.data[i] - lb.data[i]) / std::max(1.0, std::fabs(lb.data[i]));
    e.lse = std::max(e.lse, std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff);
  }
  return e;
}

// The bound the tile kernels are held to: 1e-9 of max |o| and of max(1, |lse|). The split
// keeps L0 and L1 exact; what is rounded is L2 (2^-15 of a score's magnitude, summed in
// float32: at d = 576 about 2^-15 * 1728 * 2^-24 = 3e-9 in the worst ordering) and P's
// last piece (2^-33 of a block's largest weight). Measured on these tests: o within
// 3.6e-10, LSEs within 1e-15.
constexpr double kTileBound = 1e-9;

FastOptions Tiles(TilePath path, int threads = 2) {
  FastOptions f;
  f.threads = threads;
  f.accumulate_f64 = true;
  f.tiles = path;
  return f;
}

void ExpectTilesMatchOracle(const AttentionInputs& in, const AttentionParams& params,
                            TilePath path, double bound = kTileBound) {
  auto oracle = ComputeAttention(in, params);
  ASSERT_TRUE(oracle.ok()) << oracle.status().message();
  auto fast = ComputeAttentionFast(in, params, Tiles(path));
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  const Errors e = Compare(*fast, *oracle);
  EXPECT_LE(e.o, bound);
  EXPECT_LE(e.lse, bound);
}

AttentionInputs Bf16Batched(std::mt19937_64& rng, int64_t b, int64_t s_q, int64_t s_k,
                            int64_t h_q, int64_t h_kv, int64_t d, int64_t dv, double mul = 1) {
  AttentionInputs in;
  in.q = RandomTensor(rng, {b, s_q, h_q, d}, DType::kBF16, -mul, mul);
  in.k = RandomTensor(rng, {b, s_k, h_kv, d}, DType::kBF16, -mul, mul);
  in.v = RandomTensor(rng, {b, s_k, h_kv, dv}, DType::kBF16);
  return in;
}

// MLA decode at FlashMLA's d = 576 / dv = 512 with a random block table.
MlaDecodeInputs Mla(std::mt19937_64& rng, int64_t b, int64_t s_q, int64_t h_q,
                    std::vector<int64_t> lens, double mul = 1) {
  int64_t blocks = 0, max_blocks = 1;
  for (int64_t l : lens) {
    blocks += (l + 63) / 64;
    max_blocks = std::max(max_blocks, (l + 63) / 64);
  }
  blocks += 1;
  std::vector<int64_t> table;
  int64_t next = 0;
  for (int64_t l : lens)
    for (int64_t m = 0; m < max_blocks; ++m) table.push_back(m * 64 < l ? next++ : 0);
  MlaDecodeInputs in{RandomTensor(rng, {b, s_q, h_q, 576}, DType::kBF16, -mul, mul),
                     RandomTensor(rng, {blocks, 64, 1, 576}, DType::kBF16, -mul, mul),
                     IntTensor(table, {b, max_blocks}), IntTensor(lens, {b})};
  return in;
}

TEST(TileSplitTest, EveryBf16ValueSplitsExactly) {
  using namespace fast_attention::tiles;
  int checked = 0;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const float x = std::bit_cast<float>(bits << 16);
    // Denormals (below 2^-126 of a row's largest value once scaled) are read as zero, by
    // the conversion and by the tiles alike.
    if (!std::isfinite(x) || !(std::fabs(x) < 2.0f) || (x != 0 && !std::isnormal(x))) continue;
    const Pieces p = SplitScaled(x);
    for (float piece : {p.hi, p.mid, p.lo, p.low}) {
      ASSERT_EQ(std::bit_cast<float>(uint32_t{Bf16Bits(piece)} << 16), piece)
          << "a piece of " << x << " is not a bf16";
    }
    ASSERT_EQ(p.hi + p.mid + p.lo, x) << x;
    ASSERT_EQ(p.mid + p.lo, p.low) << x;
    ASSERT_LE(std::fabs(p.hi), 2.0f) << x;
    ASSERT_EQ(std::ldexp(p.hi, 7), std::round(std::ldexp(p.hi, 7))) << x;
    ASSERT_LE(std::fabs(p.mid), std::ldexp(1.0f, -8)) << x;
    ASSERT_EQ(std::ldexp(p.mid, 15), std::round(std::ldexp(p.mid, 15))) << x;
    ASSERT_LE(std::fabs(p.lo), std::ldexp(1.0f, -16)) << x;
    ++checked;
  }
  EXPECT_GT(checked, 32000);
}

TEST(TileSplitTest, ScaleExponentsRefuseWhatTheTilesCannotScale) {
  using namespace fast_attention::tiles;
  EXPECT_EQ(ScaleExponent(1.0f), 0);
  EXPECT_EQ(ScaleExponent(1.99f), 0);
  EXPECT_EQ(ScaleExponent(0.5f), -1);
  EXPECT_EQ(ScaleExponent(0.0f), 0);
  EXPECT_EQ(ScaleExponent(std::ldexp(1.0f, 100)), 100);
  EXPECT_EQ(ScaleExponent(std::ldexp(1.0f, 101)), fast_attention::kNoExponent);
  EXPECT_EQ(ScaleExponent(std::ldexp(1.0f, -101)), fast_attention::kNoExponent);
  EXPECT_EQ(ScaleExponent(std::numeric_limits<float>::infinity()), fast_attention::kNoExponent);
  EXPECT_EQ(ScaleExponent(std::numeric_limits<float>::denorm_min()), fast_attention::kNoExponent);
}

// The hardware's TDPBF16PS against the emulation on random bf16 tiles with mixed
// magnitudes (so that float32 additions round): the same bits.
TEST(TileRegistersTest, EmulationMatchesTheHardwareBitwise) {
  if (!CpuHasAmxBf16()) GTEST_SKIP() << kNoAmx;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> shift(-12, 12);
  alignas(64) uint16_t a[16 * 32], b[16 * 32];
  alignas(64) float c[256], hw[256], em[256];
  for (int trial = 0; trial < 200; ++trial) {
    for (auto& x : a) x = FloatToBFloat16(std::ldexp(normal(rng), shift(rng)));
    for (auto& x : b) x = FloatToBFloat16(std::ldexp(normal(rng), shift(rng)));
    for (auto& x : c) x = std::ldexp(normal(rng), shift(rng));
    ASSERT_TRUE(fast_attention::RunTileProductForTest(a, b, c, hw));
    EmulatedTiles::Load<0>(c, 64);
    EmulatedTiles::Load<1>(a, 64);
    EmulatedTiles::Load<2>(b, 64);
    EmulatedTiles::Dp<0, 1, 2>();
    EmulatedTiles::Store<0>(em, 64);
    for (int i = 0; i < 256; ++i) ASSERT_EQ(hw[i], em[i]) << "trial " << trial << " element " << i;
  }
}

// The AMX build (instructions and AVX-512 steps) and the emulated one (portable steps)
// give the same bits, so the emulation's results stand for the hardware's.
TEST(TileKernelsBuildsTest, AmxAndEmulationAgreeBitwise) {
  if (!CpuHasAmxBf16()) GTEST_SKIP() << kNoAmx;
  std::mt19937_64 rng(17);
  for (double mul : {1.0, 8.0}) {
    MlaDecodeInputs in = Mla(rng, 2, 2, 16, {200, 65}, mul);
    MlaDecodeParams mp;
    mp.causal = true;
    auto amx = ComputeMlaDecodeFast(in, mp, Tiles(TilePath::kAuto));
    auto emulated = ComputeMlaDecodeFast(in, mp, Tiles(TilePath::kEmulated));
    ASSERT_TRUE(amx.ok() && emulated.ok());
    EXPECT_TRUE(BitwiseEqual(amx->o, emulated->o)) << "mul " << mul;
    EXPECT_TRUE(BitwiseEqual(amx->lse, emulated->lse)) << "mul " << mul;
  }
  AttentionInputs in = Bf16Batched(rng, 2, 37, 150, 4, 2, 40, 24);
  AttentionParams p;
  p.mask = {true, 50, -1};
  p.softcap = 0.5;
  auto amx = ComputeAttentionFast(in, p, Tiles(TilePath::kAuto));
  auto emulated = ComputeAttentionFast(in, p, Tiles(TilePath::kEmulated));
  ASSERT_TRUE(amx.ok() && emulated.ok());
  EXPECT_TRUE(BitwiseEqual(amx->o, emulated->o));
  EXPECT_TRUE(BitwiseEqual(amx->lse, emulated->lse));
}

class TileKernelsTest : public ::testing::TestWithParam<TilePath> {
 protected:
  void SetUp() override {
    if (GetParam() == TilePath::kAuto && !CpuHasAmxBf16()) GTEST_SKIP() << kNoAmx;
  }
};

TEST_P(TileKernelsTest, MlaDecodeMatchesOracle) {
  std::mt19937_64 rng(11);
  for (int64_t s_q : {1, 2}) {
    for (double mul : {1.0, 8.0}) {
      SCOPED_TRACE(::testing::Message() << "s_q " << s_q << " mul " << mul);
      MlaDecodeInputs in = Mla(rng, 3, s_q, 16, {140, 1, 0}, mul);
      MlaDecodeParams mp;
      mp.causal = true;
      auto oracle = ComputeMlaDecode(in, mp);
      auto fast = ComputeMlaDecodeFast(in, mp, Tiles(GetParam()));
      ASSERT_TRUE(oracle.ok() && fast.ok());
      const Errors e = Compare(*fast, *oracle);
      EXPECT_LE(e.o, kTileBound);
      EXPECT_LE(e.lse, kTileBound);
    }
  }
}

TEST_P(TileKernelsTest, ShapesAroundTheTileEdges) {
  std::mt19937_64 rng(12);
  for (int64_t s_k : {1, 63, 64, 65, 129}) {
    for (int64_t d : {8, 32, 33, 96}) {
      SCOPED_TRACE(::testing::Message() << "s_k " << s_k << " d " << d);
      AttentionInputs in = Bf16Batched(rng, 1, 17, s_k, 3, 1, d, d == 33 ? 17 : d);
      AttentionParams causal;
      causal.mask.causal = true;
      ExpectTilesMatchOracle(in, {}, GetParam());
      ExpectTilesMatchOracle(in, causal, GetParam());
    }
  }
}

TEST_P(TileKernelsTest, MasksSoftcapAlibiAndSink) {
  std::mt19937_64 rng(13);
  AttentionInputs in = Bf16Batched(rng, 2, 40, 150, 4, 2, 64, 48);
  in.seqlens_k = IntTensor({150, 97}, {2});
  in.alibi_slopes = RandomTensor(rng, {4}, DType::kF32, 0, 0.2);
  in.sink = RandomTensor(rng, {4}, DType::kF32, -1, 2);
  for (bool causal : {false, true})
    for (int64_t left : {-1, 0, 70})
      for (double softcap : {0.0, 0.7}) {
        SCOPED_TRACE(::testing::Message() << "causal " << causal << " left " << left
                                          << " softcap " << softcap);
        AttentionParams p;
        p.mask = {causal, left, causal ? -1 : 7};
        p.softcap = softcap;
        p.scale = 0.3;
        ExpectTilesMatchOracle(in, p, GetParam());
      }
}

TEST_P(TileKernelsTest, VarlenWithEmptySequencesAndKeyRanges) {
  std::mt19937_64 rng(14);
  std::vector<int64_t> cu_q = {0, 5, 5, 71, 74, 74, 75}, cu_k = {0, 0, 7, 137, 140, 140, 204};
  AttentionInputs in;
  in.q = RandomTensor(rng, {75, 6, 40}, DType::kBF16);
  in.k = RandomTensor(rng, {204, 3, 40}, DType::kBF16);
  in.v = RandomTensor(rng, {204, 3, 24}, DType::kBF16);
  in.cu_seqlens_q = IntTensor(cu_q, {7});
  in.cu_seqlens_k = IntTensor(cu_k, {7});
  for (bool causal : {false, true}) {
    AttentionParams p;
    p.mask.causal = causal;
    ExpectTilesMatchOracle(in, p, GetParam());
  }
  AttentionInputs batched = Bf16Batched(rng, 2, 3, 200, 4, 2, 32, 32);
  std::vector<KeyRange> ranges = {{0, 0, 0}, {0, 0, 64}, {0, 64, 200}, {1, 5, 131}};
  AttentionParams p;
  p.mask.causal = true;
  auto oracle = ComputeAttentionOverRanges(batched, p, ranges);
  auto fast = ComputeAttentionOverRangesFast(batched, p, ranges, Tiles(GetParam()));
  ASSERT_TRUE(oracle.ok() && fast.ok());
  for (size_t n = 0; n < ranges.size(); ++n) {
    const Errors e = Compare({fast->per_range[n].first, fast->per_range[n].second},
                             {oracle->per_range[n].first, oracle->per_range[n].second});
    EXPECT_LE(e.o, kTileBound) << "range " << n;
    EXPECT_LE(e.lse, kTileBound) << "range " << n;
  }
}

TEST_P(TileKernelsTest, BitwiseIdenticalAcrossThreadCounts) {
  std::mt19937_64 rng(15);
  AttentionInputs in = Bf16Batched(rng, 2, 70, 133, 4, 2, 64, 64);
  AttentionParams p;
  p.mask.causal = true;
  auto ref = ComputeAttentionFast(in, p, Tiles(GetParam(), 1));
  ASSERT_TRUE(ref.ok());
  for (int threads : {2, 3}) {
    auto out = ComputeAttentionFast(in, p, Tiles(GetParam(), threads));
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(BitwiseEqual(out->o, ref->o)) << threads << " threads";
    EXPECT_TRUE(BitwiseEqual(out->lse, ref->lse)) << threads << " threads";
  }
}

// A NaN or infinity a row sees, and a magnitude the tiles cannot scale, send the unit to
// the float64 FMA kernels: the result is theirs, bit for bit.
TEST_P(TileKernelsTest, UnitsTheTilesCannotScaleRunOnTheFmaKernels) {
  std::mt19937_64 rng(16);
  const AttentionInputs base = Bf16Batched(rng, 1, 5, 70, 2, 1, 32, 32);
  AttentionParams p;
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity(), std::ldexp(1.0, 110),
                     std::ldexp(1.0, -110)}) {
    for (const char* where : {"q", "k", "v"}) {
      // A tiny V row is not a V channel's largest value: the tiles take it (exactly).
      if (where[0] == 'v' && std::fabs(bad) < 1) continue;
      SCOPED_TRACE(::testing::Message() << where << " holds " << bad);
      AttentionInputs in = base;
      F64Array t = LoadF64(where[0] == 'q' ? in.q : where[0] == 'k' ? in.k : in.v);
      // Every element of one row (a tiny value must be the row's largest to matter).
      for (int64_t c = 0; c < 32; ++c) t(0, 3, 0, c) = bad;
      (where[0] == 'q' ? in.q : where[0] == 'k' ? in.k : in.v) = t.ToTensor(DType::kBF16);
      auto tiles = ComputeAttentionFast(in, p, Tiles(GetParam()));
      auto fma = ComputeAttentionFast(in, p, Tiles(TilePath::kOff));
      ASSERT_TRUE(tiles.ok() && fma.ok());
      EXPECT_TRUE(BitwiseEqual(tiles->o, fma->o));
      EXPECT_TRUE(BitwiseEqual(tiles->lse, fma->lse));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, TileKernelsTest,
                         ::testing::Values(TilePath::kEmulated, TilePath::kAuto),
                         [](const ::testing::TestParamInfo<TilePath>& info) {
                           return info.param == TilePath::kAuto ? std::string("Amx")
                                                                : std::string("Emulated");
                         });

}  // namespace
}  // namespace av
