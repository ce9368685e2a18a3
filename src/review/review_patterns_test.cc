// The reviewer on our own small repositories that reproduce, pattern by pattern, what a
// trial on real FlashMLA and DeepGEMM history showed the rules missing or getting wrong
// (testdata/review/patterns/<name>/{base,head}, written for these tests). Each test commits
// base then head into a temporary git repository, reviews git's diff with the whole base
// and head files read back through git, and asserts what must be found (rule, file:line,
// checklist item, the question) and what must not.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT: the helpers every test here uses

// FlashMLA 01a2772's pattern: __ldg after a PDL wait replaced by plain loads, a named
// barrier and its id added. Before: one weak "split-k combine" question on num_splits_ptr.
TEST(ReviewPatterns, PdlLoadsAndNamedBarriers) {
  Reviewed r = ReviewPattern("pdl_ldg", {{"decode", "csrc/"}});
  const std::string cu = "csrc/decode/splitkv_kernel.cu", h = "csrc/decode/barrier_ids.h";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* meta = At(f, "sync.memory_ordering_changed", cu, 29);
    ASSERT_NE(meta, nullptr) << Dump(f);
    EXPECT_EQ(meta->end_line, 35) << Dump(f);  // both loads after the wait, one finding
    EXPECT_EQ(meta->checklist_item, 5);
    EXPECT_TRUE(Mentions(meta, "LDG.CONSTANT")) << meta->message;
    // The split-table read far from the wait: the same question, asked once for the kernel.
    EXPECT_TRUE(Mentions(meta,
                         "The same question applies at line 58 (`int split = "
                         "params.num_splits_ptr[b] + first_split;`)."))
        << meta->message;
    EXPECT_EQ(Count(f, "sync.memory_ordering_changed"), 1) << Dump(f);
    EXPECT_EQ(Count(f, "splitk.combine_changed"), 0) << Dump(f);
    const Finding* barrier = At(f, "sync.named_barrier_changed", cu, 48);
    ASSERT_NE(barrier, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(barrier, "used N barriers")) << barrier->message;
    const Finding* id = At(f, "sync.named_barrier_changed", h, 8);
    ASSERT_NE(id, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(id, "enum BarrierIds")) << id->message;
    EXPECT_EQ(f.size(), 3u) << Dump(f);
  }
  // With the whole file the finding names the kernel and the line of the wait.
  const Finding* meta = At(r.with_files, "sync.memory_ordering_changed", cu, 29);
  ASSERT_NE(meta, nullptr);
  EXPECT_TRUE(Mentions(meta, "in splitkv_decode_kernel()")) << meta->message;
  EXPECT_TRUE(Mentions(meta, "previous grid at line 25")) << meta->message;
}

// FlashMLA 9241ae3's pattern: the combine grid goes from (b, s_q, h) to (b*s_q, 1, h) and
// the block index is remapped. Before: nothing.
TEST(ReviewPatterns, CombineGridAndBlockIndexRemap) {
  Reviewed r = ReviewPattern("combine_grid", {{"combine", "csrc/"}});
  const std::string cu = "csrc/decode/combine/combine.cu";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* remap = At(f, "launch.block_index_remapped", cu, 11);
    ASSERT_NE(remap, nullptr) << Dump(f);
    EXPECT_EQ(remap->end_line, 13);
    EXPECT_TRUE(Mentions(remap, "blockIdx.y is no longer read")) << remap->message;
    EXPECT_TRUE(Mentions(remap, "launch grid changes at line 37")) << remap->message;
    const Finding* grid = At(f, "launch.grid_changed", cu, 37);
    ASSERT_NE(grid, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(grid, "65535")) << grid->message;
    EXPECT_EQ(grid->checklist_item, 6);
    EXPECT_EQ(Count(f, "mask.expression_changed"), 0) << Dump(f);
    EXPECT_EQ(f.size(), 2u) << Dump(f);
  }
  const Finding* remap = At(r.with_files, "launch.block_index_remapped", cu, 11);
  ASSERT_NE(remap, nullptr);
  EXPECT_TRUE(Mentions(remap, "in combine_partials_kernel()")) << remap->message;
}

// FlashMLA ebf3064's pattern: max(1, ...) clamps for empty sequences in CUTLASS-style
// varlen code, a scheduler that now issues one block, an early return for an empty grid;
// a removed debug print is nothing. Before: nothing in 8 files.
TEST(ReviewPatterns, VarlenClampsAndEmptyGrids) {
  Reviewed r = ReviewPattern("varlen_clamps", {{"fmha", "csrc/fmha/"}});
  const std::string epi = "csrc/fmha/fwd_epilogue.hpp", sched = "csrc/fmha/tile_scheduler.hpp",
                    launch = "csrc/fmha/device_launch.hpp";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* clamp = At(f, "guard.clamp_added", epi, 21);
    ASSERT_NE(clamp, nullptr) << Dump(f);
    EXPECT_GE(clamp->end_line, 29) << Dump(f);  // the three clamps of one function, one finding
    EXPECT_EQ(clamp->checklist_item, 2);
    EXPECT_TRUE(Mentions(clamp, "empty sequences")) << clamp->message;
    const Finding* s = At(f, "guard.clamp_added", sched, 18);
    ASSERT_NE(s, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(s, "scheduler now issues one block")) << s->message;
    const Finding* ret = At(f, "guard.early_return_added", launch, 12);
    ASSERT_NE(ret, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(ret, "LSE = -inf")) << ret->message;
    for (const Finding& x : f) EXPECT_NE(x.file, "csrc/fmha/fwd_mainloop.hpp") << Dump(f);
    EXPECT_EQ(f.size(), 3u) << Dump(f);
  }
  // With the whole function: the unclamped use of max_length_q further down.
  const Finding* clamp = At(r.with_files, "guard.clamp_added", epi, 21);
  ASSERT_NE(clamp, nullptr);
  EXPECT_TRUE(Mentions(clamp, "`max_length_q` is still used unclamped at line 26"))
      << clamp->message;
}

// DeepGEMM 6db7e18's pattern: smem padding, a 3D TMA store for the unaligned last N tile, a
// kernel template parameter added, stage candidates, a host-side smem size. Before: 9
// findings, 2 useful, 5 noise, 1 wrong at error severity, and 5 misses.
TEST(ReviewPatterns, GemmPaddingTmaAndHostSizes) {
  Reviewed r = ReviewPattern(
      "gemm_padding", {{"gemmlib", "gemmlib/include/"}, {"jit_configs", "gemmlib/jit_kernels/"}});
  const std::string cuh = "gemmlib/include/gemmlib/fp8_gemm.cuh",
                    tma = "gemmlib/include/gemmlib/tma_utils.cuh",
                    py = "gemmlib/jit_kernels/gemm.py",
                    grouped = "gemmlib/jit_kernels/grouped_gemm.py";
  const std::vector<Finding>& f = r.with_files;
  // The kernel's template header and parameter, though `__global__` is outside the context.
  const Finding* sig = At(f, "kernel.interface_changed", cuh, 13);
  ASSERT_NE(sig, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(sig, "signature of kernel fp8_gemm_kernel()")) << sig->message;
  ASSERT_NE(At(f, "kernel.interface_changed", cuh, 23), nullptr) << Dump(f);
  const Finding* smem = At(f, "smem.declaration_changed", cuh, 28);
  ASSERT_NE(smem, nullptr) << Dump(f);
  const Finding* pitch = At(f, "smem.layout_changed", cuh, 60);
  ASSERT_NE(pitch, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(pitch, "include the padding")) << pitch->message;
  const Finding* edge = At(f, "guard.boundary_changed", cuh, 66);
  ASSERT_NE(edge, nullptr) << Dump(f);
  EXPECT_EQ(edge->checklist_item, 4);  // GEMM code: boundary guards are item 4
  const Finding* desc = At(f, "tma.descriptor_changed", cuh, 116);
  ASSERT_NE(desc, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(desc, "Box {BLOCK_N + BLOCK_N_PADDING, 1, BLOCK_M}")) << desc->message;
  EXPECT_TRUE(Mentions(desc, "Strides {BLOCK_N * sizeof(T), SHAPE_N * sizeof(T)}"))
      << desc->message;
  const Finding* desc3 = At(f, "tma.descriptor_changed", tma, 28);
  ASSERT_NE(desc3, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(desc3, "at most 256")) << desc3->message;
  const Finding* host = At(f, "smem.host_size_changed", py, 30);
  ASSERT_NE(host, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(host, "fp8_gemm.cuh:28")) << host->message;
  const Finding* stages = At(f, "tile.candidates_changed", py, 50);
  ASSERT_NE(stages, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(stages, "`stage_candidates` adds 3")) << stages->message;
  // What must not be found: the inlined `rank` constant, bank-stride and padding words in
  // Python, GroupedMasked, the twins' key dicts, the SM-count max, any mask question.
  for (const Finding& x : f) {
    EXPECT_NE(x.rule, "mask.expression_changed") << Dump(f);
    EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
    EXPECT_NE(x.severity, Severity::kError) << Dump(f);
    EXPECT_NE(x.file, grouped) << Dump(f);
    EXPECT_FALSE(x.file == tma && x.line < 25) << Dump(f);
    EXPECT_FALSE(x.file == py && x.line > 60) << Dump(f);
    EXPECT_FALSE(x.file == py && x.line < 28) << Dump(f);
    EXPECT_LE(x.end_line - x.line, 40) << Dump(f);
  }
  EXPECT_LE(f.size(), 10u) << Dump(f);
}

// DeepGEMM a6524d4, daec8fd and 0c88cd0: larger BLOCK_N candidates with a new filter,
// stage candidates down to 1, and a max(0, ...) guard against -1 rows. Before: nothing,
// nothing, and one weak "kernel interface" question.
TEST(ReviewPatterns, GemmCandidatesAndSentinelClamp) {
  Reviewed r = ReviewPattern(
      "gemm_configs", {{"scheduler", "gemmlib/include/"}, {"jit_configs", "gemmlib/jit_kernels/"}});
  const std::string py = "gemmlib/jit_kernels/gemm.py",
                    sched = "gemmlib/include/gemmlib/scheduler.cuh";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* blocks = At(f, "tile.candidates_changed", py, 12);
    ASSERT_NE(blocks, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(blocks, "`block_ns` adds 144, 160")) << blocks->message;
    ASSERT_NE(At(f, "tile.candidates_changed", py, 20), nullptr) << Dump(f);  // the new filter
    const Finding* stages = At(f, "tile.candidates_changed", py, 26);
    ASSERT_NE(stages, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(stages, "adds 2, 1")) << stages->message;
    EXPECT_TRUE(Mentions(stages, "max(k // 128, 1)")) << stages->message;
    EXPECT_TRUE(Mentions(stages, "down to 1")) << stages->message;
    const Finding* clamp = At(f, "guard.clamp_added", sched, 18);
    ASSERT_NE(clamp, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(clamp, "-1 marks a skipped or padding row")) << clamp->message;
    EXPECT_EQ(clamp->checklist_item, 4);
    EXPECT_EQ(Count(f, "kernel.interface_changed"), 0) << Dump(f);
    EXPECT_EQ(Count(f, "guard.clamp_added"), 1) << Dump(f);
  }
}

// FlashMLA c2067be's pattern, in small: a kernel file deleted, its code moved into a new
// file with a few changes. Before: whole-file counts at line 1 of deleted files (SARIF
// pointing at files missing from head) and spans of 200 to 1100 lines.
TEST(ReviewPatterns, RewriteMovedCodeAndDeletedFiles) {
  Reviewed r = ReviewPattern("rewrite", {{"kernels", "csrc/"}});
  const std::string old_file = "csrc/old_kernel.h", new_file = "csrc/kernels/new_kernel.cu";
  const std::vector<Finding>& f = r.with_files;
  // The fence that went nowhere: on the base side, at its old line.
  const Finding* fence = At(f, "sync.barrier_removed", old_file, 15);
  ASSERT_NE(fence, nullptr) << Dump(f);
  EXPECT_EQ(fence->side, "base");
  EXPECT_TRUE(Mentions(fence, "`__threadfence` removed")) << fence->message;
  EXPECT_EQ(Count(f, "sync.barrier_removed"), 1) << Dump(f);  // the __syncthreads moved
  // The new kernel's named barriers: one question, the other places listed.
  const Finding* nb = At(f, "sync.named_barrier_changed", new_file, 15);
  ASSERT_NE(nb, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(
      nb, "The same question applies at lines 55 (`NamedBarrier::arrive_and_wait(128, 3);`), 95"))
      << nb->message;
  EXPECT_EQ(Count(f, "sync.named_barrier_changed"), 1) << Dump(f);
  for (const Finding& x : f) {
    if (x.file == old_file) {
      EXPECT_EQ(x.side, "base") << Dump(f);
    }
    EXPECT_FALSE(x.file == old_file && x.line == 1) << Dump(f);
    EXPECT_LE(x.end_line - x.line, 40) << Dump(f);
    EXPECT_NE(x.rule, "mask.expression_changed") << Dump(f);  // moved, not changed
    EXPECT_NE(x.rule, "launch.grid_changed") << Dump(f);      // same grid, other kernel
    EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
  }
  EXPECT_EQ(f.size(), 2u) << Dump(f);
}

// Statement-level changes, one per kind (patterns/changed_statements, written for this test):
// the question comes from what changed in the statement read whole, not from the words on
// the line, and no fix is reported as a loosened bound.
TEST(ReviewPatterns, ChangedStatementsAskWhatChanged) {
  Reviewed r = ReviewPattern("changed_statements", {{"kernels", "kernels/"}});
  const std::string file = "kernels/decode_epilogue.cuh";
  const std::vector<Finding>& f = r.with_files;
  // A member's type: its uses, not "the interface".
  EXPECT_TRUE(Mentions(At(f, "value.definition_changed", file, 9),
                       "`valid` is now declared `int32_t` (was `bool`)"))
      << Dump(f);
  // A __device__ function's parameter inserted mid-list: every call shifts, and the call the
  // diff changed with it is named.
  const Finding* inserted = At(f, "call.parameter_inserted", file, 12);
  ASSERT_NE(inserted, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(inserted, "inserted as parameter #2 of 4 of `load_scale(...)`"))
      << inserted->message;
  EXPECT_TRUE(Mentions(inserted, "Calls changed with it: line 52.")) << inserted->message;
  // A clamp moved from the row into the element index: a warning that says so.
  const Finding* moved = At(f, "guard.condition_changed", file, 16);
  ASSERT_NE(moved, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(moved, "clamp moved: `min(lane / 4, last)` removed at line 13"))
      << moved->message;
  // An assertion dropped.
  EXPECT_TRUE(Mentions(At(f, "guard.condition_changed", file, 25), "assertion `assert(kBlockM == 64);` removed"))
      << Dump(f);
  // A changed offset, with the unchanged lines that read it after.
  const Finding* def = At(f, "value.definition_changed", file, 26);
  ASSERT_NE(def, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(def, "unchanged uses at lines 27 (`float* row_out = out + row_offset"))
      << def->message;
  // A condition widened with ||, its branch an early exit.
  const Finding* wide = At(f, "guard.condition_changed", file, 28);
  ASSERT_NE(wide, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(wide, "now also when `kVarlen`")) << wide->message;
  EXPECT_TRUE(Mentions(wide, "leaves early (`return`), now in more cases")) << wide->message;
  // A bound replaced: `get<0>(...)` is a template, not a comparison, so nothing "loosened".
  const Finding* bound = At(f, "guard.condition_changed", file, 32);
  ASSERT_NE(bound, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(bound, "bound `get<0>(make_shape(total_rows, 1)) - m_block * kBlockM` -> "
                              "`lens[batch] - m_block * kBlockM`"))
      << bound->message;
  EXPECT_FALSE(Mentions(bound, "barrier")) << bound->message;  // the next statement's
  // A barrier's condition dropped a term.
  EXPECT_TRUE(Mentions(At(f, "guard.condition_changed", file, 35),
                       "the barrier in the branch (`__syncthreads`) now runs in more cases"))
      << Dump(f);
  // A cast to 64 bits in a statement split over lines: one width question, nothing else.
  EXPECT_NE(At(f, "arith.width_changed", file, 39), nullptr) << Dump(f);
  // A spin-wait on a relaxed load.
  EXPECT_TRUE(Mentions(At(f, "sync.barrier_added", file, 46), "spin-wait added")) << Dump(f);
  for (const Finding& x : f) {
    EXPECT_NE(x.severity, Severity::kError) << Dump(f);
    EXPECT_TRUE(x.rule != "kernel.interface_changed" || x.line == 12) << Dump(f);
    EXPECT_NE(x.rule, "splitk.combine_changed") << Dump(f);
    EXPECT_NE(x.rule, "mask.expression_changed") << Dump(f);
  }
  EXPECT_EQ(f.size(), 10u) << Dump(f);
}

// A switch tested in fewer places but still tested (a dispatch restructured so that
// `use_one_wg` is tested once, outside) is not "gone": with the whole head file the fallback
// rule sees it is still read. Diff-only, it cannot tell.
TEST(ReviewPatterns, AMovedSwitchIsNotGone) {
  const Reviewed r = ReviewPattern("moved_switch", {{"tiles", "tiles.h"}});
  EXPECT_EQ(Count(r.with_files, "fallback.switch_removed"), 0) << Dump(r.with_files);
  // The diff alone shows two tests removed and one added: it still asks.
  EXPECT_EQ(Count(r.diff_only, "fallback.switch_removed"), 1) << Dump(r.diff_only);
  for (const Finding& f : r.with_files) {
    EXPECT_NE(f.severity, Severity::kError) << Dump(r.with_files);
  }
}

// Call sites (patterns/call_sites, written for these tests): an argument replaced in a
// multi-line call, two arguments swapped, a parameter inserted mid-list in a device function
// and in a lambda, an offset added inside a subscript. A type-only change of an argument
// (static_cast<float> -> static_cast<double>) asks nothing.
TEST(ReviewPatterns, ArgumentReplacedAtACallNamesTheLinesStillPassingTheOld) {
  const Reviewed r = ReviewPattern("call_sites", {{"kernels", "kernels/"}});
  const std::string file = "kernels/prefill.cu";
  const std::vector<Finding>& f = r.with_files;
  const Finding* replaced = At(f, "call.argument_changed", file, 35);
  ASSERT_NE(replaced, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(replaced, "argument #4 of `launch_varlen(...)`: `seqstart_k` -> `seqstart_q`"))
      << replaced->message;
  // The other call still passes the old value; the parameter's declaration is no call.
  EXPECT_TRUE(Mentions(replaced, "still pass `seqstart_k` right to keep it (38 ("))
      << replaced->message;
  EXPECT_FALSE(Mentions(replaced, "25 (")) << replaced->message;
  EXPECT_EQ(replaced->severity, Severity::kWarning);
  EXPECT_EQ(At(f, "call.argument_changed", file, 39), nullptr) << Dump(f);  // a type only
  EXPECT_EQ(Count(f, "call.argument_changed"), 2) << Dump(f);
}

TEST(ReviewPatterns, SwappedArgumentsNameTheCalleesParameters) {
  const Reviewed r = ReviewPattern("call_sites", {{"kernels", "kernels/"}});
  const std::string file = "kernels/prefill.cu";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const Finding* swapped = At(*findings, "call.argument_changed", file, 21);
    ASSERT_NE(swapped, nullptr) << Dump(*findings);
    EXPECT_TRUE(Mentions(swapped, "arguments #2 and #3 of `combine_tile(...)` swapped"))
        << swapped->message;
  }
  // With the whole file the callee's parameters in those places are named.
  EXPECT_TRUE(Mentions(At(r.with_files, "call.argument_changed", file, 21),
                       "the callee's parameters `partial_o` and `partial_lse`"));
}

TEST(ReviewPatterns, ParameterInsertedMidListListsTheCalls) {
  const Reviewed r = ReviewPattern("call_sites", {{"kernels", "kernels/"}});
  const std::string file = "kernels/prefill.cu";
  const std::vector<Finding>& f = r.with_files;
  const Finding* device = At(f, "call.parameter_inserted", file, 6);
  ASSERT_NE(device, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(device, "`int row_base` inserted as parameter #2 of 4 of `load_bias(...)`, "
                               "before `lane`"))
      << device->message;
  EXPECT_TRUE(Mentions(device, "Calls changed with it: line 20.")) << device->message;
  // A lambda: one call updated, one left as it was.
  const Finding* lambda = At(f, "call.parameter_inserted", file, 27);
  ASSERT_NE(lambda, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(lambda, "The call at line 31 is not changed by this diff")) << lambda->message;
  EXPECT_TRUE(Mentions(lambda, "Calls changed with it: line 30.")) << lambda->message;
  // Appended with a default: the call left alone compiles and passes the default.
  const Finding* appended = At(f, "call.parameter_inserted", file, 49);
  ASSERT_NE(appended, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(appended, "`int max_splits = 0` appended to `plan_splits(...)` with a default"))
      << appended->message;
  EXPECT_TRUE(Mentions(appended, "The call at line 54 is not changed by this diff")) << appended->message;
  EXPECT_EQ(Count(f, "call.parameter_inserted"), 3) << Dump(f);
  // Without the whole file the calls are not listed, and nothing claims there are none.
  const Finding* diff_only = At(r.diff_only, "call.parameter_inserted", file, 27);
  ASSERT_NE(diff_only, nullptr) << Dump(r.diff_only);
  EXPECT_FALSE(Mentions(diff_only, "No call in this file")) << diff_only->message;
}

TEST(ReviewPatterns, OffsetAddedInsideAnIndexNamesTheOtherReads) {
  const Reviewed r = ReviewPattern("call_sites", {{"kernels", "kernels/"}});
  const Finding* offset = At(r.with_files, "index.offset_added", "kernels/prefill.cu", 19);
  ASSERT_NE(offset, nullptr) << Dump(r.with_files);
  EXPECT_TRUE(Mentions(offset, "`bias[...]` now indexed at `row_base + col` (adds `row_base`)"))
      << offset->message;
  EXPECT_TRUE(Mentions(offset, "Other lines still index `bias` without it: 7 (")) << offset->message;
  // The same fix in a second kernel of the file is the same question, asked once.
  EXPECT_TRUE(Mentions(offset, "The same question applies at line 46 (`out[row_base + col] = q[col] + "
                               "bias[row_base + col];`) in prefill_kernel_tail()."))
      << offset->message;
  EXPECT_EQ(Count(r.with_files, "index.offset_added"), 1) << Dump(r.with_files);
}

// Build gates (patterns/build_gates, written for these tests): an `#if` version bound raised
// that defines a switch tested elsewhere, an `#ifndef` added around code, a tile tuple
// returned by a tile-size function, Python choosing a tile by compute capability. An include
// guard renamed asks nothing; nothing is an error.
TEST(ReviewPatterns, PreprocessorConditionsNameWhatTheyGate) {
  const Reviewed r = ReviewPattern("build_gates", {{"kernels", "kernels/"}, {"pkg", "pkg/"}});
  const std::string file = "kernels/gates.h";
  const std::vector<Finding>& f = r.with_files;
  const Finding* version = At(f, "preprocessor.condition_changed", file, 5);
  ASSERT_NE(version, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(version, "`#if DEMO_TOOLKIT_VERSION >= 20` -> `#if DEMO_TOOLKIT_VERSION >= 22` "
                                "(it gates lines 6-6), defining `DEMO_FAST_MMA`"))
      << version->message;
  EXPECT_TRUE(Mentions(version, "(21 (`#ifdef DEMO_FAST_MMA`))")) << version->message;
  EXPECT_TRUE(Mentions(version, "An undefined `DEMO_TOOLKIT_VERSION` reads as 0 in `#if`"))
      << version->message;
  const Finding* added = At(f, "preprocessor.condition_changed", file, 29);
  ASSERT_NE(added, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(added, "`#ifndef DEMO_DISABLE_RESCALE` added in rescale() (it gates lines 30-30)"))
      << added->message;
  EXPECT_EQ(At(f, "preprocessor.condition_changed", file, 2), nullptr) << Dump(f);  // a guard
  EXPECT_EQ(Count(f, "preprocessor.condition_changed"), 2) << Dump(f);
  for (const Finding& x : f) EXPECT_NE(x.severity, Severity::kError) << Dump(f);
}

TEST(ReviewPatterns, TileTuplesReturnedByATileFunction) {
  const Reviewed r = ReviewPattern("build_gates", {{"kernels", "kernels/"}, {"pkg", "pkg/"}});
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const Finding* tile = At(*findings, "tile.constant_changed", "kernels/gates.h", 13);
    ASSERT_NE(tile, nullptr) << Dump(*findings);
    EXPECT_TRUE(Mentions(tile, "returned tile `{128, 112, true}` -> `{128, 96, true}` (element 2 "
                               "112 -> 96)"))
        << tile->message;
    // The unchanged tuples of the function are not asked about.
    EXPECT_EQ(Count(*findings, "tile.constant_changed"), 1) << Dump(*findings);
  }
}

TEST(ReviewPatterns, PythonChoosingByArchIsAsked) {
  const Reviewed r = ReviewPattern("build_gates", {{"kernels", "kernels/"}, {"pkg", "pkg/"}});
  const Finding* arch = At(r.with_files, "arch.dispatch_changed", "pkg/tiles.py", 12);
  ASSERT_NE(arch, nullptr) << Dump(r.with_files);
  EXPECT_TRUE(Mentions(arch, "`if major * 10 + minor >= 90:` added in prepare()")) << arch->message;
  EXPECT_TRUE(Mentions(arch, "(`q8, k8 = quantize(q, k, 64, 128)`)")) << arch->message;
  EXPECT_EQ(Count(r.with_files, "arch.dispatch_changed"), 1) << Dump(r.with_files);
}

// A host dispatch, a host heuristic and functions the diff adds whole (patterns/host_dispatch,
// written for these tests). A branch that only returns a variant is asked as a dispatch, not
// as "are the outputs still written"; a `logf` in a host heuristic is no softmax; a kernel
// and a launcher added whole ask what an added file asks (its launch), not "interface
// changed", "block index remapped" or "early return".
TEST(ReviewPatterns, HostDispatchAsksWhichInputsReachWhichVariant) {
  const Reviewed r = ReviewPattern("host_dispatch", {{"kernels", "kernels/"}});
  const std::string file = "kernels/dispatch.cu";
  const std::vector<Finding>& f = r.with_files;
  const Finding* dispatch = At(f, "guard.condition_changed", file, 10);
  ASSERT_NE(dispatch, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(dispatch, "dispatch changed: `p.group % 6 == 0` now picks `run_group<6>(p)`"))
      << dispatch->message;
  EXPECT_FALSE(Mentions(dispatch, "outputs")) << dispatch->message;
  EXPECT_EQ(Count(f, "softmax.stability_changed"), 0) << Dump(f);
  // A case added to a host switch that calls one variant: the same question.
  EXPECT_TRUE(Mentions(At(f, "guard.condition_changed", file, 47),
                       "dispatch changed: `case 4` now picks `run_group<4>(p)`"))
      << Dump(f);
}

TEST(ReviewPatterns, FunctionsAddedWholeAskWhatAnAddedFileAsks) {
  const Reviewed r = ReviewPattern("host_dispatch", {{"kernels", "kernels/"}});
  const std::string file = "kernels/dispatch.cu";
  const std::vector<Finding>& f = r.with_files;
  EXPECT_EQ(Count(f, "kernel.interface_changed"), 0) << Dump(f);
  EXPECT_EQ(Count(f, "launch.block_index_remapped"), 0) << Dump(f);
  EXPECT_EQ(Count(f, "guard.early_return_added"), 0) << Dump(f);
  EXPECT_NE(At(f, "launch.grid_changed", file, 39), nullptr) << Dump(f);
  EXPECT_EQ(f.size(), 4u) << Dump(f);  // and the dispatches at lines 10 and 47
}

// Round 11 (issue 37): names on lines that compute no mask. A causal convolution's launcher
// (its kernel pointer's type, a log string, a pragma), a parameter declaration whose name
// has `seqlens`, a keyword argument set to a literal in a script block and a call wrapped in
// another helper ask no mask question; a select to -inf asks one whatever its names.
TEST(ReviewPatterns, NamesOnLinesThatComputeNoMaskAskNothing) {
  const Reviewed r = ReviewPattern("names_not_masks", {{"attention", "kernels/"}});
  const std::string cu = "kernels/conv_step.cu", py = "kernels/attn_fwd.py";
  const std::vector<Finding>& f = r.with_files;
  for (int line : {16, 23, 25, 30}) EXPECT_EQ(At(f, "mask.expression_changed", cu, line), nullptr) << Dump(f);
  for (int line : {29, 39}) EXPECT_EQ(At(f, "mask.expression_changed", py, line), nullptr) << Dump(f);
  EXPECT_EQ(Count(f, "value.definition_changed"), 0) << Dump(f);  // `(void*) &k<T>` -> `auto`
}

// A score select to -inf whose condition now joins a second test: rows that may be masked
// whole (NaN from exp(-inf - -inf)), asked though no name on the line says mask.
TEST(ReviewPatterns, AMaskToMinusInfJoiningTestsAsksAboutFullyMaskedRows) {
  const Reviewed r = ReviewPattern("names_not_masks", {{"attention", "kernels/"}});
  const std::string py = "kernels/attn_fwd.py";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const Finding* m = At(*findings, "mask.expression_changed", py, 17);
    ASSERT_NE(m, nullptr) << Dump(*findings);
    EXPECT_TRUE(Mentions(m, "Can a whole row be masked")) << m->message;
    EXPECT_TRUE(Mentions(m, "NaN")) << m->message;
  }
}

// A clamp removed together with the input it clamped (the file reads the field nowhere now):
// a warning question about the value that replaces it, not "read/write past end" at error.
TEST(ReviewPatterns, ABoundRemovedWithItsInputIsNoLoosenedBound) {
  const Reviewed r = ReviewPattern("names_not_masks", {{"attention", "kernels/"}});
  const std::string cu = "kernels/conv_step.cu";
  const std::vector<Finding>& f = r.with_files;
  EXPECT_EQ(Count(f, "guard.bound_loosened"), 0) << Dump(f);
  const Finding* c = At(f, "guard.condition_changed", cu, 15);
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_TRUE(Mentions(c, "removed together with `steps`")) << c->message;
  for (const Finding& x : f) EXPECT_NE(x.severity, Severity::kError) << Dump(f);
}

// A constructor's member initialiser put under `#ifndef`/`#else`: the preprocessor question,
// not "signature of device function changed".
TEST(ReviewPatterns, AnInitialiserListUnderAGateIsNoSignature) {
  const Reviewed r = ReviewPattern("names_not_masks", {{"attention", "kernels/"}});
  const std::string cu = "kernels/conv_step.cu";
  const std::vector<Finding>& f = r.with_files;
  EXPECT_EQ(Count(f, "kernel.interface_changed"), 0) << Dump(f);
  EXPECT_NE(At(f, "preprocessor.condition_changed", cu, 38), nullptr) << Dump(f);
}

// A negative index wrapped once after a `%` of a signed value: the remainder keeps the
// dividend's sign, so the question is the modulo of a negative input, not a tile edge; a
// ring wrap (`v = v >= n ? v - n : v`) alone is no tile-edge branch.
TEST(ReviewPatterns, AWrapAfterAModuloAsksAboutNegativeInputs) {
  const Reviewed r = ReviewPattern("names_not_masks", {{"attention", "kernels/"}});
  const std::string cu = "kernels/conv_step.cu";
  const std::vector<Finding>& f = r.with_files;
  const Finding* w = At(f, "guard.boundary_changed", cu, 51);
  ASSERT_NE(w, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(w, "wraps a negative index once, after `int start = starts[blockIdx.x] % ring_len;`"))
      << w->message;
  EXPECT_FALSE(Mentions(w, "tile at the edge")) << w->message;
  EXPECT_EQ(At(f, "guard.boundary_changed", cu, 55), nullptr) << Dump(f);
}

// A gate whose two sides take a lane with a fixed 32-lane mask and with a warp-width macro:
// the preprocessor question also asks about 32-bit lane masks on 64-lane wavefronts.
TEST(ReviewPatterns, AGatedWarpWidthAsksAboutLaneMasks) {
  const Reviewed r = ReviewPattern("names_not_masks", {{"attention", "kernels/"}});
  const Finding* p = At(r.with_files, "preprocessor.condition_changed", "kernels/conv_step.cu", 38);
  ASSERT_NE(p, nullptr) << Dump(r.with_files);
  EXPECT_TRUE(Mentions(p, "32-bit lane and member masks")) << p->message;
  // The first gate of the file selects no lane: no such question there.
  for (const Finding& x : r.with_files) {
    if (x.rule == "preprocessor.condition_changed" && x.line != 38) {
      EXPECT_FALSE(Mentions(&x, "lane")) << x.message;
    }
  }
}

// Triton: a tile that followed the input dtype now float32, a host buffer that followed
// `q.dtype` now float32, and a value cast to float32 after its product: each a warning about
// changed results (no error: nothing was narrowed).
TEST(ReviewPatterns, AComputationMovedToFloat32IsAsked) {
  const Reviewed r = ReviewPattern("dtype_widened", {{"attention", "kernels/"}});
  const std::string py = "kernels/decode_scores.py";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* tile = At(f, "accum.dtype_widened", py, 13);
    ASSERT_NE(tile, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(tile, "`acc` is now `tl.float32` where it followed the input dtype (`in_dtype`)"))
        << tile->message;
    EXPECT_EQ(tile->severity, Severity::kWarning);
    const Finding* cast = At(f, "accum.dtype_widened", py, 15);
    ASSERT_NE(cast, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(cast, "cast to float32 after it was computed")) << cast->message;
    const Finding* buffer = At(f, "accum.dtype_widened", py, 21);
    ASSERT_NE(buffer, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(buffer, "(`q.dtype`)")) << buffer->message;
    // A product wrapped in a cast: the cast comes after the rounding. A load cast as it is
    // read combines nothing first.
    const Finding* rounded = At(f, "accum.dtype_widened", py, 33);
    ASSERT_NE(rounded, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(rounded, "`dy * (x * r[:, None]).to(in_dtype)` is now cast to float32 "
                                  "after it is computed in _norm_grad_kernel()"))
        << rounded->message;
    EXPECT_TRUE(Mentions(rounded, "Should the operands be cast before they are multiplied"))
        << rounded->message;
    EXPECT_EQ(At(f, "accum.dtype_widened", py, 34), nullptr) << Dump(f);
    EXPECT_EQ(Count(f, "accum.dtype_narrowed"), 0) << Dump(f);
  }
}

// A ROCm gate added (patterns/rocm_masks): the file's shuffles with a 32-bit full mask are
// named for 64-lane wavefronts.
TEST(ReviewPatterns, ARocmGateNamesTheFilesThirtyTwoBitShuffleMasks) {
  const Reviewed r = ReviewPattern("rocm_masks", {{"kernels", "kernels/"}});
  const Finding* gate = At(r.with_files, "preprocessor.condition_changed", "kernels/norm.cu", 10);
  ASSERT_NE(gate, nullptr) << Dump(r.with_files);
  EXPECT_TRUE(Mentions(gate, "The file's warp shuffles and votes take a 32-bit full mask (7 ("))
      << gate->message;
  EXPECT_TRUE(Mentions(gate, "on a 64-lane wavefront do they reach lanes 32-63")) << gate->message;
}

// A clamp in place (patterns/clamp_in_place): `blocks = max(blocks, 1)` leaves no read of
// `blocks` unclamped; `max(tiles, 1)` into another name leaves `tiles` unclamped below it.
TEST(ReviewPatterns, AClampInPlaceLeavesNoUseUnclamped) {
  const Reviewed r = ReviewPattern("clamp_in_place", {{"csrc", "csrc/"}});
  const Finding* c = At(r.with_files, "guard.clamp_added", "csrc/setup.cu", 6);
  ASSERT_NE(c, nullptr) << Dump(r.with_files);  // both clamps, one finding
  EXPECT_FALSE(Mentions(c, "`blocks` is still used unclamped")) << c->message;
  EXPECT_TRUE(Mentions(c, "`tiles` is still used unclamped at line 9")) << c->message;
}

}  // namespace
}  // namespace av
