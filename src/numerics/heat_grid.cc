#include "numerics/heat_grid.h"

#include <algorithm>

namespace av {
namespace {

// Grid row and column of an element: (sequence, query row) flattened, or the packed
// token, by head; GEMM m by n.
std::pair<int64_t, int64_t> Cell(const Coord& c, const CoordMap& map) {
  if (map.gemm()) return {std::max<int64_t>(c.m, 0), std::max<int64_t>(c.n, 0)};
  const int64_t seq = std::max<int64_t>(c.seq, 0), row = std::max<int64_t>(c.row, 0);
  const int64_t r =
      map.varlen() ? map.token_start(seq) + row : seq * std::max<int64_t>(map.rows_axis(), 1) + row;
  return {r, std::max<int64_t>(c.head, 0)};
}

}  // namespace

HeatGrid MakeHeatGrid(const CoordMap& map) {
  HeatGrid heat;
  int64_t grid_rows = 1, grid_cols = 1;
  if (map.gemm()) {
    // Move-assigned: GCC 12 at -O3 reads assigning a one-letter literal as an overlapping
    // memcpy (-Wrestrict, a false positive fixed in GCC 13).
    heat.row_axis = std::string("m");
    heat.col_axis = std::string("n");
    grid_rows = map.m_size();
    grid_cols = std::max<int64_t>(map.n_size(), 1);
  } else {
    heat.row_axis = map.varlen()      ? "token (sequence, position)"
                    : map.batch() > 0 ? "batch x query row"
                                      : "query row";
    heat.col_axis = map.heads() > 0 ? "head" : "-";
    grid_rows = map.varlen()
                    ? map.tokens()
                    : std::max<int64_t>(map.batch(), 1) * std::max<int64_t>(map.rows_axis(), 1);
    grid_cols = std::max<int64_t>(map.heads(), 1);
  }
  grid_rows = std::max<int64_t>(grid_rows, 1);
  heat.row_bucket = (grid_rows + kMaxHeatRows - 1) / kMaxHeatRows;
  heat.col_bucket = (grid_cols + kMaxHeatCols - 1) / kMaxHeatCols;
  heat.rows = (grid_rows + heat.row_bucket - 1) / heat.row_bucket;
  heat.cols = (grid_cols + heat.col_bucket - 1) / heat.col_bucket;
  heat.ratio.assign(static_cast<size_t>(heat.rows * heat.cols), 0.0);
  const int64_t nseq = map.sequences();
  if (!map.gemm() && nseq > 0 && nseq <= 16) {
    for (int64_t s = 0; s < nseq; ++s) {
      const int64_t start =
          map.varlen() ? map.token_start(s) : s * std::max<int64_t>(map.rows_axis(), 1);
      heat.row_ticks.emplace_back(start / heat.row_bucket,
                                  (map.varlen() ? "seq " : "b") + std::to_string(s));
    }
  }
  if (heat.row_ticks.empty()) {
    for (int64_t t = 0; t < 5; ++t) {
      const int64_t row = t * (grid_rows - 1) / 4;
      heat.row_ticks.emplace_back(row / heat.row_bucket, std::to_string(row));
    }
  }
  return heat;
}

void AddHeat(const Coord& c, double ratio, const CoordMap& map, HeatGrid* grid) {
  const auto [r, col] = Cell(c, map);
  const int64_t gr = std::min(r / grid->row_bucket, grid->rows - 1);
  const int64_t gc = std::min(col / grid->col_bucket, grid->cols - 1);
  double& cell = grid->ratio[static_cast<size_t>(gr * grid->cols + gc)];
  cell = std::max(cell, ratio);
}

}  // namespace av
