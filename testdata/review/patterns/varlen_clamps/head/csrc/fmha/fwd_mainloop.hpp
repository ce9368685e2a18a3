// Forward mainloop of the varlen attention kernel (attnverify fixture).
#pragma once

template <class Element>
struct FwdMainloop {
  template <class Tensor>
  CUTE_DEVICE void correction(Tensor& acc_o, float row_max, float row_sum) {
    float lse = -INFINITY;
    int thread_idx = threadIdx.x % 128;

    rescale(acc_o, row_max, row_sum, thread_idx);
    lse = row_max + logf(row_sum);
    store_lse(lse, thread_idx);
  }
};
