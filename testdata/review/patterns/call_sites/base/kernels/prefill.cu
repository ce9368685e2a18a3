// Synthetic fixture for the call-site rules (written for review_patterns_test.cc).
#include "prefill.h"

namespace demo {

__device__ float load_bias(const float* bias, int lane, int col) {
  return bias[col] * 0.5f;
}

__device__ void combine_tile(float* out, const float* partial_o, const float* partial_lse,
                             int rows) {
  for (int r = 0; r < rows; ++r) out[r] = partial_o[r] + partial_lse[r];
}

__global__ void prefill_kernel(const float* q, const float* bias, float* out,
                               const float* partial_o, const float* partial_lse, int rows) {
  const int col = threadIdx.x;
  const int row_base = blockIdx.x * rows;
  float acc = q[col] + bias[col];
  acc += load_bias(bias, threadIdx.x, col);
  combine_tile(out, partial_o, partial_lse, rows);
  out[row_base + col] = acc;
}

void run_prefill(const Config& cfg, const int* seqstart_q, const int* seqstart_k,
                 cudaStream_t stream) {
  auto make_args = [&](int offset, int batch, cudaStream_t s) {
    return Args{offset, batch, s};
  };
  Args first = make_args(0, cfg.batch, stream);
  Args second = make_args(cfg.batch, cfg.batch, stream);
  launch_varlen(cfg.q,
                cfg.k,
                seqstart_q,
                seqstart_k,
                cfg.max_len,
                first);
  launch_varlen(cfg.q, cfg.k, seqstart_q, seqstart_k, cfg.max_len, second);
  reinterpret_cast<Storage*>(cfg.smem)->reset(static_cast<float>(cfg.scale), stream);
}


__global__ void prefill_kernel_tail(const float* q, const float* bias, float* out, int rows) {
  const int col = threadIdx.x;
  const int row_base = blockIdx.x * rows;
  out[row_base + col] = q[col] + bias[col];
}

int plan_splits(int blocks, int sms) {
  return blocks < sms ? 4 : 1;
}

int plan_for(const Config& cfg, int sms) {
  return plan_splits(cfg.batch, sms);
}

}  // namespace demo
