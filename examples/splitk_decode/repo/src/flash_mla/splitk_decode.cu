// Split-KV MLA decode (FlashMLA's dense decode, written for CUDA cores): bf16 queries
// q [b, s_q, h_q, 576] against a paged bf16 cache [blocks, 64, 1, 576] whose first 512
// channels are V. splitk_mla_decode_kernel writes one float32 partial (o, lse) per split
// of the keys; splitk_mla_combine_kernel merges them (FlashMLA's mla_combine). With a
// single split the decode kernel writes o and lse itself.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#include "splitk_decode.h"

namespace flash_mla {

using bf16 = __nv_bfloat16;

// Pointers and strides (in elements; channels are contiguous and every stride is a
// multiple of 8, so rows can be copied in 16-byte chunks).
struct DecodeParams {
  const bf16* q;  // [b, s_q, h_q, 576]
  int64_t q_batch_stride, q_seq_stride, q_head_stride;
  const bf16* k_cache;  // [num_blocks, 64, 1, 576]
  int64_t k_block_stride, k_row_stride;
  const int* block_table;  // [b, max_blocks]
  int block_table_stride;
  const int* cache_seqlens;  // [b]
  bf16* o;                   // [b, s_q, h_q, 512]
  float* lse;                // [b, h_q, s_q], natural log; +inf for a row that sees no key
  float* o_accum;            // [b * num_splits, s_q * h_q, 512], only when num_splits > 1
  float* lse_accum;          // [b * num_splits, s_q * h_q]
  int batch, s_q, h_q, num_splits;
  float scale;  // softmax scale, 1/sqrt(576) by default
  bool causal;
};

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kChunk = 8;  // bf16 elements per 16-byte cp.async
constexpr int kChunksPerRow = kHeadDimK / kChunk;
constexpr int kSmemRow = kHeadDimK + kSmemPad;
constexpr int kKeysPerThread = kBlockN / kThreadsPerRow;
constexpr int kChannelsPerThread = kHeadDimV / kThreadsPerRow;
constexpr int kCombineThreads = 128;

__device__ __forceinline__ void CpAsync16(void* smem, const void* gmem, bool valid) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int src_bytes = valid ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void CpAsyncWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Starts copying key tile `tile` of sequence `batch` into `dst`, page by page through the
// block table. Keys at or past seqlen_k are zero-filled and never read: their pages hold
// NaN or belong to another sequence.
__device__ void LoadKeyTile(const DecodeParams& p, int batch, int seqlen_k, int tile, bf16 (*dst)[kSmemRow]) {
  for (int i = threadIdx.x; i < kBlockN * kChunksPerRow; i += kNumThreads) {
    const int n = i / kChunksPerRow, chunk = i % kChunksPerRow;
    const int key = tile * kBlockN + n;
    const bool valid = key < seqlen_k;
    const bf16* src = p.k_cache;
    if (valid) {
      const int64_t page = p.block_table[batch * p.block_table_stride + key / kPageSize];
      src += page * p.k_block_stride + (key % kPageSize) * p.k_row_stride + chunk * kChunk;
    }
    CpAsync16(&dst[n][chunk * kChunk], src, valid);
  }
}

}  // namespace

// Grid (m-blocks, batch, splits). Thread t owns query row t / 8 of the tile; within the
// row it scores keys lane + 8 j and accumulates V channels 2 lane + 16 i + {0, 1}.
__global__ void __launch_bounds__(kNumThreads, 1) splitk_mla_decode_kernel(const DecodeParams p) {
  __shared__ __align__(16) bf16 sQ[kBlockM][kSmemRow];
  __shared__ __align__(16) bf16 sK[kNumStages][kBlockN][kSmemRow];
  __shared__ float sP[kBlockM][kBlockN];

  const int m_block = blockIdx.x, batch = blockIdx.y, split = blockIdx.z;
  const int rows = p.s_q * p.h_q;
  const int seqlen_k = p.cache_seqlens[batch];
  const int row = threadIdx.x / kThreadsPerRow, lane = threadIdx.x % kThreadsPerRow;
  const int r = m_block * kBlockM + row;  // flattened row s * h_q + h
  const int q_row = r / p.h_q, head = r % p.h_q;
  const bool row_valid = r < rows;

  int tile_begin, tile_end;
  SplitTiles(seqlen_k, split, p.num_splits, &tile_begin, &tile_end);

  // Q tile (rows past s_q * h_q zero-filled), then the first kNumStages - 1 key tiles.
  for (int i = threadIdx.x; i < kBlockM * kChunksPerRow; i += kNumThreads) {
    const int qr = m_block * kBlockM + i / kChunksPerRow, chunk = i % kChunksPerRow;
    const bool valid = qr < rows;
    const bf16* src = p.q;
    if (valid) {
      src += batch * p.q_batch_stride + (qr / p.h_q) * p.q_seq_stride + (qr % p.h_q) * p.q_head_stride +
             chunk * kChunk;
    }
    CpAsync16(&sQ[i / kChunksPerRow][chunk * kChunk], src, valid);
  }
  CpAsyncCommit();
#pragma unroll
  for (int s = 0; s < kNumStages - 1; ++s) {
    if (tile_begin + s < tile_end) LoadKeyTile(p, batch, seqlen_k, tile_begin + s, sK[s]);
    CpAsyncCommit();
  }

  const float scale_log2 = p.scale * kLog2e;
  float row_max = -CUDART_INF_F;  // running max of the row's scores, log2 units
  float row_sum = 0.f;            // running sum of exp2(score - row_max)
  float acc[kChannelsPerThread];
#pragma unroll
  for (int i = 0; i < kChannelsPerThread; ++i) acc[i] = 0.f;

  for (int tile = tile_begin; tile < tile_end; ++tile) {
    const int it = tile - tile_begin;
    // Prefetch kNumStages - 1 tiles ahead into the buffer released at the end of the
    // previous iteration, then wait for this tile's group.
    if (tile + kNumStages - 1 < tile_end) {
      LoadKeyTile(p, batch, seqlen_k, tile + kNumStages - 1, sK[(it + kNumStages - 1) % kNumStages]);
    }
    CpAsyncCommit();
    CpAsyncWait<kNumStages - 1>();
    __syncthreads();
    const bf16(*k)[kSmemRow] = sK[it % kNumStages];

    // S = q . k over all 576 channels, float32 accumulation in channel order.
    float s[kKeysPerThread];
    float tile_max = -CUDART_INF_F;
#pragma unroll
    for (int j = 0; j < kKeysPerThread; ++j) {
      const int n = lane + kThreadsPerRow * j;
      const int key = tile * kBlockN + n;
      float dot = 0.f;
#pragma unroll 8
      for (int c = 0; c < kHeadDimK; c += 2) {
        const float2 qv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&sQ[row][c]));
        const float2 kv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&k[n][c]));
        dot = fmaf(qv.x, kv.x, dot);
        dot = fmaf(qv.y, kv.y, dot);
      }
      const bool visible =
          row_valid && key < seqlen_k && (!p.causal || CausalKeyVisible(key, q_row, p.s_q, seqlen_k));
      s[j] = visible ? dot * scale_log2 : -CUDART_INF_F;
      tile_max = fmaxf(tile_max, s[j]);
    }

    // Online softmax with max subtraction; a row's 8 lanes are adjacent in one warp.
#pragma unroll
    for (int off = kThreadsPerRow / 2; off > 0; off /= 2) {
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, off));
    }
    const float new_max = fmaxf(row_max, tile_max);
    const float rescale = new_max == -CUDART_INF_F ? 1.f : exp2f(row_max - new_max);
    float tile_sum = 0.f;
#pragma unroll
    for (int j = 0; j < kKeysPerThread; ++j) {
      const float pj = s[j] == -CUDART_INF_F ? 0.f : exp2f(s[j] - new_max);
      sP[row][lane + kThreadsPerRow * j] = pj;
      tile_sum += pj;
    }
#pragma unroll
    for (int off = kThreadsPerRow / 2; off > 0; off /= 2) {
      tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, off);
    }
    row_sum = row_sum * rescale + tile_sum;
    row_max = new_max;
    __syncwarp();  // sP[row] is written and read by the same 8 lanes

    // O = O * rescale + P V, keys in order; V is the first 512 channels of the key tile.
#pragma unroll
    for (int i = 0; i < kChannelsPerThread; ++i) acc[i] *= rescale;
    for (int n = 0; n < kBlockN; ++n) {
      const float pn = sP[row][n];
#pragma unroll
      for (int i = 0; i < kChannelsPerThread / 2; ++i) {
        const int c = 2 * lane + 2 * kThreadsPerRow * i;
        const float2 v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&k[n][c]));
        acc[2 * i] = fmaf(pn, v.x, acc[2 * i]);
        acc[2 * i + 1] = fmaf(pn, v.y, acc[2 * i + 1]);
      }
    }
    __syncthreads();  // every warp is done with this stage before it is refilled
  }
  CpAsyncWait<0>();

  if (!row_valid) return;
  const bool empty = row_sum == 0.f;  // no visible key in this split
  const float inv_sum = empty ? 0.f : 1.f / row_sum;
  const float lse = (row_max + log2f(row_sum)) * kLn2;
  if (p.num_splits == 1) {
    bf16* o = p.o + (static_cast<int64_t>(batch) * rows + r) * kHeadDimV;
#pragma unroll
    for (int i = 0; i < kChannelsPerThread / 2; ++i) {
      const int c = 2 * lane + 2 * kThreadsPerRow * i;
      *reinterpret_cast<__nv_bfloat162*>(&o[c]) = __floats2bfloat162_rn(acc[2 * i] * inv_sum, acc[2 * i + 1] * inv_sum);
    }
    if (lane == 0) p.lse[(batch * p.h_q + head) * p.s_q + q_row] = empty ? CUDART_INF_F : lse;
  } else {
    const int64_t part = (static_cast<int64_t>(batch) * p.num_splits + split) * rows + r;
    float* o = p.o_accum + part * kHeadDimV;
#pragma unroll
    for (int i = 0; i < kChannelsPerThread / 2; ++i) {
      const int c = 2 * lane + 2 * kThreadsPerRow * i;
      *reinterpret_cast<float2*>(&o[c]) = make_float2(acc[2 * i] * inv_sum, acc[2 * i + 1] * inv_sum);
    }
    if (lane == 0) p.lse_accum[part] = empty ? -CUDART_INF_F : lse;
  }
}

// Grid (batch, s_q * h_q): merges the row's partials (FACTS: m = max lse_s,
// lse = m + log sum exp(lse_s - m), o = sum exp(lse_s - lse) o_s; an empty split
// (lse_s = -inf) is not read). A row no split saw gives o = 0 and lse = +inf.
__global__ void __launch_bounds__(kCombineThreads) splitk_mla_combine_kernel(const DecodeParams p) {
  __shared__ float s_weight[kMaxSplits];
  __shared__ float s_lse;
  const int batch = blockIdx.x, r = blockIdx.y;
  const int rows = p.s_q * p.h_q;
  const int64_t first = static_cast<int64_t>(batch) * p.num_splits * rows + r;  // split 0 of row r
  if (threadIdx.x == 0) {
    float m = -CUDART_INF_F;
    for (int s = 0; s < p.num_splits; ++s) m = fmaxf(m, p.lse_accum[first + s * rows]);
    float lse = CUDART_INF_F;
    if (m != -CUDART_INF_F) {
      float sum = 0.f;
      for (int s = 0; s < p.num_splits; ++s) sum += expf(p.lse_accum[first + s * rows] - m);
      lse = m + logf(sum);
    }
    for (int s = 0; s < p.num_splits; ++s) {
      const float lse_s = p.lse_accum[first + s * rows];
      s_weight[s] = lse_s == -CUDART_INF_F ? 0.f : expf(lse_s - lse);
    }
    s_lse = lse;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < kHeadDimV; c += kCombineThreads) {
    float o = 0.f;
    for (int s = 0; s < p.num_splits; ++s) {
      if (s_weight[s] != 0.f) o = fmaf(s_weight[s], p.o_accum[(first + s * rows) * kHeadDimV + c], o);
    }
    p.o[(static_cast<int64_t>(batch) * rows + r) * kHeadDimV + c] = __float2bfloat16(o);
  }
  if (threadIdx.x == 0) p.lse[(batch * p.h_q + r % p.h_q) * p.s_q + r / p.h_q] = s_lse;
}

// FlashMLA's get_mla_metadata: the number of splits for this batch on the current device
// (`override_splits` > 0 forces it). Size o_accum and lse_accum for it.
int GetSplitkDecodeNumSplits(int batch, int s_q, int h_q, int max_seqlen_k, int override_splits) {
  int device = 0, num_sms = kDefaultNumSms;
  if (cudaGetDevice(&device) == cudaSuccess) {
    cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device);
  }
  return ChooseNumSplits(batch, s_q, h_q, max_seqlen_k, num_sms, override_splits);
}

// Launches the decode (and the combine when p.num_splits > 1) on `stream`.
cudaError_t RunSplitkMlaDecode(const DecodeParams& p, cudaStream_t stream) {
  if (p.num_splits < 1 || p.num_splits > kMaxSplits) return cudaErrorInvalidValue;
  const int rows = p.s_q * p.h_q;
  splitk_mla_decode_kernel<<<dim3(CeilDiv(rows, kBlockM), p.batch, p.num_splits), kNumThreads, 0, stream>>>(p);
  if (p.num_splits > 1) {
    splitk_mla_combine_kernel<<<dim3(p.batch, rows), kCombineThreads, 0, stream>>>(p);
  }
  return cudaGetLastError();
}

}  // namespace flash_mla
