// call.parameter_inserted on Python (testdata/review/patterns/python_params): a host
// function with a positional call left behind; a Triton kernel whose only launch changed with
// it, and a function whose calls name their arguments from that place on, ask nothing.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, PythonParameterInsertedNamesThePositionalCallsLeft) {
  const Reviewed r = ReviewPattern("python_params", {{"pkg", "pkg/"}});
  const std::string py = "pkg/ops.py";
  const std::vector<Finding>& f = r.with_files;
  const Finding* host = At(f, "call.parameter_inserted", py, 14);
  ASSERT_NE(host, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(host, "`bias` inserted as parameter 4 of 5 of `attention(...)`, before "
                             "`scale`"))
      << host->message;
  EXPECT_TRUE(Mentions(host, "The positional call at line 25 is not changed by this diff"))
      << host->message;
  EXPECT_TRUE(Mentions(host, "Calls changed with it: line 21.")) << host->message;
  EXPECT_EQ(At(f, "call.parameter_inserted", py, 7), nullptr) << Dump(f);   // private kernel
  EXPECT_EQ(At(f, "call.parameter_inserted", py, 28), nullptr) << Dump(f);  // keyword calls
  EXPECT_EQ(Count(f, "call.parameter_inserted"), 1) << Dump(f);
  // Without the whole files the `def` cannot be read whole: nothing is asked.
  EXPECT_EQ(Count(r.diff_only, "call.parameter_inserted"), 0) << Dump(r.diff_only);
}

}  // namespace
}  // namespace av
