// Warp collectives under lane-dependent branches (synthetic, for the review tests).
#include <cstdint>

__global__ void row_sum_kernel(const float* x, float* y, int n) {
  const int lane_id = threadIdx.x % 32;
  const int warp_id = threadIdx.x / 32;
  float v = 0.f;
  for (int i = lane_id; i < n; i += 32) {
    v += x[i];
  }
  if (lane_id < 16) {
    v *= 2.f;
  }
  if (warp_id == 0) {
    y[lane_id] = v;
  }
}

__global__ void copy_rows_kernel(const int4* x, int4* y, int n, int aligned) {
  const int lane_id = threadIdx.x % 32;
  for (int i = lane_id; i < n; i += 32) {
    const int4 v = x[i];
    __syncwarp();
    y[i] = v;
  }
}

__global__ void drain_kernel(const int* pending_in, int* out) {
  const int lane_id = threadIdx.x % 32;
  int pending = pending_in[lane_id];
  while (__any_sync(0xffffffff, pending > 0)) {
    pending -= 1;
  }
  out[lane_id] = pending;
}

__global__ void first_warps_kernel(float* y) {
  float v = y[threadIdx.x];
  if (threadIdx.x < 64) {
    v += 1.f;
  }
  y[threadIdx.x] = v;
}
