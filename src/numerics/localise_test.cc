// Localisation on synthetic error tensors: each planted pattern (causal misalignment
// rows, heads >= 64, key lengths not a multiple of 64) is named by its hint, random
// noise gets no hint, worst elements carry named coordinates, and the heatmap renders.
#include "numerics/localise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

#include "numerics/heatmap_svg.h"

namespace av {
namespace {

// Seeded draws for test data (numerics sits below sweep, so not the sweep's generator).
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  double Normal() { return normal_(engine_); }
  double Uniform() { return uniform_(engine_); }

 private:
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_;
  std::uniform_real_distribution<double> uniform_;
};

// A reference of normals and a candidate equal to it except where `bad(index)` holds.
struct Pair {
  Tensor cand, ref;
};
Pair Make(const Shape& shape, const std::function<bool(const std::vector<int64_t>&)>& bad) {
  Pair p{Tensor::Zeros(DType::kF32, shape), Tensor::Zeros(DType::kF32, shape)};
  Rng rng(11);
  for (int64_t i = 0; i < p.ref.numel(); ++i) {
    std::vector<int64_t> idx = p.ref.Unravel(i);
    double r = rng.Normal();
    p.ref.SetDouble(idx, r);
    p.cand.SetDouble(idx, bad(idx) ? r + 0.5 : r);
  }
  return p;
}

ElementTolerance Allclose() {
  ElementTolerance t;
  t.kind = RuleKind::kAllclose;
  t.atol = 1e-3;
  t.rtol = 1e-3;
  return t;
}

bool AnyHintHas(const Localisation& l, const std::string& text) {
  for (const std::string& h : l.hints) {
    if (h.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string Hints(const Localisation& l) {
  std::string s;
  for (const std::string& h : l.hints) s += h + "\n";
  return s;
}

LocaliseLayout Attention(int64_t b, int64_t s_q, std::vector<int64_t> k_lens, int64_t h,
                         bool causal) {
  LocaliseLayout l;
  l.axes = {AxisRole::kBatch, AxisRole::kRow, AxisRole::kHead, AxisRole::kChannel};
  l.q_lens.assign(static_cast<size_t>(b), s_q);
  l.k_lens = std::move(k_lens);
  l.causal = causal;
  l.h_q = h;
  l.h_kv = 1;
  return l;
}

TEST(LocaliseTest, CausalMisalignmentNamesRowsBeforeTheLast) {
  // MLA decode o [b, s_q, h, dv] with s_q = 4: every row but the last sees extra keys.
  Pair p = Make({2, 4, 8, 16}, [](const std::vector<int64_t>& i) { return i[1] < 3; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(2, 4, {70, 130}, 8, true));
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->errors, 2 * 3 * 8 * 16);
  ASSERT_FALSE(l->hints.empty());
  EXPECT_EQ(
      l->hints[0].rfind(
          "o: all 768 errors in query rows i < s_q - 1 (not the last query row of each sequence): "
          "the causal mask is misaligned for s_q > 1",
          0),
      0u)
      << Hints(*l);
  // Worst elements name their coordinates.
  ASSERT_FALSE(l->worst.empty());
  EXPECT_EQ(l->worst[0].coords[0].first, "batch");
  EXPECT_EQ(l->worst[0].coords[1].first, "row");
  EXPECT_LT(l->worst[0].coords[1].second, 3);
  EXPECT_GT(l->worst[0].ratio, 1);
}

TEST(LocaliseTest, HeadsFromSixtyFour) {
  Pair p = Make({1, 2, 128, 4}, [](const std::vector<int64_t>& i) { return i[2] >= 64; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(1, 2, {64}, 128, false));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(AnyHintHas(*l, "all 512 errors in heads >= 64 only")) << Hints(*l);
  EXPECT_FALSE(AnyHintHas(*l, "query rows")) << Hints(*l);
}

TEST(LocaliseTest, KeyLengthsNotAMultipleOf64) {
  std::vector<int64_t> lens = {64, 100, 128, 70};
  Pair p = Make({4, 1, 4, 8}, [&](const std::vector<int64_t>& i) {
    return lens[static_cast<size_t>(i[0])] % 64 != 0;
  });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(4, 1, lens, 4, false));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(AnyHintHas(*l, "all 64 errors in sequences whose key length is not a multiple of 64"))
      << Hints(*l);
}

TEST(LocaliseTest, RandomNoiseGetsNoHint) {
  Rng rng(5);
  std::vector<bool> bad(2 * 8 * 16 * 32);
  for (size_t i = 0; i < bad.size(); ++i) bad[i] = rng.Uniform() < 0.05;
  int64_t k = 0;
  Pair p = Make({2, 8, 16, 32},
                [&](const std::vector<int64_t>&) { return bad[static_cast<size_t>(k++)]; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(2, 8, {70, 64}, 16, true));
  ASSERT_TRUE(l.ok());
  EXPECT_GT(l->errors, 100);
  EXPECT_TRUE(l->hints.empty()) << Hints(*l);
}

TEST(LocaliseTest, GemmTailColumnsAndVarlenCoordinates) {
  Pair p = Make({65, 200}, [](const std::vector<int64_t>& i) { return i[1] >= 128; });
  LocaliseLayout g;
  g.axes = {AxisRole::kM, AxisRole::kN};
  auto l = LocaliseErrors("d", p.cand, p.ref, Allclose(), g);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(AnyHintHas(*l, "in columns n >= 128 (the tail after the last full 128-column tile)"))
      << Hints(*l);

  // Varlen: packed tokens [5 + 3, h, dv]; the worst element names sequence and position.
  Pair v = Make({8, 2, 4},
                [](const std::vector<int64_t>& i) { return i[0] == 6 && i[1] == 1 && i[2] == 2; });
  LocaliseLayout vl;
  vl.axes = {AxisRole::kToken, AxisRole::kHead, AxisRole::kChannel};
  vl.q_lens = {5, 3};
  auto lv = LocaliseErrors("o", v.cand, v.ref, Allclose(), vl);
  ASSERT_TRUE(lv.ok());
  ASSERT_EQ(lv->worst.size(), 1u);
  std::vector<std::pair<std::string, int64_t>> want = {
      {"sequence", 1}, {"position", 1}, {"head", 1}, {"channel", 2}};
  EXPECT_EQ(lv->worst[0].coords, want);
  EXPECT_TRUE(lv->hints.empty()) << "one error is too few for a pattern";
}

// The value signatures of real bugs, wherever the errors sit.
TEST(LocaliseTest, ValueSignaturesLog2ZerosNanAndScale) {
  const Shape shape{2, 4, 8};  // batch, head, row (an lse-like [b, h, s_q])
  LocaliseLayout layout;
  layout.axes = {AxisRole::kBatch, AxisRole::kHead, AxisRole::kRow};
  auto run = [&](const std::function<double(double)>& f) {
    Tensor ref = Tensor::Zeros(DType::kF32, shape), cand = Tensor::Zeros(DType::kF32, shape);
    Rng rng(5);
    for (int64_t i = 0; i < ref.numel(); ++i) {
      std::vector<int64_t> idx = ref.Unravel(i);
      double r = 3 + rng.Normal();
      ref.SetDouble(idx, r);
      cand.SetDouble(idx, f(r));
    }
    Result<Localisation> l = LocaliseErrors("lse", cand, ref, Allclose(), layout);
    EXPECT_TRUE(l.ok());
    return l.ok() ? *l : Localisation{};
  };
  EXPECT_TRUE(AnyHintHas(run([](double r) { return r / std::log(2.0); }), "1 / ln 2"));
  EXPECT_TRUE(AnyHintHas(run([](double) { return 0.0; }), "exactly 0"));
  EXPECT_TRUE(
      AnyHintHas(run([](double) { return std::nan(""); }), "NaN where the reference is finite"));
  EXPECT_TRUE(AnyHintHas(run([](double r) { return r * 0.125; }), "x 0.125 throughout"));
  // An additive error has no value signature.
  Localisation shifted = run([](double r) { return r + 0.5; });
  EXPECT_FALSE(AnyHintHas(shifted, "candidate ="));
  EXPECT_FALSE(AnyHintHas(shifted, "exactly 0"));
}

TEST(HeatmapSvgTest, RendersCellsAxesAndLegend) {
  Pair p = Make({2, 4, 8, 16}, [](const std::vector<int64_t>& i) { return i[1] < 3; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(2, 4, {70, 130}, 8, true));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->heat.rows, 8);
  EXPECT_EQ(l->heat.cols, 8);
  std::string svg = RenderHeatmapSvg(*l, "case <1>: o");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("case &lt;1&gt;: o"), std::string::npos);
  EXPECT_NE(svg.find("error / tolerance"), std::string::npos);
  EXPECT_NE(svg.find(">head</text>"), std::string::npos);
  EXPECT_NE(svg.find("batch x query row"), std::string::npos);
  EXPECT_NE(svg.find(">b1</text>"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

}  // namespace
}  // namespace av
