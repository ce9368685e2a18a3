// Host launch of the varlen attention kernel (attnverify fixture).
#pragma once

template <class Kernel>
class FmhaLauncher {
 public:
  Status run(Params& params, cudaStream_t stream) {
    dim3 const block = Kernel::block_shape();
    dim3 const grid = Kernel::grid_shape(params);

    // shared memory and carveout
    int smem_size = Kernel::kSharedStorageSize;
    if (smem_size >= (48 << 10)) {
      cudaFuncSetAttribute(device_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_size);
    }
    device_kernel<Kernel><<<grid, block, smem_size, stream>>>(params);
    return cudaGetLastError() == cudaSuccess ? Status::kSuccess : Status::kErrorInternal;
  }
};
