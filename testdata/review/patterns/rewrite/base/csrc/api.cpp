// Host entry of the decode kernel (attnverify fixture).
#include "old_kernel.h"

void run_decode(const Params& params, cudaStream_t stream) {
    old_decode_kernel<Traits><<<params.blocks, 128, 0, stream>>>(params);
}
