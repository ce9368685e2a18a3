// fallback.error_swallowed on a small repository of our own (testdata/review/patterns/
// swallowed): handlers that catch everything and go on, beside ones that name the error or
// raise again.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

TEST(ReviewPatterns, HandlersThatCatchEverythingAndGoOnAreAsked) {
  const Reviewed r = ReviewPattern("swallowed", {{"pkg", "pkg/"}});
  for (const auto* findings : {&r.with_files, &r.diff_only}) {
    const std::vector<Finding>& f = *findings;
    const Finding* bare = At(f, "fallback.error_swallowed", "pkg/loader.py", 6);
    ASSERT_NE(bare, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(bare, "`except:` added")) << bare->message;
    EXPECT_TRUE(Mentions(bare, "it catches every error")) << bare->message;
    // The body is read from the whole file (in the diff alone, the assignment only moved).
    if (findings == &r.with_files) {
      EXPECT_TRUE(Mentions(bare, "going on with `attention_fast = None`")) << bare->message;
    }
    EXPECT_EQ(bare->checklist_item, 7);
    const Finding* cpp = At(f, "fallback.error_swallowed", "pkg/launch.cc", 6);
    ASSERT_NE(cpp, nullptr) << Dump(f);
    EXPECT_TRUE(Mentions(cpp, "`} catch (...) {` added in Launch(), going on with "
                              "`return LaunchSlow(args);`"))
        << cpp->message;
    // `except ImportError:` names what it expects; `raise ... from e` does not go on; a
    // handler that logs says what happened.
    EXPECT_EQ(Count(f, "fallback.error_swallowed"), 2) << Dump(f);
  }
}

}  // namespace
}  // namespace av
