#pragma once

constexpr int pick_block_n(int headdim, bool use_one_wg, bool fp8) {
  if (!fp8) {
    return headdim <= 128 ? 128 : 64;
  } else {
    if (use_one_wg) {
      return headdim <= 96 ? 128 : 96;
    } else {
      return headdim <= 64 ? 160 : 176;
    }
  }
}
