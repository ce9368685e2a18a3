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

// A kernel name "k\x1b[2J" from a timing CSV cleared the terminal of whoever ran
// `profile --show`, and a [report] title carried ESC into acceptance.md.
TEST(Utf8Test, ControlCharactersAreShownNotObeyed) {
  EXPECT_EQ(ShowControlCharacters("k\x1b[2J"), "k\\x1b[2J");
  EXPECT_EQ(ShowControlCharacters("a\rb\x07\x7f"), "a\\x0db\\x07\\x7f");
  EXPECT_EQ(ShowControlCharacters("csi \xc2\x9b" "2J"), "csi \\u009b2J");
  EXPECT_EQ(ShowControlCharacters("line\n\ttab é ✓"), "line\n\ttab é ✓");
  EXPECT_EQ(ShowControlCharacters(std::string("nul\0end", 7)), "nul\\x00end");
}

}  // namespace
}  // namespace av
