// One head dimension per file, as generated kernel collections do; everything else is in
// the headers.
#include "attn_fwd_launch_template.h"
#include "attn_fwd_sm90_launch.h"

namespace attn {

template <>
void run_attn_fwd_<64>(AttnParams& params, cudaStream_t stream) {
  run_attn_fwd_hdim64(params, stream);
  launch_sm90<KernelTraits<64, 128, 64>>(params, stream, KernelTraits<64, 128, 64>::kSmemSize);
}

}  // namespace attn
