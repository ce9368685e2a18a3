#include <gtest/gtest.h>

#include "attention.h"

TEST(Attention, MatchesReference) {
  const float got = RunAttention(128);
  const float want = ReferenceAttention(128);
  EXPECT_NEAR(got, want, 1e-4);
}
