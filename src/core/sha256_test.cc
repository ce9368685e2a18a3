#include "core/sha256.h"

#include <gtest/gtest.h>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

// FIPS 180-2 test vectors.
TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, FileMatchesBytesAndMissingFileIsNotFound) {
  testing::TempDir dir;
  std::string big(3 << 20, 'x');  // spans several read blocks
  ASSERT_TRUE(WriteFileAtomically(dir.File("a"), big).ok());
  Result<std::string> h = Sha256File(dir.File("a"));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(*h, Sha256Hex(big));
  EXPECT_EQ(Sha256File(dir.File("nope")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace av
