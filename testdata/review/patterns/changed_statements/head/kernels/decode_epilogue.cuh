// A small split-KV decode epilogue, written for the reviewer's tests: each change in head
// is one kind of statement change the rules must read whole.
#pragma once
#include <cstdint>

struct TileInfo {
  int32_t m = 0;
  int32_t n = 0;
  int32_t valid = 0;
};

__device__ float load_scale(const float* scales, uint32_t stride, uint32_t lane, uint32_t last) {
  uint32_t const offset = (lane / 4) * 4;
  float s = 0.f;
  for (uint32_t j = 0; j < 4; ++j) {
    s += scales[min(offset + j, last)];
  }
  return s;
}

template <int kBlockM, bool kVarlen, bool kInRegs>
__device__ void store_rows(float* out, float* lse, const int* lens, int batch, int m_block,
                           int total_rows, int row_stride, int out_stride, int n_block_max,
                           bool is_causal, unsigned* flag, int num_peers) {
  const int tid = threadIdx.x;
  const int row_offset = batch * total_rows * row_stride + m_block * kBlockM * row_stride;
  float* row_out = out + row_offset + tid * row_stride;
  if ((is_causal || kVarlen) && n_block_max <= 0) {
    row_out[0] = 0.f;
    return;
  }
  if (tid < lens[batch] - m_block * kBlockM) {
    lse[row_offset + tid] = -INFINITY;
  }
  if (m_block > 0) { __syncthreads(); }
  row_out[1] = static_cast<float>(row_offset);
  lse[row_offset + tid * row_stride] += 1.f;
  float* page = out +
                static_cast<int64_t>(m_block < n_block_max ? lens[batch] : 0) * out_stride +
                tid * row_stride;
  page[0] = 1.f;
  if (tid == 0) {
    atomicAdd(flag, 1u);
    unsigned seen = 0;
    do {
      asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < static_cast<unsigned>(num_peers));
  }
}

__device__ float first_scale(const float* scales) {
  const float s = load_scale(scales, 4, 0u, 1u);
  return s;
}
