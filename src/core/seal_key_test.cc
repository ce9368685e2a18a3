// core/seal_key.h: HMAC-SHA256 against RFC 4231, and the key file: made once 0600 in a
// 0700 folder, read back the same, refused when it is a link or not a key.
#include "core/seal_key.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

TEST(SealKeyTest, HmacMatchesRfc4231) {
  // RFC 4231 test case 2.
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_TRUE(DigestsEqual("ab", "ab"));
  EXPECT_FALSE(DigestsEqual("ab", "ac"));
  EXPECT_FALSE(DigestsEqual("ab", "abc"));
}

TEST(SealKeyTest, KeyIsMadeOncePrivateAndReadBackTheSame) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/state/attnverify/run-seal.key";
  EXPECT_EQ(ReadSealKey(path).status().code(), StatusCode::kNotFound);
  Result<SealKey> made = ReadOrCreateSealKey(path);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(made->bytes.size(), 32u);
  EXPECT_EQ(made->id.size(), 16u);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir.path() + "/state/attnverify").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  Result<SealKey> again = ReadOrCreateSealKey(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->bytes, made->bytes);
  EXPECT_EQ(again->id, made->id);
  // Another key has another id.
  Result<SealKey> other = ReadOrCreateSealKey(dir.path() + "/other.key");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->id, made->id);
}

TEST(SealKeyTest, LinkedOrShortKeyFileIsRefusedNamingIt) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("real.key"), std::string(32, 'k')).ok());
  ASSERT_EQ(::symlink(dir.File("real.key").c_str(), dir.File("link.key").c_str()), 0);
  Result<SealKey> linked = ReadSealKey(dir.File("link.key"));
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("symbolic link"), std::string::npos)
      << linked.status().message();
  ASSERT_TRUE(WriteFileAtomically(dir.File("short.key"), "abc").ok());
  Result<SealKey> short_key = ReadOrCreateSealKey(dir.File("short.key"));
  ASSERT_FALSE(short_key.ok());
  EXPECT_NE(short_key.status().message().find(dir.File("short.key")), std::string::npos);
  EXPECT_TRUE(ReadSealKey(dir.File("real.key")).ok());
}

TEST(SealKeyTest, PathComesFromTheOverrideThenXdgStateThenHome) {
  const char* saved[3] = {std::getenv(kSealKeyEnv), std::getenv("XDG_STATE_HOME"),
                          std::getenv("HOME")};
  std::string keep[3];
  for (int i = 0; i < 3; ++i) keep[i] = saved[i] ? saved[i] : "";
  ::setenv("HOME", "/home/u", 1);
  ::unsetenv("XDG_STATE_HOME");
  ::unsetenv(kSealKeyEnv);
  EXPECT_EQ(SealKeyPath(), "/home/u/.local/state/attnverify/run-seal.key");
  ::setenv("XDG_STATE_HOME", "/s", 1);
  EXPECT_EQ(SealKeyPath(), "/s/attnverify/run-seal.key");
  ::setenv(kSealKeyEnv, "/ci/key", 1);
  EXPECT_EQ(SealKeyPath(), "/ci/key");
  // Regression: with HOME unset (a test fixture unset it) the ledger went unsealed.
  ::unsetenv(kSealKeyEnv);
  ::unsetenv("XDG_STATE_HOME");
  ::unsetenv("HOME");
  const std::string no_home = SealKeyPath();
  EXPECT_FALSE(no_home.empty());
  EXPECT_NE(no_home.find("/.local/state/attnverify/run-seal.key"), std::string::npos) << no_home;
  const char* names[3] = {kSealKeyEnv, "XDG_STATE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i) {
    if (saved[i])
      ::setenv(names[i], keep[i].c_str(), 1);
    else
      ::unsetenv(names[i]);
  }
}

}  // namespace
}  // namespace av
