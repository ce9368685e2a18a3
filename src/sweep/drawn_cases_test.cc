#include "sweep/drawn_cases.h"

#include <gtest/gtest.h>

#include <set>

#include "core/file.h"
#include "sweep/case_builder.h"
#include "sweep/case_constraints.h"
#include "testing/test_util.h"

namespace av {
namespace {

ShapesConfig DefaultShapes() {
  Result<ShapesConfig> shapes = LoadShapesConfig(testing::SourceDir() + "/config/shapes.json");
  EXPECT_TRUE(shapes.ok()) << shapes.status().message();
  return shapes.ok() ? *shapes : ShapesConfig();
}

std::vector<int64_t> Dims(const CaseSpec& c) {
  CaseParams p(*FindSweepOp(c.op), c.params);
  std::vector<int64_t> d;
  for (const std::string& k : DrawnShapeKeys(c.op)) d.push_back(p.Int(k));
  return d;
}

// Issue 35 (tested_shapes_only): the default sweep is public, so each run adds cases of
// shapes it does not list, drawn from its own lattice with the run's salt: the same salt
// the same cases, another salt others, each one the op can build, none a listed shape.
TEST(DrawnCasesTest, DefaultSweepGetsUnseenBuildableShapesPerSalt) {
  const ShapesConfig shapes = DefaultShapes();
  Result<std::vector<CaseSpec>> all = ExpandCases(shapes);
  ASSERT_TRUE(all.ok()) << all.status().message();
  std::set<std::pair<std::string, std::vector<int64_t>>> listed;
  for (const CaseSpec& c : *all) listed.insert({c.sweep, Dims(c)});
  std::set<std::string> seen_ids;
  for (uint64_t salt = 1; salt <= 20; ++salt) {
    std::vector<CaseSpec> drawn = DrawCases(shapes, *all, salt, 2);
    // mla_decode, fp8_gemm, attention_masks, gemm_bf16 (the sparse and layout sweeps list
    // one shape each: nothing unseen to draw).
    ASSERT_EQ(drawn.size(), 8u) << "salt " << salt;
    std::vector<CaseSpec> again = DrawCases(shapes, *all, salt, 2);
    for (size_t i = 0; i < drawn.size(); ++i) {
      const CaseSpec& c = drawn[i];
      EXPECT_EQ(c.id, again[i].id);
      EXPECT_TRUE(c.drawn);
      EXPECT_EQ(c.salt, salt);
      EXPECT_EQ(c.kind, VariantKind::kBase);
      EXPECT_EQ(c.index, static_cast<int64_t>(all->size() + i));
      EXPECT_EQ(c.id.find(c.sweep + ".drawn"), 0u) << c.id;
      EXPECT_EQ(listed.count({c.sweep, Dims(c)}), 0u) << c.id << " is a listed shape";
      EXPECT_TRUE(CheckCaseConstraints(c).ok()) << c.id;
      seen_ids.insert(c.id);
    }
    if (salt <= 3) {
      for (const CaseSpec& c : drawn) {
        Result<BuiltCase> built = BuildCase(c);
        EXPECT_TRUE(built.ok()) << c.id << ": " << built.status().message();
      }
    }
  }
  EXPECT_GT(seen_ids.size(), 100u) << "20 salts should draw mostly different cases";
  EXPECT_TRUE(DrawCases(shapes, *all, 1, 0).empty());
}

// The lattice: multiples of the values' greatest common divisor between their least and
// greatest. n in {192, 576} and k in {256, 448} leave n = 384 and k = 320 or 384 unseen.
TEST(DrawnCasesTest, DrawsOnTheLatticeTheSweepsValuesSpan) {
  Result<ShapesConfig> shapes = ParseShapesConfig(R"({"version": 1, "sweeps": [
      {"name": "g", "op": "fp8_gemm", "grid": {"m": [128], "n": [192, 576], "k": [256, 448]}}]})",
                                                  "s.json");
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  Result<std::vector<CaseSpec>> all = ExpandCases(*shapes);
  ASSERT_TRUE(all.ok());
  for (uint64_t salt = 1; salt <= 30; ++salt) {
    for (const CaseSpec& c : DrawCases(*shapes, *all, salt, 3)) {
      const std::vector<int64_t> d = Dims(c);  // m, n, k
      EXPECT_EQ(d[0], 128);
      EXPECT_TRUE(d[1] == 192 || d[1] == 384 || d[1] == 576) << c.id;
      EXPECT_TRUE(d[2] % 64 == 0 && d[2] >= 256 && d[2] <= 448) << c.id;
      EXPECT_TRUE(d[1] == 384 || d[2] == 320 || d[2] == 384) << c.id << " is listed";
    }
  }
}

// A drawn case asks about a shape, on normal inputs: the stress generators (large_logits,
// near_tie, fp8_saturating, wide_range) stay with the listed cases whose sizes the anchors'
// tolerances were set for. Drawn from a large_logits base onto a larger shape, a correct
// bf16 MLA kernel once had one element in 1.25 million past FlashMLA's bound.
TEST(DrawnCasesTest, DrawnCasesUseNormalInputsWhateverTheirBaseCasesGenerator) {
  Result<ShapesConfig> shapes = ParseShapesConfig(R"({"version": 1, "sweeps": [
    {"name": "m", "op": "mla_decode", "fixed": {"d": 32, "dv": 16},
     "cases": [{"b": 1, "s_k": 20, "generator": "large_logits"},
               {"b": 4, "s_k": 140, "generator": "large_logits"}]},
    {"name": "g", "op": "gemm", "cases": [{"m": 1, "n": 8, "k": 16, "generator": "wide_range"},
                                          {"m": 9, "n": 24, "k": 48, "generator": "wide_range"}]}]})",
                                                 "s.json");
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  Result<std::vector<CaseSpec>> all = ExpandCases(*shapes);
  ASSERT_TRUE(all.ok()) << all.status().message();
  for (const CaseSpec& c : *all) EXPECT_NE(CaseParams(*FindSweepOp(c.op), c.params).String("generator"), "randn");
  for (uint64_t salt = 1; salt <= 10; ++salt) {
    std::vector<CaseSpec> drawn = DrawCases(*shapes, *all, salt, 2);
    ASSERT_EQ(drawn.size(), 4u) << "salt " << salt;
    for (const CaseSpec& c : drawn) {
      EXPECT_EQ(CaseParams(*FindSweepOp(c.op), c.params).String("generator"), "randn") << c.id;
      EXPECT_NE(c.id.find("generator=randn"), std::string::npos) << c.id;
    }
  }
}

}  // namespace
}  // namespace av
