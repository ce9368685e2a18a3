// The fast attention path: the same semantics as the float64 oracle (attention.h), computed
// blocked and multithreaded with float32 (or float64) accumulation. All query heads that
// share a KV head and a tile of query rows form one row tile, so each gathered K/V block
// serves up to 256 rows; keys are visited in blocks of 64 with an online softmax, blocks no
// row of the tile can see are skipped by loop bounds, and memory is O(tile) per thread —
// never the [s_q, s_k] score matrix. Design and measurements: doc/ops.md ("fast path").
//
// Work is cut into units (batch or key range, KV head, query tile) fixed by the problem
// alone; each output element is computed by one unit in a fixed order, so the result is
// bitwise the same for every thread count and every run. Callable from any thread.
#pragma once

#include "core/status.h"
#include "reference/attention.h"
#include "reference/mla_decode.h"

namespace av {

// Which kernels the float64 attention family runs on bf16 Q, K and V (the bf16 tile
// kernels: exact float32 tile products, float64 statistics, fast_attention_tiles.h) and
// the FP8 GEMMs their block sums on (fast_fp8_tiles.h): AMX tiles where the CPU has them
// (kAuto), never (kOff: the float64 FMA kernels and the AVX512-BF16 dot product, as on
// every CPU without AMX), or their portable emulation (kEmulated: tests; slow).
enum class TilePath { kAuto, kOff, kEmulated };

struct FastOptions {
  int threads = 0;              // 0 = one worker per hardware thread
  bool accumulate_f64 = false;  // float64 accumulation (o is then f64)
  bool allow_avx512 = true;     // false forces the portable kernels (tests)
  TilePath tiles = TilePath::kAuto;
  // The FP8 GEMMs' AVX512-BF16 dot-product kernel where the CPU has it (fast_fp8_dot.h);
  // false keeps them on the float32 FMA path (benchmarks compare the two).
  bool allow_bf16_dot = true;
};

// The kernel ComputeAttentionFast runs bf16 Q, K and V on with these options on this CPU:
// "amx-bf16-tiles", "emulated-bf16-tiles", else the block kernels' ISA and "-fma" (with
// "-f32" for float32 accumulation). Other dtypes and units the tiles hand back take the
// "-fma" kernels.
std::string DescribeAttentionKernel(const FastOptions& options);

// As ComputeAttention; o is float32 (float64 with accumulate_f64), lse float64 holding the
// float32-accumulated value. Same layouts, masks, options and validation.
Result<AttentionOutputs> ComputeAttentionFast(const AttentionInputs& inputs,
                                              const AttentionParams& params,
                                              const FastOptions& options);

// As ComputeAttentionOverRanges (split-k partials): per range o [s_q, h_q, dv] and
// lse [h_q, s_q] (natural log, -inf when empty, no sink).
Result<RangeOutputs> ComputeAttentionOverRangesFast(const AttentionInputs& inputs,
                                                    const AttentionParams& params,
                                                    const std::vector<KeyRange>& ranges,
                                                    const FastOptions& options);

// As ComputeMlaDecode.
Result<AttentionOutputs> ComputeMlaDecodeFast(const MlaDecodeInputs& inputs,
                                              const MlaDecodeParams& params,
                                              const FastOptions& options);

}  // namespace av
