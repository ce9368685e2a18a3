// The built-in rules as a table (id, severity, checklist item, title, the command that
// verifies a finding): docs, `attnverify review --rules` and [review] disable read it.
#include "review/file_review.h"
#include "review/rules.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT: the ids are the table's first column

const std::vector<RuleInfo>& Rules() {
  static const std::vector<RuleInfo> kRules = {
      {kSmem,
       Severity::kWarning,
       3,
       {},
       "shared-memory declaration changed",
       VerifyWith::kBuild,
       "__shared__ / extern __shared__ arrays, smem size constants, "
       "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)"},
      {kSmemHost,
       Severity::kWarning,
       3,
       {4},
       "host-side shared-memory size changed",
       VerifyWith::kBuild,
       "Python/host computations of the dynamic shared memory a launch passes (smem_d = ...), "
       "checked against the kernel's sizes changed in the same diff"},
      {kSmemLayout,
       Severity::kWarning,
       3,
       {4},
       "shared-memory addressing changed",
       VerifyWith::kNumerics,
       "row pitch or offsets of a shared-memory buffer (smem_d + row * (BLOCK_N + PAD))"},
      {kTile,
       Severity::kWarning,
       4,
       {3},
       "tile or pipeline constant changed",
       VerifyWith::kBuild,
       "kBlockM/N/K, BLOCK_*, kTile*, kStages/kNumStages, num_warps, TileShape values (old -> "
       "new)"},
      {kCandidates,
       Severity::kWarning,
       4,
       {3},
       "tile or stage candidates changed",
       VerifyWith::kBuild,
       "candidate tuples a config search picks from (block_ns, stage_candidates, num_stages "
       "lists) and the filters over them: values added and removed"},
      {kSplit,
       Severity::kWarning,
       5,
       {4},
       "split-k constant changed",
       VerifyWith::kNumerics,
       "num_splits, kNumSplits, kMaxSplits, SPLIT_K values (old -> new)"},
      {kGuard,
       Severity::kError,
       2,
       {4},
       "boundary guard removed or loosened",
       VerifyWith::kNumerics,
       "if/for/while/ternary comparisons removed (not made again by an added guard of the "
       "function, not a test that refused) or < turned into <=; C++ min/max clamps of an "
       "index or length dropped",
       4},
      {kCondition,
       Severity::kWarning,
       2,
       {4},
       "branch condition changed",
       VerifyWith::kNumerics,
       "a condition read whole (also over several lines): a term added or dropped, a term "
       "widened with ||, a bound replaced, a comparison tightened; a clamp moved to another "
       "expression; an assertion or a refusal removed; a comparison-only change; a new early "
       "exit or a bare one removed. Asks about the barrier or early exit in the branch",
       4},
      {kDefinition,
       Severity::kWarning,
       2,
       {6},
       "definition changed",
       VerifyWith::kNumerics,
       "an index, offset, length or wait whose value or declared type changed, a test kept in "
       "a name, a value stored, a returned predicate or offset, strides passed; with the "
       "unchanged lines, callers and siblings that still read it the old way",
       4},
      {kClamp,
       Severity::kWarning,
       2,
       {4},
       "clamp added at a boundary",
       VerifyWith::kNumerics,
       "max(1, n) / max(0, x) / clamp(...) added: what empty lengths or -1 entries now do",
       4},
      {kBoundary,
       Severity::kWarning,
       2,
       {4},
       "tile-edge branch added or changed",
       VerifyWith::kNumerics,
       "a new or tightened comparison of a block index against a tile count "
       "(n_block_idx < SHAPE_N / BLOCK_N) in changed code",
       4},
      {kEarlyReturn,
       Severity::kWarning,
       2,
       {5},
       "early return for empty work added",
       VerifyWith::kNumerics,
       "an added return under a zero/empty test (grid.x == 0, seqlen == 0): are outputs of "
       "empty work still written?",
       4},
      {kMask,
       Severity::kWarning,
       2,
       {},
       "mask expression changed",
       VerifyWith::kNumerics,
       "attention code: causal, window, cu_seqlens, block_table, mask; lengths (seqlen, s_q, "
       "max_length, problem_shape) where compared; inside a mask function only where a line "
       "compares; not names only passed on"},
      {kCombine,
       Severity::kWarning,
       5,
       {1},
       "split-k combine or accumulation changed",
       VerifyWith::kNumerics,
       "LSE / logsumexp, combine, partial outputs, accumulators (+=, fma), split counts inside "
       "a combine; only on lines that compute (exp/log, max, accumulation)"},
      {kSoftmax,
       Severity::kWarning,
       1,
       {5},
       "softmax stability changed",
       VerifyWith::kNumerics,
       "max subtraction, -INFINITY initialisation, exp/exp2 and log/log2 switches, log2(e) "
       "scaling; only on lines that compute with them"},
      {kAtomic,
       Severity::kWarning,
       5,
       {},
       "atomic accumulation introduced",
       VerifyWith::kNumerics,
       "new atomicAdd/atomicMax/..., red./atom. PTX, index_add_/scatter_add_ (order-dependent "
       "results)"},
      {kBarrier,
       Severity::kError,
       4,
       {5},
       "barrier or async-copy wait removed",
       VerifyWith::kNumerics,
       "__syncthreads, __syncwarp, cp.async waits, bar.sync, named barriers, pipeline waits, "
       "fences removed or loosened"},
      {kNamedBarrier,
       Severity::kWarning,
       4,
       {3},
       "named barrier added or changed",
       VerifyWith::kBuild,
       "NamedBarrier::arrive_and_wait/sync/arrive and bar.sync added or re-numbered, entries of "
       "barrier-id enums (the hardware has 16 per CTA; ptxas reports `used N barriers`)"},
      {kBarrierAdded,
       Severity::kWarning,
       4,
       {5},
       "barrier, wait or fence added",
       VerifyWith::kNumerics,
       "__syncthreads, cluster syncs, barrier waits and fences (tcgen05, async proxy) added in a "
       "modified file: who must reach them, and what they now order"},
      {kOrdering,
       Severity::kWarning,
       5,
       {4},
       "memory ordering around a grid dependency changed",
       VerifyWith::kNumerics,
       "PDL waits and triggers (cudaGridDependencySynchronize, griddepcontrol) changed, and "
       "__ldg / ld.global.nc loads added or removed in code that waits on the previous grid"},
      {kAccum,
       Severity::kError,
       1,
       {},
       "accumulator dtype narrowed",
       VerifyWith::kNumerics,
       "an accumulator (acc, accum, *_sum, ElementAccumulator) changed from float to "
       "half/bf16/fp8"},
      {kAccumWidened,
       Severity::kWarning,
       1,
       {},
       "computation dtype changed to float32",
       VerifyWith::kNumerics,
       "Python/Triton: a tile or buffer that followed the input dtype (`dtype=input_dtype`, "
       "`dtype=q.dtype`) now float32, or a computed value cast to float32 after it was computed "
       "(`x = x.to(tl.float32)`)"},
      {kFallback,
       Severity::kWarning,
       7,
       {},
       "fallback switch removed",
       VerifyWith::kNumerics,
       "branches or flags named fallback/legacy/use_*/FLASH_*/getenv removed"},
      {kSwallowed,
       Severity::kWarning,
       7,
       {},
       "error swallowed on a fallback path",
       VerifyWith::kNumerics,
       "an added `except:` / `except Exception:` / `except BaseException:` or `catch (...)` "
       "whose body goes on without raising: a broken fast path silently takes another"},
      {kInterface,
       Severity::kWarning,
       6,
       {},
       "kernel interface or layout changed",
       VerifyWith::kBuild,
       "__global__ template headers and parameters (also when the signature is outside the "
       "diff's context), stride parameters, CuTe Layout/make_layout/make_tensor, "
       ".stride()/.contiguous()"},
      {kGrid,
       Severity::kWarning,
       6,
       {4},
       "launch grid or block size changed",
       VerifyWith::kNumerics,
       "dim3(...) grids and blocks, <<<...>>> and cudaLaunchConfig_t, __launch_bounds__, "
       "gridDim"},
      {kBlockIndex,
       Severity::kWarning,
       6,
       {2},
       "block index remapped",
       VerifyWith::kNumerics,
       "changed reads of blockIdx / gridDim in a kernel and the indices derived from them "
       "(batch_idx = i / params.s_q); Triton program ids read on other axes, added or gone"},
      {kWidth,
       Severity::kWarning,
       2,
       {6},
       "integer width of size or offset arithmetic changed",
       VerifyWith::kNumerics,
       "a product or sum of sizes widened to 64 bits (a static_cast<uint64_t> added, an int "
       "declared int64_t, sizeof moved first): where did it overflow, and what else still does?",
       4},
      {kTma,
       Severity::kWarning,
       4,
       {6},
       "TMA descriptor changed",
       VerifyWith::kNumerics,
       "make_*tma*desc, cuTensorMapEncode*, make_tma_copy and their box / stride arrays: box "
       "dims <= 256, global strides multiples of 16 B"},
      {kConfig,
       Severity::kWarning,
       1,
       {2, 8},
       "package configuration changed",
       VerifyWith::kNumerics,
       "the package's own config/tolerances.json, config/shapes.json and attnverify.toml "
       "[policy] changed in the reviewed range (error when anything is loosened)"},
      {kPreprocessor,
       Severity::kWarning,
       7,
       {3},
       "preprocessor condition changed",
       VerifyWith::kBuild,
       "#if/#ifdef/#ifndef/#elif lines added, removed or changed (not include guards): the "
       "lines they gate, a #define among them, the file's other tests of the same macro"},
      {kArchDispatch,
       Severity::kWarning,
       4,
       {7},
       "choice by GPU architecture changed",
       VerifyWith::kNumerics,
       "Python host code that tests or picks by architecture (get_device_capability, arch, "
       "sm90, _is_sm90(), 'sm90'): comparisons and per-arch values added or removed"},
      {kCallArgument,
       Severity::kWarning,
       6,
       {2},
       "call argument replaced or swapped",
       VerifyWith::kNumerics,
       "one argument of a call replaced, or two swapped, with the same number of arguments "
       "(not a type-only change): the callee's parameter there, lines still passing the old "
       "value"},
      {kParameterInserted,
       Severity::kWarning,
       6,
       {},
       "parameter inserted",
       VerifyWith::kBuild,
       "a function's or lambda's parameter added before an existing one (every positional call "
       "shifts), or appended with a default (calls not updated pass it silently): the calls of "
       "the file changed with it and those that were not"},
      {kIndexOffset,
       Severity::kWarning,
       2,
       {6},
       "offset added inside an index",
       VerifyWith::kNumerics,
       "a subscript x[i] that now adds a term (x[off + i]): its units, its range, the file's "
       "other subscripts of x without it"},
      {kSiblings,
       Severity::kWarning,
       2,
       {6},
       "edit made at one site, not at its siblings",
       VerifyWith::kNumerics,
       "an edit of a line (a cast added, a bound or call changed) whose old form unchanged "
       "lines of the same file still read (at most 8 of them): each is named; also added to "
       "another rule's finding at that line"},
      {kCollective,
       Severity::kWarning,
       4,
       {5},
       "collective where lanes can diverge",
       VerifyWith::kNumerics,
       "C++/CUDA with the whole head file: a warp collective (`__shfl*_sync`, `__ballot_sync`, "
       "`__syncwarp`, `elect_one_sync`), `__syncthreads` or a TMA store wait added under an "
       "`if`/`for`/`while` that reads the lane (lane_id, threadIdx, a name the function "
       "derives from them), or such a branch added around one"},
      {kTritonMask,
       Severity::kWarning,
       2,
       {4},
       "Triton load or store guard changed",
       VerifyWith::kNumerics,
       "Python with tl.load/tl.store: `mask=`, `other=`, `boundary_check=`, `padding_option=` "
       "of a load, store or atomic (also on a continuation line of a call split over lines) "
       "removed, added or changed: which lanes read or write now, what masked lanes read"},
      {kTritonBlockPtr,
       Severity::kWarning,
       6,
       {2},
       "Triton block pointer changed",
       VerifyWith::kNumerics,
       "tl.make_block_ptr / tl.make_tensor_descriptor with other arguments (base, shape, "
       "strides, offsets, block shape, order): layout order, where the tile starts, bounds"},
      {kZeroing,
       Severity::kWarning,
       1,
       {5},
       "buffer no longer zeroed",
       VerifyWith::kNumerics,
       "torch.zeros/zeros_like/new_zeros -> torch.empty/empty_like, or a cudaMemset, zero_() "
       "or fill_(0) removed and not made again in the file"},
      {kTritonAutotune,
       Severity::kWarning,
       1,
       {7},
       "autotuned kernel writes what it reads",
       VerifyWith::kNumerics,
       "a @triton.autotune line the diff adds or edits on a kernel that loads and stores the "
       "same pointer argument, with no reset_to_zero / restore_value naming it"},
      {kVectorAccess,
       Severity::kWarning,
       6,
       {2},
       "vectorized access added",
       VerifyWith::kNumerics,
       "C++/CUDA: a pointer cast to a vector type the diff adds (reinterpret_cast<const "
       "float4*>, (int4*), uint4, half2): alignment of every base and offset, lengths that do "
       "not divide by the vector"},
      {kTestsReduced,
       Severity::kWarning,
       1,
       {8},
       "test checks less than before",
       VerifyWith::kNumerics,
       "test files only: a tolerance raised (atol 1e-3 -> 1e-2), parametrised values dropped or "
       "replaced, a case of a list edited in place or removed, a skip or xfail added, "
       "assertions removed and not made again"},
  };
  return kRules;
}

}  // namespace

std::span<const RuleInfo> BuiltinRules() { return Rules(); }

std::vector<std::string> BuiltinRuleIds() {
  std::vector<std::string> ids;
  for (const RuleInfo& r : Rules()) ids.emplace_back(r.id);
  return ids;
}

const RuleInfo* FindRule(std::string_view id) {
  for (const RuleInfo& r : Rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::vector<std::string> VerifyCommand(const RuleInfo& rule, const ReviewOptions& options) {
  if (rule.verify == VerifyWith::kBuild) {
    return {"attnverify", "build", "--config", options.config_path, "--base", options.base};
  }
  return {"attnverify", "numerics", "--config", options.config_path};
}

}  // namespace av
