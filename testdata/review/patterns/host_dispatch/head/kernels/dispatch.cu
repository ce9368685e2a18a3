// Synthetic fixture for host dispatch and added functions (written for review_patterns_test.cc).
#include "dispatch.h"

template <int kGroup>
void run_group(const Params& p);

void dispatch_group(const Params& p) {
  if (p.group % 8 == 0) {
    return run_group<8>(p);
  } else if (p.group % 6 == 0) {
    return run_group<6>(p);
  }
  return run_group<1>(p);
}

int pick_splits(const Params& p, int sms) {
  const float scale = fmaxf(1.0f, logf(p.kv_len / 1024.0f));
  int splits = 1;
  if (p.blocks < sms * scale) {
    splits = 4;
  }
  return splits;
}

__global__ void scale_kernel(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = expf(x[i] - s);
}

__global__ void fill_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.f;
}

void fill(float* x, int n, cudaStream_t s) {
  if (n == 0) {
    return;
  }
  fill_kernel<<<(n + 255) / 256, 256, 0, s>>>(x, n);
}

void reduce_by_topk(const Params& p, int topk) {
  switch (topk) {
    case 2:
      run_group<2>(p);
      break;
    case 4:
      run_group<4>(p);
      break;
    default:
      abort();
  }
}
