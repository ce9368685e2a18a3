#include "core/format.h"

#include <gtest/gtest.h>

#include <limits>

namespace av {
namespace {

TEST(FormatTest, SignificantDigits) {
  EXPECT_EQ(FormatG(0.000123456789, 3), "0.000123");
  EXPECT_EQ(FormatG(15000000.0, 6), "1.5e+07");
  EXPECT_EQ(FormatG(2.0 / 3.0, 4), "0.6667");
  EXPECT_EQ(FormatG(std::numeric_limits<double>::infinity(), 6), "inf");
}

}  // namespace
}  // namespace av
