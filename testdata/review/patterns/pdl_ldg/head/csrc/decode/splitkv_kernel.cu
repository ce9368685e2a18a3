// Split-KV decode kernel: a fixture for attnverify's reviewer, written for its tests.
#include "barrier_ids.h"
#include "params.h"

constexpr int kSchedMetaInts = 8;

template <typename Traits>
__global__ void __launch_bounds__(Traits::kThreads, 1)
splitkv_decode_kernel(const __grid_constant__ DecodeParams params,
                      const __grid_constant__ TmaParams tma) {
    const int part = blockIdx.x;
    const int head_block = blockIdx.y;
    const int warpgroup = threadIdx.x / 128;
    const int lane = threadIdx.x % 32;
    extern __shared__ char smem_buf[];
    auto& plan = *reinterpret_cast<typename Traits::SmemPlan*>(smem_buf);

    if (threadIdx.x == 0) {
        plan.q_barrier.init(1);
        plan.k_barrier.init(1);
    }
    __syncthreads();

    // Wait for the scheduler kernel that wrote params.sched_meta.
    cudaGridDependencySynchronize();

    const int* sched = params.sched_meta + part * kSchedMetaInts;
    // Plain loads: an __ldg here may be scheduled before the dependency wait.
    int4 meta = *reinterpret_cast<const int4*>(sched);
    int first_batch = meta.x;
    int first_key = meta.y;
    int last_batch = meta.z;
    int last_key = meta.w;
    if (first_batch >= params.batch) return;
    int first_split = *(sched + 4);

    load_q(tma, first_batch, head_block, plan.q, plan.q_barrier);
    float row_max[2] = {-INFINITY, -INFINITY};
    float row_sum[2] = {0.0f, 0.0f};

    for (int b = first_batch; b <= last_batch; ++b) {
        const int begin = b == first_batch ? first_key : 0;
        const int end = b == last_batch ? last_key : params.seqlens_k[b];
        for (int key = begin; key < end; key += Traits::kBlockN) {
            plan.k_barrier.wait(0);
            qk_tile(plan.q, plan.k, warpgroup);
            // Scores in shared memory must be visible to the other warpgroup.
            NamedBarrier::arrive_and_wait(256, BarrierIds::kScoresReady);
            warpgroup_wait<0>();
            online_softmax(row_max, row_sum, warpgroup, lane);
            pv_tile(plan.p, plan.v, warpgroup);
        }

        const bool single_split = first_split == 0 && b != first_batch && b != last_batch;
        if (single_split) {
            store_output(params, plan, b, head_block, row_sum);
        } else {
            int split = params.num_splits_ptr[b] + first_split;
            float* part_out = params.partial_out + (split * params.heads_kv + head_block) * Traits::kHeadDimV;
            float* part_lse = params.partial_lse + split * params.heads_kv + head_block;
            store_partial(part_out, part_lse, plan, row_max, row_sum);
        }
        first_split = 0;
    }
}
