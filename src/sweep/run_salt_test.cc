#include "sweep/run_salt.h"

#include <gtest/gtest.h>

namespace av {
namespace {

TEST(RunSaltTest, HexRoundTripsAndBadTextIsRefusedNamingTheOption) {
  for (uint64_t salt : {uint64_t{0}, uint64_t{1}, uint64_t{0x5a17}, ~uint64_t{0}}) {
    Result<uint64_t> back = ParseSalt(SaltHex(salt));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, salt);
  }
  EXPECT_EQ(SaltHex(0x5a17), "0000000000005a17");
  EXPECT_EQ(*ParseSalt("0xC0FFEE"), 0xc0ffeeu);
  EXPECT_EQ(*ParseSalt("4711"), 0x4711u);  // a job id, read as hex
  for (const char* bad : {"", "0x", "xyz", "12345678901234567", "-1", "1 2"}) {
    Result<uint64_t> r = ParseSalt(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--salt must be 1 to 16 hexadecimal digits"),
              std::string::npos);
  }
}

TEST(RunSaltTest, FreshSaltsAreNonZeroAndDiffer) {
  const uint64_t a = FreshSalt(), b = FreshSalt();
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace av
