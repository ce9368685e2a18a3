// Synthetic fixture (round 11): a causal convolution's update step and a lane helper.
#include <cstdio>
#include <optional>

struct StepParams {
  int len;
  int width;
  const int* steps;
  float* state;
};

template <typename T>
__global__ void causal_conv_step_kernel(StepParams p) {
  const int b = blockIdx.x;
  int step = p.steps == nullptr ? p.len : max(min(p.steps[b], p.len), 0);
  #pragma unroll 2
  for (int i = 0; i < p.width; ++i) {
    p.state[b * p.width + i] = p.state[b * p.width + i + step];
  }
}

template <typename T>
void causal_conv_step_launch(StepParams p, int smem, cudaStream_t stream) {
  const void * kernel = (void*) &causal_conv_step_kernel<T>;
  if (smem >= 48 * 1024) {
    std::fprintf(stderr, "step launch: large smem %d\n", smem);
  }
  causal_conv_step_kernel<T><<<1, 32, smem, stream>>>(p);
}

void causal_conv_step(const std::optional<int> &lengths_, StepParams p, cudaStream_t s) {
  causal_conv_step_launch<float>(p, 0, s);
}

struct LaneScan {
  int lane;
  explicit __device__ __forceinline__
  LaneScan()
      : lane(threadIdx.x & 0x1f)
  {
  }
  __device__ int Get() const { return lane; }
};

__global__ void ring_write_kernel(const int* starts, float* ring, int ring_len, int width) {
  int slot_idx = starts[blockIdx.x];
  for (int i = 0; i < width; ++i) {
    ring[slot_idx] = 0.f;
    ++slot_idx;
  }
}
