// The base copy of `build --base` with real git: files as committed (no filter runs),
// the executable bit, symlinks only when they stay inside the copy, submodules from the
// head's own clone (or an empty folder and a warning), and nothing left behind.
#include "compile/git_worktree.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using av::testing::RunShell;
using av::testing::TempDir;

bool HaveGit() { return RunShell("git --version").exit_code == 0; }

std::string ReadOrEmpty(const std::string& path) {
  auto t = ReadFileToString(path);
  return t.ok() ? *t : "";
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += s + "\n";
  return out;
}

constexpr const char* kGit =
    "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "
    "-c core.hooksPath=/dev/null -c protocol.file.allow=always -c init.defaultBranch=main";

TEST(BuildGit, BaseCopyWritesTheCommittedTreeAndOnlyInsideSymlinks) {
  if (!HaveGit()) GTEST_SKIP() << "git is not installed";
  TempDir w;
  const std::string g = std::string(kGit) + " ";
  const std::string marker = w.File("MARKER");
  ASSERT_EQ(RunShell("cd '" + w.path() + "' && mkdir sub && cd sub && " + g + "init -q && " +
                     "echo one > s.txt && " + g + "add -A && " + g + "commit -qm one")
                .exit_code,
            0);
  std::string r = "cd '" + w.path() + "' && mkdir repo && cd repo && " + g + "init -q && ";
  auto made = RunShell(
      r + "mkdir -p dir && echo hello > dir/a.txt && printf '#!/bin/sh\\n' > run.sh && " +
      "chmod +x run.sh && ln -s dir/a.txt inside && ln -s ../../etc up && " +
      "ln -s /etc/passwd absolute && ln -s . self && ln -s self/.. escape && " +
      "echo 'dir/a.txt filter=evil' > .gitattributes && " + g + "submodule add -q ../sub sub && " +
      g + "add -A && " + g +
      "update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,gone && " +
      g + "commit -qm base && echo changed > dir/a.txt && " + g +
      "commit -qam head && git config filter.evil.smudge 'touch " + marker +
      "; cat' && git config filter.evil.required true && mkdir -p .git/hooks && printf "
      "'#!/bin/sh\\ntouch " +
      marker + "\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout");
  ASSERT_EQ(made.exit_code, 0) << made.output;

  PosixProcessRunner runner;
  std::string copy;
  {
    auto tree = GitWorktree::Create(runner, w.File("repo"), "HEAD~1");
    ASSERT_TRUE(tree.ok()) << tree.status().message();
    copy = (*tree)->path();
    EXPECT_EQ((*tree)->commit().size(), 40u);
    EXPECT_EQ(ReadOrEmpty(copy + "/dir/a.txt"), "hello\n");  // the base's, unfiltered
    struct stat st;
    ASSERT_EQ(::stat((copy + "/run.sh").c_str(), &st), 0);
    EXPECT_TRUE(st.st_mode & S_IXUSR);
    EXPECT_EQ(std::filesystem::read_symlink(copy + "/inside").string(), "dir/a.txt");
    EXPECT_EQ(ReadOrEmpty(copy + "/inside"), "hello\n");
    for (const char* out : {"up", "absolute", "escape"}) {
      EXPECT_FALSE(std::filesystem::is_symlink(copy + "/" + out)) << out << " was written";
    }
    EXPECT_EQ(ReadOrEmpty(copy + "/sub/s.txt"), "one\n");  // from the head's clone of sub
    EXPECT_TRUE(std::filesystem::is_directory(copy + "/gone"));
    std::string warnings = Joined((*tree)->warnings());
    EXPECT_NE(warnings.find("symlink up -> ../../etc points outside"), std::string::npos)
        << warnings;
    EXPECT_NE(warnings.find("symlink absolute -> /etc/passwd points outside"), std::string::npos);
    EXPECT_NE(warnings.find("symlink escape -> self/.. leads outside"), std::string::npos)
        << warnings;
    EXPECT_NE(warnings.find("submodule gone (commit 111111111111) is not checked out"),
              std::string::npos)
        << warnings;
    EXPECT_FALSE(std::filesystem::exists(w.File("repo/.git/worktrees")));  // git knows nothing
  }
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a hook or filter ran";
  EXPECT_FALSE(std::filesystem::exists(copy)) << "the copy was not removed";
}

TEST(BuildGit, BadRevisionsAreInputErrors) {
  if (!HaveGit()) GTEST_SKIP() << "git is not installed";
  TempDir w;
  ASSERT_EQ(RunShell("cd '" + w.path() + "' && " + kGit + " init -q && echo x > f && " + kGit +
                     " add -A && " + kGit + " commit -qm one")
                .exit_code,
            0);
  PosixProcessRunner runner;
  EXPECT_FALSE(GitWorktree::Create(runner, w.path(), "--output=/tmp/x").ok());
  auto bad = GitWorktree::Create(runner, w.path(), "no-such-branch");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("rev-parse"), std::string::npos);
}

}  // namespace
}  // namespace av
