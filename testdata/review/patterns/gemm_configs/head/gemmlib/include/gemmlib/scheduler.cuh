// Persistent block scheduler of the grouped GEMMs (attnverify fixture).
#pragma once

namespace gemmlib {

template <GemmType kGemmType, uint32_t SHAPE_N, uint32_t BLOCK_M, uint32_t BLOCK_N,
          uint32_t kNumGroups, bool kIgnoreGroupedForContiguous = false>
struct Scheduler {
    int* grouped_layout;
    uint32_t curr_group_idx;

    template <bool kIgnoreGrouped = false>
    __device__ __forceinline__ uint32_t global_row(uint32_t shape_dim, uint32_t block_size,
                                                   uint32_t block_idx, uint32_t m_block_idx = 0) {
        if constexpr (kGemmType == GemmType::Normal) {
            return block_idx * block_size;
        } else if constexpr (kGemmType == GemmType::GroupedContiguous) {
            auto offset = kIgnoreGrouped ? 0 : max(0, __ldg(grouped_layout + m_block_idx * BLOCK_M));
            return offset * shape_dim + block_idx * block_size;
        } else {
            return curr_group_idx * shape_dim + block_idx * block_size;
        }
    }
};

}  // namespace gemmlib
