// Persistent tile scheduler of the varlen attention kernel (attnverify fixture).
#pragma once

struct PersistentScheduler {
  struct Params {
    int num_blocks;
    FastDivmod m_blocks, heads, batches;
  };

  template <class ProblemSize, class TileShape>
  static Params to_params(ProblemSize const& problem, TileShape const& tile, int sm_count) {
    int num_m_blocks = ceil_div(size<0>(problem), size<0>(tile));
    int num_blocks = num_m_blocks * size<3, 0>(problem) * size<3, 1>(problem);
    num_blocks = min(num_blocks, sm_count);

    return Params{
        num_blocks,
        {num_m_blocks}, {size<3, 0>(problem)}, {size<3, 1>(problem)}};
  }
};
