// GlobMatch and ValidateGlob: the path globs of [components].
#include "diff/glob.h"

#include <gtest/gtest.h>

#include <string>

namespace av {
namespace {

TEST(GlobTest, Semantics) {
  EXPECT_TRUE(GlobMatch("src/flash_mla/**", "src/flash_mla/a.cu"));
  EXPECT_TRUE(GlobMatch("src/flash_mla/**", "src/flash_mla/x/y/z.h"));
  EXPECT_FALSE(GlobMatch("src/flash_mla/**", "src/flash_mla_v2/a.cu"));
  EXPECT_TRUE(GlobMatch("src/*.cu", "src/a.cu"));
  EXPECT_FALSE(GlobMatch("src/*.cu", "src/x/a.cu"));
  EXPECT_TRUE(GlobMatch("**/*.py", "a.py"));
  EXPECT_TRUE(GlobMatch("**/*.py", "x/y/a.py"));
  EXPECT_TRUE(GlobMatch("src/**/kernel.cu", "src/kernel.cu"));
  EXPECT_TRUE(GlobMatch("src/**/kernel.cu", "src/a/b/kernel.cu"));
  EXPECT_FALSE(GlobMatch("src/**/kernel.cu", "src/a/b/kernel.cuh"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_FALSE(GlobMatch("a?c", "a/c"));
  EXPECT_TRUE(GlobMatch("**", "anything/at/all"));
  EXPECT_FALSE(GlobMatch("", "x"));
  // No exponential blow-up on pathological patterns.
  EXPECT_FALSE(GlobMatch("**a**a**a**a**a**a**a**b", std::string(3000, 'a')));
  EXPECT_FALSE(ValidateGlob("/abs/**").ok());
  EXPECT_FALSE(ValidateGlob("src/../x").ok());
  EXPECT_TRUE(ValidateGlob("src/**").ok());
}

}  // namespace
}  // namespace av
