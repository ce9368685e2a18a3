#include "core/utf8.h"

#include <gtest/gtest.h>

namespace av {
namespace {

TEST(Utf8Test, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(ReplaceInvalidUtf8("ok \xc3\xa4 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "ok \xc3\xa4 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(ReplaceInvalidUtf8("error: \xff\xfe bad"), "error: \xef\xbf\xbd\xef\xbf\xbd bad");
  EXPECT_EQ(ReplaceInvalidUtf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong '/'
  EXPECT_EQ(ReplaceInvalidUtf8("\xed\xa0\x80"),                           // a surrogate
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(ReplaceInvalidUtf8("cut \xc3"), "cut \xef\xbf\xbd");
}

// Regression (M1): the 2000-byte stderr tail of a German error message began inside an
// "ä", and writing numerics.json aborted.
TEST(Utf8Test, TailStartsAtACharacterBoundary) {
  std::string text = "fehler: ";
  for (int i = 0; i < 3000; ++i) text += "\xc3\xa4";
  std::string_view tail = Utf8Tail(text, 2001);
  EXPECT_EQ(tail.size(), 2000u);
  EXPECT_EQ(ReplaceInvalidUtf8(tail), tail);
  EXPECT_EQ(Utf8Tail("short", 100), "short");
}

}  // namespace
}  // namespace av
