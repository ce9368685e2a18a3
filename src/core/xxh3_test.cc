#include "core/xxh3.h"

#include <gtest/gtest.h>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string Pattern() {
  std::string d;
  for (int r = 0; r < 5000; ++r) {
    for (int b = 0; b < 256; ++b) d.push_back(static_cast<char>(b));
  }
  return d + "xxxxxxx";  // 1,280,007 bytes: more than one read block
}

// Digests from an independent implementation: PyPI xxhash 4.1.0, xxh3_128_hexdigest.
TEST(Xxh3Test, KnownDigests) {
  EXPECT_EQ(Xxh3Hex(""), "99aa06d3014798d86001c324468d497f");
  EXPECT_EQ(Xxh3Hex("abc"), "06b05ab6733a618578af5f94892f3950");
  EXPECT_EQ(Xxh3Hex(Pattern()), "388c4ce6926bcd96e55142b80da86149");
}

TEST(Xxh3Test, StreamAndFileEqualOneShot) {
  const std::string d = Pattern();
  Xxh3Stream s;
  for (size_t at = 0, step = 1; at < d.size(); at += step, step = step * 3 + 1) {
    s.Update(d.data() + at, std::min(step, d.size() - at));
  }
  EXPECT_EQ(s.HexDigest(), Xxh3Hex(d));
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("a"), d).ok());
  Result<std::string> f = Xxh3File(dir.File("a"));
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f, Xxh3Hex(d));
  EXPECT_EQ(Xxh3File(dir.File("nope")).status().code(), StatusCode::kNotFound);
  // One changed byte changes the digest.
  std::string e = d;
  e[700000] ^= 1;
  EXPECT_NE(Xxh3Hex(e), Xxh3Hex(d));
}

}  // namespace
}  // namespace av
