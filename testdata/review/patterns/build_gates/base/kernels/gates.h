// Synthetic fixture for the build-gate rules (written for review_patterns_test.cc).
#ifndef DEMO_GATES_H_
#define DEMO_GATES_H_

#if DEMO_TOOLKIT_VERSION >= 20
#define DEMO_FAST_MMA
#endif

#include <tuple>

constexpr std::tuple<int, int, bool> pick_tile(int headdim, bool paged) {
  if (headdim <= 64) {
    return {128, 112, true};
  } else if (headdim <= 128) {
    return {128, paged ? 64 : 96, true};
  }
  return {64, 64, false};
}

__device__ inline float mma_step(float a, float b) {
#ifdef DEMO_FAST_MMA
  return a * b;
#else
  return a * b + 0.0f;
#endif
}

__device__ inline float rescale(float acc, float s) {
  return acc * s;
}

#endif  // DEMO_GATES_H_
