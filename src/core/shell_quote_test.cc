#include "core/shell_quote.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/test_util.h"

namespace av {
namespace {

TEST(ShellQuote, PlainWordsStayUnquoted) {
  EXPECT_EQ(ShellQuote("attention-verify/attnverify.toml"), "attention-verify/attnverify.toml");
  EXPECT_EQ(ShellQuote("--config=a.toml"), "--config=a.toml");
  EXPECT_EQ(ShellQuote("HEAD~1"), "HEAD~1");
  EXPECT_EQ(ShellQuote("~/x"), "'~/x'");  // ~ expands at the start of a word
}

TEST(ShellQuote, EverythingElseIsSingleQuoted) {
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("attention verify/attnverify.toml"), "'attention verify/attnverify.toml'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$HOME `x` \"q\" \\"), "'$HOME `x` \"q\" \\'");
  EXPECT_EQ(ShellQuote("d\xc3\xbcr"), "'d\xc3\xbcr'");
  EXPECT_EQ(ShellJoin({"attnverify", "build", "--config", "a b/x.toml"}),
            "attnverify build --config 'a b/x.toml'");
}

// What the quoting is for: a shell given the rendered line sees the original argv.
TEST(ShellQuote, AShellReadsBackTheSameArguments) {
  const std::vector<std::string> argv = {
      "printf", "%s|",   "attention verify 'q' \xc3\xbc", "", "a\"b", "$x", "*", "-n", "x\ny",
      "~",      "HEAD~1"};
  testing::CommandResult r = testing::RunShell("/bin/sh -c " + ShellQuote(ShellJoin(argv)));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string expected;
  for (size_t i = 2; i < argv.size(); ++i) expected += argv[i] + "|";
  EXPECT_EQ(r.output, expected);
}

}  // namespace
}  // namespace av
