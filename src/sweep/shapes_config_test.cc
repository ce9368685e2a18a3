// shapes.json "tile": parsed per sweep with its messages, carried by every case and its
// variants, and handed to the localiser's layout (sweep/output_layout.h).
#include "sweep/shapes_config.h"

#include <gtest/gtest.h>

#include "sweep/output_layout.h"

namespace av {
namespace {

Status ShapesError(const std::string& text) {
  return ParseShapesConfig(text, "shapes.json").status();
}

TEST(ShapesTileTest, TilesReachEveryCaseAndTheLocaliserLayout) {
  auto cfg = ParseShapesConfig(R"({"version": 1, "sweeps": [
      {"name": "m", "op": "mla_decode", "fixed": {"d": 16, "dv": 8, "h_q": 2}, "grid": {"b": [1, 2]},
       "tile": {"keys": 128, "comment": "the refactor's kBlockN"}, "invariance": {"reruns": 1}},
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}], "tile": {"n": 64}},
      {"name": "d", "op": "attention"}]})",
                               "shapes.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  auto cases = ExpandCases(*cfg);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_EQ(cases->size(), 6u);
  for (const CaseSpec& c : *cases) {
    const TileSpec want = c.sweep == "m"   ? TileSpec{64, 128, 128, 128}
                          : c.sweep == "g" ? TileSpec{64, 64, 128, 64}
                                           : TileSpec{};
    EXPECT_EQ(c.tile.rows, want.rows) << c.id;
    EXPECT_EQ(c.tile.keys, want.keys) << c.id;
    EXPECT_EQ(c.tile.m, want.m) << c.id;
    EXPECT_EQ(c.tile.n, want.n) << c.id;
  }
  // The rerun variant keeps its sweep's tiles; the layout takes them.
  const CaseSpec& rerun = (*cases)[1];
  ASSERT_EQ(rerun.variant, "rerun=1");
  auto layout = OutputLayout(rerun, "o", Shape{1, 1, 2, 8}, CaseNotes{});
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->tile_keys, 128);
  EXPECT_EQ(layout->tile_rows, 64);
}

TEST(ShapesTileTest, ErrorsNameFilePathAndProblem) {
  EXPECT_EQ(ShapesError(
                R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm", "tile": {"keys": 64}}]})")
                .message(),
            "shapes.json: $.sweeps[0].tile: unknown key \"keys\" (allowed: comment, m, n)");
  EXPECT_EQ(
      ShapesError(
          R"({"version": 1, "sweeps": [{"name": "a", "op": "attention", "tile": {"rows": 0}}]})")
          .message(),
      "shapes.json: $.sweeps[0].tile.rows: must be an integer in 1..65536, got 0");
  EXPECT_EQ(
      ShapesError(R"({"version": 1, "sweeps": [{"name": "a", "op": "attention", "tile": [64]}]})")
          .message(),
      "shapes.json: $.sweeps[0].tile: must be an object of tile sizes");
}

}  // namespace
}  // namespace av
