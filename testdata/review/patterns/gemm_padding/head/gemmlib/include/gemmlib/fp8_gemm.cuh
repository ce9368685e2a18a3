// FP8 GEMM kernel with per-128-channel scales (attnverify fixture, written for its tests).
#pragma once

#include "tma_utils.cuh"
#include "utils.cuh"

namespace gemmlib {

enum class GemmType { Normal, GroupedContiguous, GroupedMasked };

template <uint32_t SHAPE_N, uint32_t SHAPE_K,
          uint32_t BLOCK_M, uint32_t BLOCK_N, uint32_t BLOCK_K,
          uint32_t BLOCK_N_PADDING,
          uint32_t kNumGroups, uint32_t kNumStages,
          uint32_t kNumTMAThreads, uint32_t kNumMathThreads,
          GemmType kGemmType>
__global__ void __launch_bounds__(kNumTMAThreads + kNumMathThreads, 1)
fp8_gemm_kernel(__nv_bfloat16* gmem_d, float* scales_b, int* grouped_layout,
                uint32_t shape_m,
                const __grid_constant__ CUtensorMap tensor_map_a,
                const __grid_constant__ CUtensorMap tensor_map_b,
                const __grid_constant__ CUtensorMap tensor_map_scales_a,
                const __grid_constant__ std::pair<CUtensorMap, CUtensorMap> tensor_map_d) {
    static_assert(BLOCK_K == 128, "per-128-channel scaling only");
    using MMA = typename FP8MMASelector<BLOCK_N>::type;

    // Shared memory
    static constexpr uint32_t SMEM_D_SIZE = BLOCK_M * (BLOCK_N + BLOCK_N_PADDING) * sizeof(__nv_bfloat16);
    static constexpr uint32_t SMEM_A_SIZE_PER_STAGE = BLOCK_M * BLOCK_K * sizeof(__nv_fp8_e4m3);
    static constexpr uint32_t SMEM_B_SIZE_PER_STAGE = BLOCK_N * BLOCK_K * sizeof(__nv_fp8_e4m3);
    static constexpr uint32_t SMEM_SCALES_A_SIZE_PER_STAGE = BLOCK_M * sizeof(float);

    extern __shared__ __align__(1024) uint8_t smem_buffer[];
    auto smem_d = reinterpret_cast<__nv_bfloat16*>(smem_buffer);
    const uint32_t warp_idx = threadIdx.x / 32;
    const uint32_t lane_idx = threadIdx.x % 32;

    if (threadIdx.x == kNumMathThreads) {
        prefetch_tma_descriptor(&tensor_map_a);
        prefetch_tma_descriptor(&tensor_map_b);
        if constexpr (SHAPE_N >= BLOCK_N)
            prefetch_tma_descriptor(&tensor_map_d.first);
        if constexpr (SHAPE_N % BLOCK_N != 0)
            prefetch_tma_descriptor(&tensor_map_d.second);
    }
    __syncwarp();

    Scheduler<kGemmType, SHAPE_N, BLOCK_M, BLOCK_N, kNumGroups> scheduler(shape_m, grouped_layout);
    uint32_t m_block_idx, n_block_idx;
    while (scheduler.get_next_block(m_block_idx, n_block_idx)) {
        float accum[MMA::kNumAccum];
        run_mainloop<kNumStages>(accum, m_block_idx, n_block_idx);

        // Write D back through shared memory
        for (uint32_t i = 0; i < MMA::kNumAccum / 8; ++i) {
            store_matrix_x4(pack_bf16(accum[i * 8 + 0], accum[i * 8 + 1]),
                            pack_bf16(accum[i * 8 + 2], accum[i * 8 + 3]),
                            pack_bf16(accum[i * 8 + 4], accum[i * 8 + 5]),
                            pack_bf16(accum[i * 8 + 6], accum[i * 8 + 7]),
                            smem_d + (warp_idx * 16 + lane_idx % 16) * (BLOCK_N + BLOCK_N_PADDING) + i * 16 + 8 * (lane_idx / 16));
        }
        tma_store_fence();
        named_barrier_sync(kNumMathThreads, 0);

        if (threadIdx.x == 0) {
            if (n_block_idx < SHAPE_N / BLOCK_N) {
                // every full tile
                tma_store_3d(&tensor_map_d.first, smem_d, 0, n_block_idx,
                             scheduler.global_row(shape_m, BLOCK_M, m_block_idx));
            } else {
                // the last, partial tile
                tma_store_3d(&tensor_map_d.second, smem_d, 0, 0,
                             scheduler.global_row(shape_m, BLOCK_M, m_block_idx));
            }
            tma_store_arrive();
            tma_store_wait<0>();
        }
        named_barrier_sync(kNumMathThreads, 0);
    }
}

template <uint32_t SHAPE_N, uint32_t SHAPE_K,
          uint32_t BLOCK_M, uint32_t BLOCK_N, uint32_t BLOCK_K,
          uint32_t BLOCK_N_PADDING,
          uint32_t kNumGroups, uint32_t kNumStages,
          GemmType kGemmType>
class Gemm {
 public:
    static void run(__nv_bfloat16* gmem_d, float* scales_b, int* grouped_layout, uint32_t shape_m,
                    const CUtensorMap& tma_a_desc, const CUtensorMap& tma_b_desc,
                    const CUtensorMap& tma_scales_a_desc,
                    const std::pair<CUtensorMap, CUtensorMap>& tma_d_desc,
                    cudaStream_t stream, int num_sms, uint32_t smem_size) {
        constexpr uint32_t kNumTMAThreads = 128;
        constexpr uint32_t kNumMathThreads = 256;
        auto kernel = fp8_gemm_kernel<SHAPE_N, SHAPE_K, BLOCK_M, BLOCK_N, BLOCK_K, BLOCK_N_PADDING,
                                      kNumGroups, kNumStages, kNumTMAThreads, kNumMathThreads, kGemmType>;
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_size);
        launch_persistent(kernel, num_sms, kNumTMAThreads + kNumMathThreads, smem_size, stream,
                          gmem_d, scales_b, grouped_layout, shape_m,
                          tma_a_desc, tma_b_desc, tma_scales_a_desc, tma_d_desc);
    }

    template <typename T>
    static CUtensorMap make_2d_tma_a_desc(T* global_address, uint32_t shape_m) {
        return make_2d_tma_desc(global_address, Layout::RowMajor,
                                shape_m * (kGemmType == GemmType::GroupedMasked ? kNumGroups : 1), SHAPE_K,
                                BLOCK_M, BLOCK_K);
    }

    template <typename T>
    static std::pair<CUtensorMap, CUtensorMap> make_3d_tma_d_desc(T* global_address, uint32_t shape_m) {
        // row-major D, split into the full tiles and the last partial one
        auto m = shape_m * (kGemmType == GemmType::GroupedMasked ? kNumGroups : 1);
        uint64_t gmem_strides[2] = {BLOCK_N * sizeof(T), SHAPE_N * sizeof(T)};
        uint32_t smem_dim[3] = {BLOCK_N + BLOCK_N_PADDING, 1, BLOCK_M};

        CUtensorMap full;
        if constexpr (SHAPE_N >= BLOCK_N) {
            uint64_t gmem_dim[3] = {BLOCK_N, SHAPE_N / BLOCK_N, m};
            full = make_3d_tma_copy_desc(global_address, gmem_dim, gmem_strides, smem_dim);
        }
        CUtensorMap partial;
        if constexpr (SHAPE_N % BLOCK_N != 0) {
            uint64_t gmem_dim[3] = {SHAPE_N % BLOCK_N, 1, m};
            partial = make_3d_tma_copy_desc(global_address + (SHAPE_N / BLOCK_N) * BLOCK_N,
                                            gmem_dim, gmem_strides, smem_dim);
        }
        return {full, partial};
    }
};

}  // namespace gemmlib
