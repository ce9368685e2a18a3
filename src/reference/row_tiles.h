// Row tiles for the register-blocked kernels (fast_kernels_impl.h, fast_fp8_dot*.cc): the
// row counts a kernel's templates are instantiated for, chosen once here so every kernel
// cuts rows the same way. Header-only; any thread.
#pragma once

#include <cstdint>
#include <type_traits>

namespace av {

// Calls f(r, std::integral_constant<int, R>) for row tiles covering [0, rows): tiles of 6,
// except that a remainder of 7..11 rows is split into two near-equal tiles (128 = 20 x 6
// + 4 + 4, not 21 x 6 + 2: a 2-row tile has 8 accumulators, too few to hide the FMA
// latency). Each element's sum runs in the same order whatever tile it is in, so the
// tiling never changes a result.
template <typename F>
inline void ForRowTiles(int64_t rows, F&& f) {
  int64_t r = 0;
  while (r < rows) {
    const int64_t left = rows - r;
    const int64_t n = left >= 12 || left == 6 ? 6 : left > 6 ? (left + 1) / 2 : left;
    switch (n) {
      case 6:
        f(r, std::integral_constant<int, 6>{});
        break;
      case 5:
        f(r, std::integral_constant<int, 5>{});
        break;
      case 4:
        f(r, std::integral_constant<int, 4>{});
        break;
      case 3:
        f(r, std::integral_constant<int, 3>{});
        break;
      case 2:
        f(r, std::integral_constant<int, 2>{});
        break;
      default:
        f(r, std::integral_constant<int, 1>{});
        break;
    }
    r += n;
  }
}

}  // namespace av
