// sync.collective_divergent on a small repository of our own (testdata/review/patterns/
// collectives): warp collectives added under a lane-dependent branch, and a lane-dependent
// branch added around one; a branch on the warp's id and a loop on a voted condition are the
// same for every lane of a warp and ask nothing.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, CollectivesWhereLanesCanDivergeAreAsked) {
  const Reviewed r = ReviewPattern("collectives", {{"kernels", "kernels/"}});
  const std::string cu = "kernels/reduce.cu";
  const std::vector<Finding>& f = r.with_files;
  const Finding* shfl = At(f, "sync.collective_divergent", cu, 13);
  ASSERT_NE(shfl, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(shfl, "`__shfl_xor_sync` added under `if (lane_id < 16) {` (line 11) in "
                             "row_sum_kernel(), which depends on `lane_id`: a warp collective "
                             "must be reached by every lane its mask names"))
      << shfl->message;
  const Finding* around = At(f, "sync.collective_divergent", cu, 24);
  ASSERT_NE(around, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(around, "`if (i < aligned) {` added around `__syncwarp` (line 26) in "
                               "copy_rows_kernel(), which depends on `i`"))
      << around->message;
  // `warp_id` is threadIdx.x / 32: one value per warp. `pending` is voted by __any_sync.
  EXPECT_EQ(At(f, "sync.collective_divergent", cu, 16), nullptr) << Dump(f);
  EXPECT_EQ(At(f, "sync.collective_divergent", cu, 36), nullptr) << Dump(f);
  // `threadIdx.x < 64` compares with a multiple of the warp's width: whole warps.
  EXPECT_EQ(At(f, "sync.collective_divergent", cu, 45), nullptr) << Dump(f);
  EXPECT_EQ(Count(f, "sync.collective_divergent"), 2) << Dump(f);
  for (const Finding& x : f) EXPECT_NE(x.severity, Severity::kError) << Dump(f);
  // Without the whole file the enclosing branches are unknown: nothing is asked.
  EXPECT_EQ(Count(r.diff_only, "sync.collective_divergent"), 0) << Dump(r.diff_only);
}

// A barrier added to one kernel (patterns/early_return_barrier): its twin lets threads
// past the end return before its own barrier; a block-uniform return is no such hazard.
TEST(ReviewPatterns, ABarrierAddedNamesKernelsThatReturnEarlyBeforeTheirs) {
  const Reviewed r = ReviewPattern("early_return_barrier", {{"kernels", "kernels/"}});
  const std::vector<Finding>& f = r.with_files;
  const Finding* added = At(f, "sync.barrier_added", "kernels/reconstruct.cu", 6);
  ASSERT_NE(added, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(added, "reconstruct_b_kernel() returns early at line 17 (`if (n >= size_n) "
                              "return;`) before its __syncthreads at line 18"))
      << added->message;
  EXPECT_FALSE(Mentions(added, "reconstruct_c_kernel")) << added->message;
}

}  // namespace
}  // namespace av
