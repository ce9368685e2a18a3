// Synthetic fixture (round 11): a causal convolution's update step and a lane helper.
#include <cstdio>
#include <optional>

struct StepParams {
  int len;
  int width;
  int ring;
  float* state;
};

template <typename T>
__global__ void causal_conv_step_kernel(StepParams p) {
  const int b = blockIdx.x;
  int step = p.len;
  for (int i = 0; i < p.width; ++i) {
    p.state[b * p.width + i] = p.state[b * p.width + i + step];
  }
}

template <typename T>
void causal_conv_step_launch(StepParams p, int smem, cudaStream_t stream) {
  auto kernel = &causal_conv_step_kernel<T>;
  if (smem >= 48 * 1024) {
    std::fprintf(stderr, "step launch (causal): large smem %d\n", smem);
  }
  causal_conv_step_kernel<T><<<1, 32, smem, stream>>>(p);
}

void causal_conv_step(const std::optional<int> &ring_seqlens_, StepParams p, cudaStream_t s) {
  causal_conv_step_launch<float>(p, 0, s);
}

struct LaneScan {
  int lane;
  explicit __device__ __forceinline__
  LaneScan()
#ifndef USE_HIP
      : lane(threadIdx.x & 0x1f)
#else
      : lane(threadIdx.x & (WAVE_SIZE - 1))
#endif
  {
  }
  __device__ int Get() const { return lane; }
};

__global__ void ring_write_kernel(const int* starts, float* ring, int ring_len, int width) {
  int start = starts[blockIdx.x] % ring_len;
  int slot_idx = start - (width - 1);
  slot_idx = slot_idx < 0 ? slot_idx + ring_len : slot_idx;
  for (int i = 0; i < width; ++i) {
    ring[slot_idx] = 0.f;
    ++slot_idx;
    slot_idx = slot_idx >= ring_len ? slot_idx - ring_len : slot_idx;
  }
}
