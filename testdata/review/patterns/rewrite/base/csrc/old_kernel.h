// The old decode kernel, removed by the rewrite (attnverify fixture).
#pragma once

template <typename Traits>
__global__ void old_decode_kernel(const Params params) {
    const int block = blockIdx.x;
    __shared__ float scores[Traits::kBlockN];
    for (int key = threadIdx.x; key < params.seqlen_k; key += blockDim.x) {
        if (key < params.seqlen_k) scores[key % Traits::kBlockN] = load_score(params, key);
        __syncthreads();
        reduce_scores(scores);
        __syncthreads();
    }
    if (threadIdx.x == 0) params.partial_lse[block] = finish(scores);
    __threadfence();
    __syncthreads();
    if (block == 0) signal_done(params);
}
