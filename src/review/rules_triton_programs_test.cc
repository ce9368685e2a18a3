// Triton program ids and block pointers on a small repository of our own
// (testdata/review/patterns/triton_programs): the grid's axes swapped in the kernel and at
// the launch, a block pointer described transposed; a program id widened in place keeps its
// axis and asks no remap question.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, TritonProgramIdsAndBlockPointersAreAsked) {
  const Reviewed r = ReviewPattern("triton_programs", {{"kernels", "kernels/"}});
  const std::string py = "kernels/chunk.py";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* remap = At(f, "launch.block_index_remapped", py, 8);
    ASSERT_NE(remap, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(remap, "`i_t = tl.program_id(0)` -> `i_t = tl.program_id(1)` in "
                                "_chunk_kernel(): which tile each program computes changed"))
        << remap->message;
    EXPECT_TRUE(Mentions(remap, "The launch grid changes at line 23 (`grid = (B * H, "))
        << remap->message;
    const Finding* ptr = At(f, "triton.block_ptr_changed", py, 10);
    ASSERT_NE(ptr, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(ptr, "(K_DIM, T), (1, K_DIM)")) << ptr->message;
    EXPECT_TRUE(Mentions(ptr, "do the offsets start where this program's tile starts"))
        << ptr->message;
    EXPECT_EQ(At(f, "launch.block_index_remapped", py, 17), nullptr) << Dump(f);
    for (const Finding& x : f) EXPECT_NE(x.severity, Severity::kError) << Dump(f);
  }
}

// Autotune added to kernels that accumulate into their output (patterns/triton_autotune):
// asked where nothing resets or restores the output, not where restore_value names it.
TEST(ReviewPatterns, AnAutotunedKernelThatWritesWhatItReadsIsAsked) {
  const Reviewed r = ReviewPattern("triton_autotune", {{"kernels", "kernels/"}});
  const std::vector<Finding>& f = r.with_files;
  const Finding* a = At(f, "triton.autotune_in_place", "kernels/accum.py", 6);
  ASSERT_NE(a, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(a, "`_accum_kernel` is autotuned and both reads and writes `O`")) << a->message;
  EXPECT_EQ(Count(f, "triton.autotune_in_place"), 1) << Dump(f);
}

}  // namespace
}  // namespace av
