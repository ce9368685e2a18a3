// core/package_lock.h: one holder per package, a clear message for the second, a lock
// that ends with its object, and a planted link at the lock's path refused.
#include "core/package_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

TEST(PackageLockTest, ASecondHolderIsRefusedWithTheFirstOnesPidAndCommand) {
  testing::TempDir dir;
  ::unsetenv(kPackageLockEnv);
  auto first = PackageLock::Acquire(dir.path(), "attnverify numerics --config x.toml");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->held());
  // This process's own pid is not an ancestor: the exported variable does not let the
  // second open through.
  auto second = PackageLock::Acquire(dir.path(), "attnverify report");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            dir.path() + ": another attnverify (pid " + std::to_string(::getpid()) +
                ": attnverify numerics --config x.toml) is using this package; run one "
                "command at a time per package (the lock is " +
                dir.path() + "/.attnverify.lock)");
  { PackageLock released = std::move(*first); }
  auto third = PackageLock::Acquire(dir.path(), "attnverify report");
  EXPECT_TRUE(third.ok()) << third.status().message();
  ::unsetenv(kPackageLockEnv);
}

TEST(PackageLockTest, AFolderThatDoesNotExistHasNothingToLock) {
  testing::TempDir dir;
  auto lock = PackageLock::Acquire(dir.File("not-yet"), "attnverify build");
  ASSERT_TRUE(lock.ok());
  EXPECT_FALSE(lock->held());
  EXPECT_FALSE(fs::exists(dir.File("not-yet")));
}

TEST(PackageLockTest, ALinkAtTheLockPathIsRefused) {
  testing::TempDir dir;
  fs::create_symlink("/etc/passwd", dir.File(kPackageLockFile));
  auto lock = PackageLock::Acquire(dir.path(), "attnverify run");
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.status().message().find("is a symbolic link"), std::string::npos);
}

}  // namespace
}  // namespace av
