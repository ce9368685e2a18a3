// Split-KV combine: merges the partial outputs and LSEs of each split (attnverify fixture).
#include "combine.h"

namespace decode {

template <typename T, int kHeadDimV, int kHeadsPerBlock, int kMaxSplits, int kThreads>
__global__ void __launch_bounds__(kThreads)
combine_partials_kernel(const __grid_constant__ CombineArgs args) {
    // grid: [batch * s_q, 1, heads / kHeadsPerBlock]
    static_assert(kThreads / 32 == kHeadsPerBlock);
    const int row = blockIdx.x;
    const int batch = row / args.s_q;
    const int q_pos = row - batch * args.s_q;
    const int head_block = blockIdx.z;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int head = head_block * kHeadsPerBlock + warp;
    if (head >= args.heads) return;

    const int first_split = args.split_offsets[batch];
    const int num_splits = args.split_offsets[batch + 1] - first_split;
    const float* lse = args.partial_lse + ((first_split * args.s_q + q_pos) * args.heads + head);
    float max_lse = -INFINITY;
    for (int s = lane; s < num_splits; s += 32) max_lse = fmaxf(max_lse, lse[s * args.s_q * args.heads]);
    max_lse = warp_max(max_lse);
    write_combined(args, batch, q_pos, head, max_lse);
}

template <typename T, int kHeadDimV>
void launch_combine(CombineArgs& args) {
    constexpr int kHeadsPerBlock = 8;
    constexpr int kThreads = kHeadsPerBlock * 32;
    cudaLaunchAttribute attrs[1];
    attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {
        dim3(args.batch * args.s_q, 1, ceil_div(args.heads, kHeadsPerBlock)),
        dim3(kThreads, 1, 1),
        0,
        args.stream,
        attrs,
        1};
    cudaLaunchKernelEx(&config, combine_partials_kernel<T, kHeadDimV, kHeadsPerBlock, 128, kThreads>, args);
}

}  // namespace decode
