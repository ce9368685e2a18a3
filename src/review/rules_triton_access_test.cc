// triton.access_mask_changed on a small repository of our own (testdata/review/patterns/
// triton_masks): the mask and `other` of Triton loads, on the call's line and on a
// continuation line of a call split over lines.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, TritonLoadAndStoreGuardsAreAsked) {
  const Reviewed r = ReviewPattern("triton_masks", {{"kernels", "kernels/"}});
  const std::string py = "kernels/rows.py";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* other = At(f, "triton.access_mask_changed", py, 10);
    ASSERT_NE(other, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(other, "masked lanes of `tl.load` now read `float(\"-inf\")` instead of "
                                "`0.0` in _row_max_kernel(): is that the identity of what follows"))
        << other->message;
    const Finding* removed = At(f, "triton.access_mask_changed", py, 19);
    ASSERT_NE(removed, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(removed, "`tl.load` no longer has its mask (`cols < n_cols`) in "
                                  "_row_copy_kernel(): every lane now reads"))
        << removed->message;
    const Finding* changed = At(f, "triton.access_mask_changed", py, 22);
    ASSERT_NE(changed, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(changed, "the access mask `cols < n_cols` -> `cols < n_cols - 1`"))
        << changed->message;
    // A load the diff adds (line 25) and a store whose value alone changed (26) ask nothing.
    EXPECT_EQ(At(f, "triton.access_mask_changed", py, 25), nullptr) << Dump(f);
    EXPECT_EQ(At(f, "triton.access_mask_changed", py, 26), nullptr) << Dump(f);
    for (const Finding& x : f) EXPECT_NE(x.severity, Severity::kError) << Dump(f);
  }
}

}  // namespace
}  // namespace av
