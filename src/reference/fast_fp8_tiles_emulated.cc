// The FP8 tile panel on EmulatedTiles: the AMX build's bits in portable C++ (std::fma is
// the fused multiply-add the AVX-512 flush uses), for tests on any CPU.
#include <cmath>

#include "reference/fast_fp8_tiles.h"
#include "reference/fast_fp8_tiles_impl.h"

namespace av {
namespace {

struct ScalarFlush {
  static void Row(const float* sums, float s, float* d) {
    for (int64_t c = 0; c < kFp8DotPanel; ++c) d[c] = std::fma(sums[c], s, d[c]);
  }
};

}  // namespace

void Fp8TilePanelEmulated(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                          int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb,
                          float* d) {
  Fp8TilePanel<EmulatedTiles, ScalarFlush>(a, lda, sa, lda_scale, rows, kblocks, bt, sb, d);
}

}  // namespace av
