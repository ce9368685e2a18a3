// Which keys a query row may see, and the ALiBi bias — the anchors' exact position rules
// (flash-attention's attention_ref / construct_local_mask, FlashMLA's reference), in one
// place so every reference op and every test uses the same definition. Pure functions.
//
// Positions are bottom-right aligned: row i of a sequence with lengths (s_q, s_k) sits at
// key position i + s_k - s_q, so the last query row lines up with the last key.
#pragma once

#include <cmath>
#include <cstdint>

namespace av {

struct MaskSpec {
  bool causal = false;
  // Sliding window; -1 = unbounded on that side. causal is window (left, 0).
  int64_t window_left = -1;
  int64_t window_right = -1;
};

// The key position row i is aligned with: i + s_k - s_q (may be negative when s_q > s_k).
inline int64_t AlignedPosition(int64_t i, int64_t s_q, int64_t s_k) { return i + s_k - s_q; }

// True when key j (0 <= j < s_k) is visible to query row i (0 <= i < s_q):
//   masked iff j > i + s_k - s_q + right (right >= 0, or 0 when causal)
//           or (left >= 0 and j < i + s_k - s_q - left).
inline bool KeyVisible(const MaskSpec& mask, int64_t i, int64_t j, int64_t s_q, int64_t s_k) {
  if (j < 0 || j >= s_k) return false;
  const int64_t pos = AlignedPosition(i, s_q, s_k);
  const int64_t right = mask.causal ? 0 : mask.window_right;
  if (right >= 0 && j > pos + right) return false;
  if (mask.window_left >= 0 && j < pos - mask.window_left) return false;
  return true;
}

// ALiBi bias added to the (scaled, soft-capped) score: -slope * |i + s_k - s_q - j|.
inline double AlibiBias(double slope, int64_t i, int64_t j, int64_t s_q, int64_t s_k) {
  return -slope * std::fabs(static_cast<double>(AlignedPosition(i, s_q, s_k) - j));
}

}  // namespace av
