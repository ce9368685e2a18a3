#pragma once

constexpr int pick_block_n(int headdim, bool use_one_wg, bool fp8) {
  if (!fp8) {
    return headdim <= 128 ? 128 : 64;
  } else {
    if (headdim <= 64) {
      if (use_one_wg) {
        return 128;
      } else {
        return 160;
      }
    } else {
      if (use_one_wg) {
        return 96;
      } else {
        return 176;
      }
    }
  }
}
