// The table of reference ops behind `attnverify ref OP`: each row names an op, the input
// tensors it reads (FlashMLA / DeepGEMM / flash-attention names), the parameters it takes
// and the function that runs its float64 oracle. Inputs and outputs are named tensors, so
// the CLI and the candidate protocol can move them through safetensors files.
// Names, shapes and semantics of every op: doc/ops.md. Callable from any thread.
#pragma once

#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "reference/op_params.h"
#include "tensor/tensor.h"

namespace av {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Which implementation runs an op: the float64 oracle, the fast blocked path
// (fast_attention.h, fast_gemm.h, ...) or the low-precision reference (lowprec_attention.h,
// lowprec_splitk.h, sparse_attention_lowprec.h, lowprec_gemm.h). The fast path of
// attention, mla_decode and attention_splitk accumulates in float64 (its float32 scores
// missed FlashMLA's LSE atol; doc/numerics.md "fast reference accuracy"); sparse attention
// and the GEMMs accumulate in float32.
enum class ImplKind { kOracle, kFast, kLowprec };
struct RefImpl {
  ImplKind kind = ImplKind::kOracle;
  int threads = 0;                     // fast / lowprec: 0 = every hardware thread
  DType lowprec_dtype = DType::kBF16;  // lowprec: bf16 or f16
  // lowprec attention_splitk / combine: the dtype split-k partials (o_accum) are stored
  // in — f32 as FlashMLA's o_accum (default), or bf16 / f16 (lowprec_splitk.h).
  DType lowprec_partials = DType::kF32;
  // fast attention / mla_decode / attention_splitk: float32 accumulation instead of
  // float64 (the earlier default; kept for the accuracy bench and its tests).
  bool fast_f32 = false;
  // fast: float32 results (the GEMMs', sparse attention's) stay float32 unless the op's
  // out_dtype asks for another dtype. The numerics sweep sets it: widening them to float64
  // adds no information, only memory (512 MiB more for a 4096 x 32768 GEMM result, beside
  // the oracle's 1 GiB when it referees). `attnverify ref` writes float64 by default.
  bool keep_f32_results = false;
  // fast attention family on bf16 inputs and FP8 GEMMs: the bf16 tile kernels where the
  // CPU has AMX (FastOptions::tiles); false keeps the float64 FMA kernels and the
  // AVX512-BF16 dot product (`[numerics] fast_tiles`).
  bool fast_tiles = true;
};
using RunImplFn = Result<NamedTensors> (*)(const NamedTensors& inputs, const OpParams& params,
                                           const RefImpl& impl);

struct ReferenceOp {
  std::string_view name;
  std::string_view summary;
  std::set<std::string> inputs;  // every tensor name the op reads (required and optional)
  std::set<std::string> params;  // every parameter it takes
  Result<NamedTensors> (*run)(const NamedTensors& inputs, const OpParams& params);
  RunImplFn run_fast = nullptr;     // null: no fast path for this op yet
  RunImplFn run_lowprec = nullptr;  // null: no low-precision reference for this op
};

std::span<const ReferenceOp> ReferenceOps();
const ReferenceOp* FindReferenceOp(std::string_view name);

// Checks names (no unknown tensor, no inapplicable parameter), runs the chosen
// implementation (Unsupported when the op has none of that kind), and converts floating
// f64/f32 results to params "out_dtype" (default f64; integer and fp8 outputs, and f32
// outputs of the oracle, keep their dtype).
// The kernels the fast reference runs with `impl` on this CPU, in words, e.g. "attention
// float64: amx-bf16-tiles (bf16 inputs), avx512-fma (others); fp8_gemm: amx-bf16-tiles":
// what numerics.json records, since the builds' last bits differ. Derived from the
// options the fast ops are given, so it names what runs.
std::string DescribeFastKernels(const RefImpl& impl);

Result<NamedTensors> RunReferenceOp(std::string_view op, const NamedTensors& inputs,
                                    const OpParams& params, const RefImpl& impl = {});

}  // namespace av
