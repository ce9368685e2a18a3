// tests.coverage_reduced on a small repository of our own (testdata/review/patterns/
// tests_changed): a Python and a C++ test file changed so that they check less.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, TestsThatCheckLessAreAsked) {
  const Reviewed r = ReviewPattern("tests_changed", {{"tests", "tests/"}});
  const std::string py = "tests/test_attention.py", cc = "tests/attention_test.cc";
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* dtype = At(f, "tests.coverage_reduced", py, 7);
    ASSERT_NE(dtype, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(dtype, "`torch.bfloat16` no longer tested")) << dtype->message;
    const Finding* edited = At(f, "tests.coverage_reduced", py, 10);
    ASSERT_NE(edited, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(edited, "case `(2, 4, 4000, 32),` -> `(2, 4, 4000, 64),` (also line 24): "
                                 "the old case is no longer run"))
        << edited->message;
    const Finding* atol = At(f, "tests.coverage_reduced", py, 17);
    ASSERT_NE(atol, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(atol, "tolerance raised: `atol` 1e-3 -> 1e-2 (x10) in test_forward()"))
        << atol->message;
    const Finding* skip = At(f, "tests.coverage_reduced", py, 20);
    ASSERT_NE(skip, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(skip, "`@pytest.mark.skipif(")) << skip->message;
    EXPECT_TRUE(Mentions(skip, "sm90 only\")` added: the test no longer runs")) << skip->message;
    // A deletion is placed where it sat: the line after it.
    const Finding* removed = At(f, "tests.coverage_reduced", py, 31);
    ASSERT_NE(removed, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(removed, "check `torch.testing.assert_close(q.grad, reference(q, q, q, "
                                  "causal=causal, grad=True))` removed in test_backward() (3 checks removed, 2 "
                                  "added in the file)"))
        << removed->message;
    const Finding* near = At(f, "tests.coverage_reduced", cc, 8);
    ASSERT_NE(near, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(near, "tolerance raised: `EXPECT_NEAR` 1e-4 -> 5e-3 (x50): the test now"))
        << near->message;
    // A bound tightened (0.02 -> 0.01) and a value added (`None`) take nothing away; no code
    // rule reads a test file.
    EXPECT_EQ(At(f, "tests.coverage_reduced", py, 21), nullptr) << Dump(f);
    for (const Finding& x : f) EXPECT_FALSE(Mentions(&x, "0.02")) << Dump(f);
    for (const Finding& x : f) EXPECT_EQ(x.rule, "tests.coverage_reduced") << Dump(f);
    // A test file the diff adds, and a skip on a test the diff adds, take nothing away.
    EXPECT_EQ(At(f, "tests.coverage_reduced", "tests/test_new_kernel.py", 5), nullptr) << Dump(f);
    // Checks chosen by branches on the group size, replaced by one check whose bound is looked
    // up in a table keyed by it, check as much as before.
    for (const Finding& x : f) EXPECT_NE(x.file, "tests/test_quant_table.py") << Dump(f);
    EXPECT_EQ(Count(f, "tests.coverage_reduced"), 6) << Dump(f);
  }
}

}  // namespace
}  // namespace av
