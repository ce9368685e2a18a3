// Localisation on synthetic error tensors: each planted pattern (causal misalignment
// rows, heads >= 64, key lengths not a multiple of 64) is named by its hint, random
// noise gets no hint, worst elements carry named coordinates, and the heatmap renders.
// The regressions: the error count is the compare report's mismatch count, a few bad
// rows or an evenly spread error make no pattern, empty sequences blame no tile.
#include "numerics/localise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

#include "numerics/compare.h"
#include "numerics/heatmap_svg.h"
#include "numerics/localise_hints.h"

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
  // 12 rows, the 3 last ones right: 1 in 220 for 9 bad rows placed at random.
  Pair p = Make({3, 4, 8, 16}, [](const std::vector<int64_t>& i) { return i[1] < 3; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(3, 4, {70, 130, 129}, 8, true));
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->errors, 3 * 3 * 8 * 16);
  ASSERT_FALSE(l->hints.empty());
  EXPECT_EQ(l->hints[0].rfind(
                "o: all 1152 errors in query rows i < s_q - 1 (not the last query row of each "
                "sequence): the causal mask is misaligned for s_q > 1",
                0),
            0u)
      << Hints(*l);

  // With 2 sequences (8 rows, 2 of them right) chance does it 1 time in 28: no hint.
  Pair few = Make({2, 4, 8, 16}, [](const std::vector<int64_t>& i) { return i[1] < 3; });
  auto lf = LocaliseErrors("o", few.cand, few.ref, Allclose(), Attention(2, 4, {70, 130}, 8, true));
  ASSERT_TRUE(lf.ok());
  EXPECT_FALSE(AnyHintHas(*lf, "query rows")) << Hints(*lf);
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

// Sequences are the units of a key-length pattern: 6 of 12 wrong is evidence (1 in 924),
// 2 of 4 is not (1 in 6).
TEST(LocaliseTest, KeyLengthsNotAMultipleOf64) {
  std::vector<int64_t> lens;
  for (int k = 0; k < 3; ++k) lens.insert(lens.end(), {64, 100, 128, 70});
  Pair p = Make({12, 1, 4, 8}, [&](const std::vector<int64_t>& i) {
    return lens[static_cast<size_t>(i[0])] % 64 != 0;
  });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(12, 1, lens, 4, false));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(
      AnyHintHas(*l, "all 192 errors in sequences whose key length is not a multiple of 64"))
      << Hints(*l);

  lens.resize(4);
  Pair few = Make({4, 1, 4, 8}, [&](const std::vector<int64_t>& i) {
    return lens[static_cast<size_t>(i[0])] % 64 != 0;
  });
  auto lf = LocaliseErrors("o", few.cand, few.ref, Allclose(), Attention(4, 1, lens, 4, false));
  ASSERT_TRUE(lf.ok());
  EXPECT_FALSE(AnyHintHas(*lf, "multiple of 64")) << Hints(*lf);
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

// Every rule's per-element verdict comes from the comparer: values on the tolerance's
// edge (equality, float32 rounding for flashmla), NaN and inf pairs, allow_nan and
// equal_nan give the same count in the localisation as in the compare report.
TEST(LocaliseRegression, ErrorCountIsTheCompareReportsMismatchCount) {
  const Shape shape{16, 40};
  Tensor ref = Tensor::Zeros(DType::kF32, shape), cand = ref, low = ref;
  cand = Tensor::Zeros(DType::kF32, shape);
  low = Tensor::Zeros(DType::kF32, shape);
  Rng rng(3);
  const double kSpecial[] = {NAN, INFINITY, -INFINITY};
  for (int64_t i = 0; i < ref.numel(); ++i) {
    std::vector<int64_t> idx = ref.Unravel(i);
    const float r = static_cast<float>(rng.Normal());
    // |a - r| spread around every rule's bound below: atol 1e-3 + rtol 1e-3 |r| (allclose),
    // max(8e-4, 0.0157 |r|) (flashmla), the lowprec threshold.
    const double edge = (i % 3 == 0)   ? 1e-3 + 1e-3 * std::fabs(r)
                        : (i % 3 == 1) ? std::max(8e-4, 0.015703125 * std::fabs(r))
                                       : 2 * 1e-3;
    const double step = 1 + (static_cast<double>(i % 7) - 3) * 1e-7;
    float a = static_cast<float>(r + edge * step * (i % 2 ? 1 : -1));
    float rr = r;
    if (i % 37 == 5) a = static_cast<float>(kSpecial[i % 3]);             // a non-finite
    if (i % 41 == 7) rr = a = static_cast<float>(kSpecial[(i + 1) % 3]);  // both the same
    if (i % 43 == 9) rr = static_cast<float>(kSpecial[i % 3]);            // r non-finite
    ref.SetDouble(idx, rr);
    cand.SetDouble(idx, a);
    low.SetDouble(idx, rr + (i == 0 ? 1e-3 : 0));  // max |lowprec - ref| = 1e-3
  }
  LocaliseLayout gemm;
  gemm.axes = {AxisRole::kM, AxisRole::kN};
  struct Req {
    const char* name;
    RuleRequest request;
  };
  auto req = [](RuleKind k, double atol, double rtol, bool allow_nan, bool equal_nan) {
    RuleRequest r;
    r.kind = k;
    if (k != RuleKind::kExact) r.atol = atol;
    if (k == RuleKind::kAllclose || k == RuleKind::kFlashMla) r.rtol = rtol;
    r.allow_nan = allow_nan;
    r.equal_nan = equal_nan;
    if (k == RuleKind::kLowprecMultiple) r.k = 2;
    if (k == RuleKind::kFlashMla) r.cos_tol = 1;
    return r;
  };
  const Req requests[] = {
      {"allclose", req(RuleKind::kAllclose, 1e-3, 1e-3, false, false)},
      {"allclose equal_nan", req(RuleKind::kAllclose, 1e-3, 1e-3, false, true)},
      {"allclose allow_nan", req(RuleKind::kAllclose, 1e-3, 1e-3, true, false)},
      {"flashmla", req(RuleKind::kFlashMla, 8e-4, 0.015703125, false, false)},
      {"flashmla allow_nan", req(RuleKind::kFlashMla, 8e-4, 0.015703125, true, false)},
      {"lowprec_multiple", req(RuleKind::kLowprecMultiple, 0, 0, false, false)},
      {"exact", req(RuleKind::kExact, 0, 0, false, false)},
  };
  for (const Req& q : requests) {
    const bool lowprec = q.request.kind == RuleKind::kLowprecMultiple;
    Result<CompareReport> report = CompareTensors(cand, ref, lowprec ? &low : nullptr, q.request);
    ASSERT_TRUE(report.ok()) << q.name << ": " << report.status().message();
    ASSERT_GT(report->mismatches, 0) << q.name;
    ASSERT_LT(report->mismatches, ref.numel()) << q.name;
    Result<Localisation> l = LocaliseErrors("d", cand, ref, ElementToleranceFor(*report), gemm);
    ASSERT_TRUE(l.ok()) << q.name;
    EXPECT_EQ(l->errors, report->mismatches) << q.name;
    for (const LocatedElement& e : l->worst) EXPECT_GT(e.ratio, 1) << q.name;
  }
}

// Three bad rows whose errors happen to spare head 0: no pattern along the heads (the
// channels of a row are one unit, and one clean head is no range).
TEST(LocaliseRegression, AFewBadRowsDoNotMakeAHeadRange) {
  auto bad_row = [](const std::vector<int64_t>& i) {
    return (i[0] == 0 && (i[1] == 1 || i[1] == 5)) || (i[0] == 1 && i[1] == 2);
  };
  Pair p =
      Make({2, 8, 16, 32}, [&](const std::vector<int64_t>& i) { return bad_row(i) && i[2] >= 1; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(2, 8, {40, 40}, 16, false));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->errors, 3 * 15 * 32);
  EXPECT_FALSE(AnyHintHas(*l, "heads")) << Hints(*l);
}

// Errors spread evenly over a GEMM's rows at m = 128 and 129: rows m mod 128 != 0 hold
// 98.4-99.2% of them, yet the per-token scale hint must not fire.
TEST(LocaliseRegression, EvenlySpreadGemmErrorIsNotPerTokenScales) {
  for (int64_t m : {128, 129}) {
    for (double rate : {0.4, 1.0}) {
      Rng rng(static_cast<uint64_t>(m) * 10 + static_cast<uint64_t>(rate * 10));
      Pair p = Make({m, 192}, [&](const std::vector<int64_t>&) { return rng.Uniform() < rate; });
      LocaliseLayout g;
      g.axes = {AxisRole::kM, AxisRole::kN};
      auto l = LocaliseErrors("d", p.cand, p.ref, Allclose(), g);
      ASSERT_TRUE(l.ok());
      EXPECT_GT(l->errors, 0);
      EXPECT_FALSE(AnyHintHas(*l, "per 128 rows")) << "m " << m << " rate " << rate << "\n"
                                                   << Hints(*l);
      EXPECT_FALSE(AnyHintHas(*l, "only")) << "m " << m << " rate " << rate << "\n" << Hints(*l);
      EXPECT_EQ(AnyHintHas(*l, "errors everywhere"), rate == 1.0) << Hints(*l);
    }
  }
}

// The scale bug itself at m = 129: rows 1..127 wrong, rows 0 and 128 right.
TEST(LocaliseTest, PerTokenScalesAppliedPer128RowsAreNamedAtM129) {
  Pair p = Make({129, 192}, [](const std::vector<int64_t>& i) { return i[0] % 128 != 0; });
  LocaliseLayout g;
  g.axes = {AxisRole::kM, AxisRole::kN};
  auto l = LocaliseErrors("d", p.cand, p.ref, Allclose(), g);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(AnyHintHas(*l,
                         "all 24384 errors in rows m with m mod 128 != 0: per-token scales "
                         "look applied per 128 rows"))
      << Hints(*l);
}

// A global bug (every non-empty sequence wrong; empty ones give O = 0 either way) is not
// "sequences whose key length is not a multiple of 64": an empty sequence is no multiple.
TEST(LocaliseRegression, EmptySequencesDoNotBlameAGlobalBugOnPartialTiles) {
  std::vector<int64_t> lens = {0, 100, 0, 70, 129};
  Pair p = Make({5, 1, 8, 16},
                [&](const std::vector<int64_t>& i) { return lens[static_cast<size_t>(i[0])] > 0; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(5, 1, lens, 8, false));
  ASSERT_TRUE(l.ok());
  EXPECT_FALSE(AnyHintHas(*l, "multiple of 64")) << Hints(*l);
  EXPECT_FALSE(AnyHintHas(*l, "64-key tile")) << Hints(*l);
  EXPECT_TRUE(AnyHintHas(*l, "o: errors everywhere: 24 of 24 rows x heads that see a key"))
      << Hints(*l);
}

// The tile sizes in the hints are the layout's (shapes.json "tile"), not a literal 64.
TEST(LocaliseTest, TileSizesComeFromTheLayout) {
  std::vector<int64_t> lens;
  for (int k = 0; k < 3; ++k) lens.insert(lens.end(), {128, 200, 256, 70});
  Pair p = Make({12, 1, 4, 8}, [&](const std::vector<int64_t>& i) {
    return lens[static_cast<size_t>(i[0])] % 128 != 0;
  });
  LocaliseLayout layout = Attention(12, 1, lens, 4, false);
  layout.tile_keys = 128;
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), layout);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(AnyHintHas(*l, "in sequences whose key length is not a multiple of 128"))
      << Hints(*l);

  Pair rows = Make({2, 96, 2, 4}, [](const std::vector<int64_t>& i) { return i[1] >= 32; });
  LocaliseLayout r = Attention(2, 96, {96, 96}, 2, false);
  r.tile_rows = 32;
  auto lr = LocaliseErrors("o", rows.cand, rows.ref, Allclose(), r);
  ASSERT_TRUE(lr.ok());
  EXPECT_TRUE(AnyHintHas(*lr, "in query rows i >= 32 (the second and later 32-row tiles)"))
      << Hints(*lr);
}

// A pattern along the channels is tested over elements (a unit merges its channels).
TEST(LocaliseTest, ChannelRangesAreTestedOverElements) {
  Pair p = Make({2, 4, 8, 64}, [](const std::vector<int64_t>& i) { return i[3] >= 32; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(2, 4, {100, 100}, 8, false));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(AnyHintHas(*l, "all 2048 errors in channels >= 32 only")) << Hints(*l);
}

TEST(LocaliseHintsTest, HypergeometricLowerTailMatchesTheClosedForm) {
  // 10 units, 3 outside the pattern, 5 with errors: P(none outside) = C(7,5) / C(10,5).
  EXPECT_NEAR(HypergeometricLowerTail(10, 3, 5, 0), 21.0 / 252.0, 1e-12);
  // P(at most one outside) adds C(3,1) C(7,4) / C(10,5) = 105 / 252.
  EXPECT_NEAR(HypergeometricLowerTail(10, 3, 5, 1), 126.0 / 252.0, 1e-12);
  EXPECT_EQ(HypergeometricLowerTail(10, 3, 5, 3), 1.0);
  // 9 of 10 bad units leave at least 2 of 3 outside bad: fewer is impossible.
  EXPECT_EQ(HypergeometricLowerTail(10, 3, 9, 1), 0.0);
}

// Varlen lse is [head, token]: its heat rows are tokens, not heads.
TEST(HeatGridRegression, VarlenLseRowsAreTokens) {
  Pair v = Make({2, 8}, [](const std::vector<int64_t>& i) { return i[0] == 1 && i[1] == 6; });
  LocaliseLayout vl;
  vl.axes = {AxisRole::kHead, AxisRole::kToken};
  vl.q_lens = {5, 3};
  auto l = LocaliseErrors("lse", v.cand, v.ref, Allclose(), vl);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->heat.rows, 8);
  ASSERT_EQ(l->heat.cols, 2);
  for (int64_t r = 0; r < l->heat.rows; ++r) {
    for (int64_t c = 0; c < l->heat.cols; ++c) {
      EXPECT_EQ(l->heat.ratio[static_cast<size_t>(r * 2 + c)] > 1, r == 6 && c == 1) << r << c;
    }
  }
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

// Issue 38: a heatmap's title (a real case id and its tolerance) ran past the picture's
// right edge ("... (atol 0.000"). It is wrapped to the picture's width, every word kept,
// and the plot starts below it.
TEST(HeatmapSvgTest, ALongTitleIsWrappedInsideThePicture) {
  Pair p = Make({2, 4, 8, 16}, [](const std::vector<int64_t>& i) { return i[1] < 3; });
  auto l = LocaliseErrors("o", p.cand, p.ref, Allclose(), Attention(2, 4, {70, 130}, 8, true));
  ASSERT_TRUE(l.ok());
  const std::string title =
      "attention_layouts.layout=paged.lengths=random.padded=true.page_size=16.bf16.s0."
      "num_splits=2: o, max |cand - ref| over k * max |lowprec - ref| + atol (atol 0.00001, k 2)";
  const std::string svg = RenderHeatmapSvg(*l, title);
  const double width = std::stod(svg.substr(svg.find("width=\"") + 7));
  size_t lines = 0;
  std::string joined;
  const std::string tag = "<text x=\"8\" y=\"";
  for (size_t at = svg.find(tag); at != std::string::npos; at = svg.find(tag, at + 1)) {
    const size_t open = svg.find('>', at);
    if (svg.substr(at, open - at).find("bold") == std::string::npos) continue;  // the subtitle
    const std::string line = svg.substr(open + 1, svg.find("</text>", open) - open - 1);
    EXPECT_LE(8 + 8.0 * static_cast<double>(line.size()), width) << line;
    joined += line;
    ++lines;
  }
  EXPECT_GE(lines, 2u) << svg.substr(0, 600);
  std::string unspaced = title;
  unspaced.erase(std::remove(unspaced.begin(), unspaced.end(), ' '), unspaced.end());
  joined.erase(std::remove(joined.begin(), joined.end(), ' '), joined.end());
  EXPECT_EQ(joined, unspaced);  // every character of the title is shown
  // The plot's frame starts below the title's and the subtitle's last lines.
  const size_t frame = svg.find("<rect x=\"120\" y=\"");
  ASSERT_NE(frame, std::string::npos);
  EXPECT_GT(std::stod(svg.substr(frame + 17)), 16.0 * static_cast<double>(lines) + 18) << svg.substr(0, 900);
}

}  // namespace
}  // namespace av
