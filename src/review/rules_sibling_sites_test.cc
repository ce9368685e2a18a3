// change.siblings_unchanged on a small repository of our own (testdata/review/patterns/
// sibling_sites): an edit made at one site of a file, and the unchanged lines that still
// read the old form.
#include <gtest/gtest.h>

#include "review/review_patterns_test_util.h"

namespace av {
namespace {

using namespace pattern_test;  // NOLINT

// A row index widened to 64
// bits in one CUDA kernel and one Triton kernel while their twins keep the 32-bit form; a
// tile constant changed (literals only: no sibling question); a bound fixed in both kernels
// (no site left).
TEST(ReviewPatterns, AnEditMadeAtOneSiteNamesTheSiblingsStillReadingTheOldForm) {
  const Reviewed r = ReviewPattern("sibling_sites", {{"kernels", "kernels/"}, {"pkg", "pkg/"}});
  const std::vector<Finding>& f = r.with_files;
  // The CUDA line is another rule's finding (a block index's definition): the sibling
  // question joins it.
  const Finding* cuda = nullptr;
  for (const Finding& x : f) {
    if (x.file == "kernels/rows.cu" && x.line <= 8 && 8 <= x.end_line) cuda = &x;
  }
  ASSERT_NE(cuda, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(cuda, "The same edit (`const int row = blockIdx` -> `const int64_t row = blockIdx`) is not made "
                             "where unchanged lines of this file still read `const int row = blockIdx`: 17 "
                             "(`const int row = blockIdx.x;`)."))
      << cuda->message;
  const Finding* triton = At(f, "change.siblings_unchanged", "pkg/norm.py", 7);
  ASSERT_NE(triton, nullptr) << Dump(f);
  EXPECT_TRUE(Mentions(triton, "`tl.program_id(0)` -> `tl.program_id(0).to(tl.int64)`"))
      << triton->message;
  EXPECT_TRUE(Mentions(triton, ": 15 (`rows = tl.program_id(0) * BLOCK_ROW")) << triton->message;
  // Literals only (a tile size) and a fix made at every site ask nothing about siblings.
  for (const Finding& x : f) {
    if (x.file == "kernels/rows.cu" && x.line == 4) {
      EXPECT_EQ(x.message.find("still read"), std::string::npos) << x.message;
    }
    if (x.file == "kernels/both.cu") {
      EXPECT_EQ(x.message.find("still read"), std::string::npos) << x.message;
    }
    EXPECT_NE(x.severity, Severity::kError) << Dump(f);
  }
  // An expression replaced by a local that holds it (`y[col] = v`) leaves the other line
  // reading `x[col] * block_rows` as right as before.
  for (const Finding& x : f) {
    if (x.file == "kernels/rows.cu" && x.line >= 26) {
      EXPECT_EQ(x.message.find("still read"), std::string::npos) << x.message;
    }
  }
  int asked = 0;
  for (const Finding& x : f) asked += x.message.find("still read") != std::string::npos;
  EXPECT_EQ(asked, 2) << Dump(f);
  EXPECT_EQ(Count(f, "change.siblings_unchanged"), 1) << Dump(f);
  // Without the whole files there are no unchanged lines to name.
  EXPECT_EQ(Count(r.diff_only, "change.siblings_unchanged"), 0) << Dump(r.diff_only);
}

// The same edit in several functors of two files (patterns/same_edit): one question, at
// its first place, naming the others in the file and in the other file.
TEST(ReviewPatterns, TheSameEditInSeveralPlacesIsAskedOnce) {
  const Reviewed r = ReviewPattern("same_edit", {{"kernels", "kernels/"}});
  const std::vector<Finding>& f = r.with_files;
  ASSERT_EQ(Count(f, "arith.width_changed"), 1) << Dump(f);
  const Finding* w = At(f, "arith.width_changed", "kernels/adam.cu", 6);
  ASSERT_NE(w, nullptr) << Dump(f);
  // Functors the outline names no function for: the same edit, asked once per file.
  EXPECT_TRUE(Mentions(w, "The same question applies at line 30")) << w->message;
  EXPECT_TRUE(Mentions(w, "The same change is made at kernels/sgd.cu:6.")) << w->message;
}

// A default changed in a Python wrapper and a C++ declaration, still 8 in the other
// wrapper (patterns/defaults): one question for the review, naming the place left.
TEST(ReviewPatterns, ADefaultChangedInSomePlacesNamesThoseLeft) {
  const Reviewed r = ReviewPattern("defaults", {{"pkg", "pkg/"}});
  const std::vector<Finding>& f = r.with_files;
  int asked = 0;
  const Finding* found = nullptr;
  for (const Finding& x : f) {
    if (x.message.find("other places still give it") == std::string::npos) continue;
    ++asked;
    found = &x;
  }
  ASSERT_EQ(asked, 1) << Dump(f);
  EXPECT_TRUE(Mentions(found, "`max_par` 8 -> 16")) << found->message;
  EXPECT_TRUE(Mentions(found, "9 (`def mul_layer(a, b, max_par=8):`)")) << found->message;
  // A local's value (`BLOCK = 32`) is no default.
  for (const Finding& x : f) EXPECT_FALSE(Mentions(&x, "`BLOCK`")) << Dump(f);
}

}  // namespace
}  // namespace av
