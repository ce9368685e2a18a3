// Host entry of the decode kernel (attnverify fixture).
#include "kernels/new_kernel.cu"

void run_decode(const Params& params, cudaStream_t stream) {
    new_decode_kernel<Traits><<<params.blocks, 128, 0, stream>>>(params);
}
