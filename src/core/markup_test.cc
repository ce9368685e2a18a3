#include "core/markup.h"

#include <gtest/gtest.h>

namespace av {
namespace {

TEST(MarkupTest, EscapesTheFiveCharactersAndReplacesForbiddenControls) {
  EXPECT_EQ(EscapeMarkup(R"(a<b & "c" 'd'>)"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(EscapeMarkup(std::string("tab\tnl\ncr\rbell\x07nul") + '\0' + "end"),
            "tab\tnl\ncr\rbell?nul?end");
  EXPECT_EQ(EscapeMarkup("plain µ text"), "plain µ text");
}

}  // namespace
}  // namespace av
