// TMA descriptor helpers (attnverify fixture).
#pragma once

#include <cuda.h>

namespace gemmlib {

template <class T>
CUtensorMap make_2d_tma_copy_desc(T* global_address, uint64_t gmem_dim[2],
                                  uint64_t stride_in_bytes, uint32_t smem_dim[2],
                                  CUtensorMapSwizzle swizzle_type) {
    CUtensorMap tensor_map = {};
    uint64_t global_stride[1] = {stride_in_bytes};
    uint32_t elem_strides[2] = {1, 1};

    auto encode = get_tensor_map_encoder();
    auto result = encode(
            &tensor_map, tensor_map_dtype<std::remove_cv_t<T>>(), 2,
            global_address, gmem_dim, global_stride, smem_dim, elem_strides,
            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_type,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    HOST_ASSERT(result == CUDA_SUCCESS);
    return tensor_map;
}

template <class T>
CUtensorMap make_3d_tma_copy_desc(T* global_address, uint64_t gmem_dim[3],
                                  uint64_t gmem_strides[2], uint32_t smem_dim[3]) {
    CUtensorMap tensor_map = {};
    uint32_t elem_strides[3] = {1, 1, 1};

    auto encode = get_tensor_map_encoder();
    auto result = encode(
            &tensor_map, tensor_map_dtype<std::remove_cv_t<T>>(), 3,
            global_address, gmem_dim, gmem_strides, smem_dim, elem_strides,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
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
