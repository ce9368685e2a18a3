#include "shell/shell_parse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace av {
namespace {

// The words of every simple command, values joined by '|', commands in order.
std::vector<std::string> Commands(const std::string& text) {
  Result<ShellScript> s = ParseShell(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  std::vector<std::string> out;
  if (!s.ok()) return out;
  for (const SimpleCommand& c : s->commands) {
    std::string line;
    for (const ShellWord& a : c.assignments) line += "[" + a.value + "]";
    for (size_t i = 0; i < c.words.size(); ++i) line += (i ? "|" : "") + c.words[i].value;
    for (const ShellRedirection& r : c.redirections) line += " " + r.op + r.target.value;
    out.push_back(line);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(ShellParse, OperatorsSplitCommands) {
  EXPECT_EQ(Commands("a && b || c; d & e | f |& g\nh"),
            (V{"a", "b", "c", "d", "e", "f", "g", "h"}));
  EXPECT_EQ(Commands("( a ; b ) && { c; }"), (V{"a", "b", "c"}));
}

TEST(ShellParse, QuoteRemoval) {
  EXPECT_EQ(Commands(R"("git" 'pu'sh a\ b "x\"y" 'it''s')"), (V{"git|push|a b|x\"y|its"}));
  EXPECT_EQ(Commands(R"(echo $'\x72m\t\101' $"hi")"), (V{"echo|rm\tA|hi"}));
  EXPECT_EQ(Commands("r\\\nm -rf x"), (V{"rm|-rf|x"}));                 // line continuation
  EXPECT_EQ(Commands("echo a\\\n\\\n&\\\n& ls"), (V{"echo|a", "ls"}));  // inside an operator
}

TEST(ShellParse, SubstitutionsAreCommandsOfTheirOwn) {
  EXPECT_EQ(Commands("echo $(rm -rf /) \"`id`\" <(ls) >(cat)"),
            (V{"rm|-rf|/", "id", "ls", "cat", "echo|$(rm -rf /)|`id`|<(ls)|>(cat)"}));
  EXPECT_EQ(Commands("echo \"$(echo \")\")\""), (V{"echo|)", "echo|$(echo \")\")"}));
  EXPECT_EQ(Commands("echo ${x:-$(date)}"), (V{"date", "echo|${x:-$(date)}"}));
}

// What bash may turn a word into: the text every resulting word starts with, and whether
// word splitting can make several words of it (issue 34: `git diff $o` with
// o=--output=FILE, `{--output=FILE,--stat}`, `${o:---output=FILE}` all wrote FILE).
TEST(ShellParse, FixedPrefixAndSplitting) {
  struct Row {
    const char* word;
    const char* prefix;
    bool splits;
  };
  for (const Row& r : std::vector<Row>{{"--stat", "--stat", false},
                                       {"'--output=x'", "--output=x", false},
                                       {"$o", "", true},
                                       {"\"$o\"", "", false},
                                       {"\"$@\"", "", true},
                                       {"${o:---output=x}", "", true},
                                       {"{--output=x,--stat}", "", false},
                                       {"src/{a,b}.cu", "src/", false},
                                       {"src/*.cu", "src/", false},
                                       {"[-]x", "", false},
                                       {"~/x", "", false},
                                       {"--output=\"$F\"", "--output=", false},
                                       {"tests/$x", "", true},
                                       {"a`id`", "", true},
                                       {"\"a`id`\"", "a", false}}) {
    Result<ShellScript> s = ParseShell(std::string("git ") + r.word);
    ASSERT_TRUE(s.ok()) << r.word;
    const ShellWord& w = s->commands.back().words.at(1);
    EXPECT_EQ(w.FixedPrefix(), r.prefix) << r.word;
    EXPECT_EQ(w.splits, r.splits) << r.word;
  }
}

TEST(ShellParse, HeredocBodies) {
  EXPECT_EQ(Commands("cat <<EOF\n$(rm x) `id`\nEOF\nls"), (V{"rm|x", "id", "cat <<EOF", "ls"}));
  EXPECT_EQ(Commands("cat <<'EOF'\n$(rm x)\nEOF"), (V{"cat <<EOF"}));  // quoted: literal
  EXPECT_EQ(Commands("cat <<-EOF\n\t$(a)\n\tEOF\n"), (V{"a", "cat <<-EOF"}));
  EXPECT_FALSE(ParseShell("cat <<EOF\nno end").ok());
}

TEST(ShellParse, AssignmentsAndRedirections) {
  EXPECT_EQ(Commands("A=1 B+=2 git diff 2>&1 >out <in"), (V{"[A=1][B+=2]git|diff >&1 >out <in"}));
  Result<ShellScript> s = ParseShell("echo x 2>/tmp/f 1>&2 &>g");
  ASSERT_TRUE(s.ok());
  const auto& r = s->commands[0].redirections;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fd, 2);
  EXPECT_TRUE(r[0].writes);
  EXPECT_FALSE(r[1].writes);  // a descriptor copy
  EXPECT_TRUE(r[2].writes);
}

TEST(ShellParse, CompoundCommands) {
  EXPECT_EQ(Commands("if a; then b; elif c; then d; else e; fi"), (V{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Commands("while a; do b; done; until c; do d; done"), (V{"a", "b", "c", "d"}));
  EXPECT_EQ(Commands("for f in $(ls) x; do rm \"$f\"; done"), (V{"[f=]", "ls", "rm|$f"}));
  EXPECT_EQ(Commands("[[ -f a && $b < c ]] && d"), (V{"[[|-f|a|&&|$b|<|c|]]", "d"}));
}

TEST(ShellParse, CommentsRunToTheEndOfTheLine) {
  EXPECT_EQ(Commands("a # b; c\nd"), (V{"a", "d"}));
  EXPECT_EQ(Commands("echo a#b '#c'"), (V{"echo|a#b|#c"}));
}

TEST(ShellParse, WordFlags) {
  Result<ShellScript> s = ParseShell("$x *.o {a,b} ~/f '*' \"$y\" plain [ a[1]");
  ASSERT_TRUE(s.ok());
  const auto& w = s->commands[0].words;
  EXPECT_TRUE(w[0].expands);
  EXPECT_TRUE(w[1].globs);
  EXPECT_TRUE(w[2].braces);
  EXPECT_TRUE(w[3].tilde);
  EXPECT_TRUE(w[4].Literal());
  EXPECT_TRUE(w[5].expands);
  EXPECT_TRUE(w[6].Literal());
  EXPECT_TRUE(w[7].Literal());  // a lone '[' is the test command, not a pattern
  EXPECT_TRUE(w[8].globs);
}

TEST(ShellParse, UndecidedConstructsAreRecorded) {
  for (const char* text : {"f() { ls; }", "echo $((x+1))", "echo ${a@P}", "a[1]=2",
                           "[[ $x -eq 1 ]]", "echo ${a[$i]}", "((i++))"}) {
    Result<ShellScript> s = ParseShell(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().message();
    EXPECT_FALSE(s->undecided.empty()) << text;
  }
  Result<ShellScript> plain = ParseShell("echo $((1 + 2)) ${a[@]} ${#b}");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->undecided.empty());
}

TEST(ShellParse, RefusesWhatItDoesNotParse) {
  for (const char* text :
       {"echo 'x", "echo \"x", "echo $(ls", "echo `ls", "case x in a) ls;; esac",
        "select x in a; do ls; done", "coproc ls", "function f { ls; }", "echo )", "a &&", "| a",
        "a ; ; b", "echo ${x", "echo $((1+", "echo $[1+2]", "a >", "( a", "{ a; "}) {
    EXPECT_FALSE(ParseShell(text).ok()) << text;
  }
}

TEST(ShellParse, LimitsHold) {
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "$(";
  deep += "ls";
  for (int i = 0; i < 40; ++i) deep += ")";
  EXPECT_FALSE(ParseShell(deep).ok());
  std::string big(70 << 10, 'a');
  EXPECT_FALSE(ParseShell(big).ok());
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "a;";
  EXPECT_FALSE(ParseShell(many).ok());
}

// Found by feeding the fuzz target 30000 "{ " (60 KB, under the size limit): the groups
// recursed until the stack overflowed. Nesting that deep is now an error, so ask.
TEST(ShellParseRegression, DeeplyNestedGroupsAreAnErrorNotAStackOverflow) {
  for (const char* open : {"{ ", "( ", "if true; then ", "while true; do "}) {
    std::string deep;
    for (int i = 0; i < 30000 && deep.size() < (60 << 10); ++i) deep += open;
    Result<ShellScript> r = ParseShell(deep);
    ASSERT_FALSE(r.ok()) << open;
    EXPECT_NE(r.status().message().find("nest too deeply"), std::string::npos)
        << r.status().message();
  }
  std::string fine;
  for (int i = 0; i < 20; ++i) fine += "{ ( ";
  fine += "ls";
  for (int i = 0; i < 20; ++i) fine += "; ) }";
  Result<ShellScript> ok = ParseShell(fine);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->undecided.empty());
}

// The fuzz target's next find: ${x:-${x:-... recursed through the word scanner the same way.
TEST(ShellParseRegression, DeeplyNestedExpansionsAreAnErrorNotAStackOverflow) {
  for (const char* open : {"${x:-", "\"${x:-", "\"$(\"", "${x:-\"", "$(("}) {
    std::string deep = "echo ";
    while (deep.size() < (60 << 10)) deep += open;
    Result<ShellScript> r = ParseShell(deep);
    ASSERT_FALSE(r.ok()) << open;
  }
  Result<ShellScript> ok = ParseShell("echo \"${a:-\"${b:-\"$(ls \"$c\")\"}\"}\"");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
}

}  // namespace
}  // namespace av
