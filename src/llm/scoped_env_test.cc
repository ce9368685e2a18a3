// The tests' ScopedEnv (src/testing/scoped_env.h) puts the environment back as it found it:
// a provider key or base URL the developer's shell set must survive a test that sets its own.
#include "testing/scoped_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace av {
namespace {

TEST(ScopedEnv, RestoresTheValueItReplacedAndRemovesWhatItAdded) {
  const char* name = "AV_SCOPED_ENV_TEST_VARIABLE";
  ::unsetenv(name);
  {
    testing::ScopedEnv added(name, "inner");
    ASSERT_NE(std::getenv(name), nullptr);
    EXPECT_EQ(std::string(std::getenv(name)), "inner");
  }
  EXPECT_EQ(std::getenv(name), nullptr) << "a variable the test added is gone after it";
  ::setenv(name, "outer", 1);
  {
    testing::ScopedEnv replaced(name, "inner");
    EXPECT_EQ(std::string(std::getenv(name)), "inner");
  }
  ASSERT_NE(std::getenv(name), nullptr) << "the shell's own value must come back";
  EXPECT_EQ(std::string(std::getenv(name)), "outer");
  ::unsetenv(name);
}

}  // namespace
}  // namespace av
