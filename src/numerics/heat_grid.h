// The heat grid of a failing output: the largest error / tolerance per cell of a rows x
// columns grid (batch x query row, or varlen tokens, by heads; GEMM m by n), long axes
// bucketed so the grid stays at most kMaxHeatRows x kMaxHeatCols. heatmap_svg renders it.
// Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numerics/localise_coords.h"

namespace av {

// Max error / tolerance per cell; long axes are bucketed (cells take the max).
struct HeatGrid {
  std::string row_axis, col_axis;
  int64_t rows = 0, cols = 0;
  int64_t row_bucket = 1, col_bucket = 1;                  // indices per cell
  std::vector<double> ratio;                               // rows * cols, row-major
  std::vector<std::pair<int64_t, std::string>> row_ticks;  // cell row -> label
};

inline constexpr int64_t kMaxHeatRows = 256;
inline constexpr int64_t kMaxHeatCols = 128;

// The empty grid of an output (every cell 0), with its axis names and row ticks (one per
// sequence when there are at most 16, else five evenly spaced row numbers).
HeatGrid MakeHeatGrid(const CoordMap& map);

// Raises the cell holding element `c` to `ratio`.
void AddHeat(const Coord& c, double ratio, const CoordMap& map, HeatGrid* grid);

}  // namespace av
