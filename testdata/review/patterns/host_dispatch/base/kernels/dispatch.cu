// Synthetic fixture for host dispatch and added functions (written for review_patterns_test.cc).
#include "dispatch.h"

template <int kGroup>
void run_group(const Params& p);

void dispatch_group(const Params& p) {
  if (p.group % 8 == 0) {
    return run_group<8>(p);
  } else if (p.group % 2 == 0) {
    return run_group<2>(p);
  }
  return run_group<1>(p);
}

int pick_splits(const Params& p, int sms) {
  int splits = 1;
  if (p.blocks < sms) {
    splits = 4;
  }
  return splits;
}

__global__ void scale_kernel(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = expf(x[i] - s);
}

void reduce_by_topk(const Params& p, int topk) {
  switch (topk) {
    case 2:
      run_group<2>(p);
      break;
    default:
      abort();
  }
}
