// Split-KV MLA decode: the tile shape, the split scheduler and the causal mask.
// Shared by the CUDA kernel (splitk_decode.cu) and its CPU twin (cpu_twin.cc), so both
// cut the keys into the same tiles and splits and mask the same keys.
#pragma once

#ifdef __CUDACC__
#define AV_HOST_DEVICE __host__ __device__
#else
#define AV_HOST_DEVICE
#endif

namespace flash_mla {

// One CTA computes kBlockM query rows of one sequence against its keys, kBlockN keys at a
// time. With h_kv = 1 the s_q x h_q query rows of a sequence share every key, so they are
// flattened into rows r = s * h_q + h (FlashMLA's layout) and tiled by kBlockM.
constexpr int kBlockM = 32;       // query rows per CTA
constexpr int kBlockN = 64;       // keys per tile (one 64-key page of the cache)
constexpr int kNumStages = 2;     // K tiles in flight (cp.async multi-buffering)
constexpr int kHeadDimK = 576;    // q.k runs over all 576 channels (512 latent + 64 rope)
constexpr int kHeadDimV = 512;    // V is the first 512 channels of the cached row
constexpr int kPageSize = 64;     // keys per page of the paged cache
constexpr int kSmemPad = 8;       // bf16 elements of padding per shared row (bank conflicts)
constexpr int kNumThreads = 256;  // split kernel: 8 threads per query row
constexpr int kThreadsPerRow = kNumThreads / kBlockM;
constexpr int kMaxSplits = 32;
constexpr int kDefaultNumSms = 132;  // H100/H200; the launcher asks the device

static_assert(kThreadsPerRow == 8, "the row reductions shuffle across 8 lanes");
static_assert(kBlockN % kThreadsPerRow == 0, "each thread scores kBlockN / 8 keys");

AV_HOST_DEVICE constexpr int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// How many splits each sequence's keys are cut into (FlashMLA / flash-attention): one
// wave of CTAs is batch x m-blocks x splits; when the batch alone does not fill the SMs,
// split the keys until it does, but never into more splits than there are key tiles.
// `override_splits` > 0 wins (clamped to 1..kMaxSplits).
AV_HOST_DEVICE inline int ChooseNumSplits(int batch, int s_q, int h_q, int max_seqlen_k, int num_sms,
                                          int override_splits) {
  if (override_splits > 0) return override_splits < kMaxSplits ? override_splits : kMaxSplits;
  const int ctas = batch * CeilDiv(s_q * h_q, kBlockM);
  const int num_tiles = CeilDiv(max_seqlen_k, kBlockN);
  if (ctas >= num_sms || num_tiles <= 1) return 1;
  int splits = CeilDiv(num_sms, ctas);
  if (splits > num_tiles) splits = num_tiles;
  return splits < kMaxSplits ? splits : kMaxSplits;
}

// The key tiles [*tile_begin, *tile_end) of split `split` of a sequence with seqlen_k keys:
// each split takes ceil(tiles / num_splits) consecutive tiles in key order; the last
// splits of a short sequence may be empty.
AV_HOST_DEVICE inline void SplitTiles(int seqlen_k, int split, int num_splits, int* tile_begin, int* tile_end) {
  const int num_tiles = CeilDiv(seqlen_k, kBlockN);
  const int per_split = CeilDiv(num_tiles, num_splits);
  const int begin = split * per_split;
  const int end = begin + per_split;
  *tile_begin = begin < num_tiles ? begin : num_tiles;
  *tile_end = end < num_tiles ? end : num_tiles;
}

// Causal mask for MLA decode with s_q query rows per sequence (speculative decoding): the
// rows are the sequence's last s_q tokens, bottom-right aligned, so query row q_row may see
// key j iff j <= seqlen_k - s_q + q_row (FlashMLA, flash-attention). With s_q = 1 every
// cached key is visible.
AV_HOST_DEVICE inline bool CausalKeyVisible(int key, int q_row, int s_q, int seqlen_k) {
  return key <= seqlen_k - s_q + q_row;
}

}  // namespace flash_mla
