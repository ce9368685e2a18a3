// buffer.zeroing_removed on a small repository of our own (testdata/review/patterns/
// zeroing): an output allocated empty where it was zeroed, a memset removed; a memset moved
// within the file zeroes no less.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, BuffersNoLongerZeroedAreAsked) {
  const Reviewed r = ReviewPattern("zeroing", {{"kernels", "kernels/"}});
  const std::vector<Finding>& f = r.with_files;
  const Finding* empty = At(f, "buffer.zeroing_removed", "kernels/splitk.py", 6);
  ASSERT_NE(empty, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(empty, "-> `out = torch.empty((a.shape[0], b.shape[1])")) << empty->message;
  EXPECT_TRUE(Mentions(empty, "the buffer is no longer zero-initialised in splitk_gemm()"))
      << empty->message;
  const Finding* memset = At(f, "buffer.zeroing_removed", "kernels/launch.cu", 4);
  ASSERT_NE(memset, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(memset, "`cudaMemset(locks, 0, 4 * cols);` removed")) << memset->message;
  // The memset moved before the first launch in LaunchTwice zeroes no less in the file.
  EXPECT_EQ(Count(f, "buffer.zeroing_removed"), 2) << Dump(f);
}

}  // namespace
}  // namespace av
