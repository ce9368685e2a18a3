// TMA descriptor helpers (attnverify fixture).
#pragma once

#include <cuda.h>

namespace gemmlib {

template <class T>
CUtensorMap make_2d_tma_copy_desc(T* global_address, uint64_t gmem_dim[2],
                                  uint64_t stride_in_bytes, uint32_t smem_dim[2],
                                  CUtensorMapSwizzle swizzle_type) {
    CUtensorMap tensor_map{};
    constexpr uint32_t rank = 2;
    uint64_t global_stride[rank - 1] = {stride_in_bytes};
    uint32_t elem_strides[rank] = {1, 1};

    auto encode = get_tensor_map_encoder();
    auto result = encode(
            &tensor_map, tensor_map_dtype<typename std::remove_cv<T>::type>(), rank,
            global_address, gmem_dim, global_stride, smem_dim, elem_strides,
            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_type,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    HOST_ASSERT(result == CUDA_SUCCESS);
    return tensor_map;
}

template <uint32_t kNumMulticast = 1>
__device__ __forceinline__ void tma_copy(void const* desc, uint64_t* barrier, void* smem,
                                         int32_t crd_0, int32_t crd_1) {
    copy_2d_tile(desc, barrier, smem, crd_0, crd_1, kNumMulticast);
}

}  // namespace gemmlib
