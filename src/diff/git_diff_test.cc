// RunGitDiff: the argv that switches the repository's programs off, and a real temporary
// repository whose textconv, external-diff, filter, fsmonitor and pager programs never run.
#include "diff/git_diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/process.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;
using testing::TempDir;

TEST(GitDiffTest, SafeArgvDisablesRepositoryPrograms) {
  std::vector<std::string> argv = SafeGitDiffArgv({"diff"}, {"lfs"});
  std::string joined;
  for (const std::string& a : argv) joined += a + " ";
  for (const char* want :
       {"core.hooksPath=/dev/null", "core.fsmonitor=false", "diff.external=", "core.pager=cat",
        "filter.lfs.clean=", "filter.lfs.smudge=", "filter.lfs.process=", "--no-pager diff"}) {
    EXPECT_NE(joined.find(want), std::string::npos) << want;
  }
  FakeProcessRunner fake([](const ProcessRequest& r) -> Result<ProcessResult> {
    std::string last = r.argv.back();
    if (std::find(r.argv.begin(), r.argv.end(), "--show-toplevel") != r.argv.end()) {
      return MakeExitedResult(0, "/repo\n", "");
    }
    if (std::find(r.argv.begin(), r.argv.end(), "--get-regexp") != r.argv.end())
      return MakeExitedResult(1, "", "");
    if (std::find(r.argv.begin(), r.argv.end(), "rev-parse") != r.argv.end()) {
      return MakeExitedResult(0, std::string(40, last[0] == 'H' ? 'b' : 'a') + "\n", "");
    }
    return MakeExitedResult(0, "", "");
  });
  auto out = RunGitDiff(fake, {"/repo/sub", "main", DiffMode::kCommit});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->base_commit, std::string(40, 'a'));
  EXPECT_EQ(out->head_commit, std::string(40, 'b'));
  const ProcessRequest& diff = fake.requests().back();
  for (const char* flag : {"--no-ext-diff", "--no-textconv", "--no-color", "--full-index", "-M"}) {
    EXPECT_NE(std::find(diff.argv.begin(), diff.argv.end(), flag), diff.argv.end()) << flag;
  }
  EXPECT_EQ(diff.argv.back(), "--");
  EXPECT_EQ(diff.extra_env.at("GIT_CONFIG_NOSYSTEM"), "1");
  EXPECT_EQ(diff.extra_env.at("GIT_TERMINAL_PROMPT"), "0");
  EXPECT_FALSE(RunGitDiff(fake, {"/repo", "--output=/tmp/x", DiffMode::kCommit}).ok());
}

// A repository whose config and .gitattributes name programs that would leave marker
// files. Returns the repo folder.
std::string MakeHostileRepo(const TempDir& dir) {
  std::string repo = dir.File("repo");
  std::string m = dir.path();
  std::string script =
      "set -e; mkdir -p '" + repo + "/src/flash_mla'; cd '" + repo +
      "'; git init -q .; "
      "git config user.name t; git config user.email t@example.com; "
      "printf 'int a = 1;\\n' > src/flash_mla/k.cu; git add -A; git commit -qm base; "
      "git config diff.evil.textconv \"touch '" +
      m +
      "/textconv.marker'; cat\"; "
      "git config diff.evil.command \"touch '" +
      m +
      "/extdiff.marker'; true\"; "
      "git config filter.evil.clean \"touch '" +
      m +
      "/clean.marker'; cat\"; "
      "git config filter.evil.smudge \"touch '" +
      m +
      "/smudge.marker'; cat\"; "
      "git config core.fsmonitor \"touch '" +
      m +
      "/fsmonitor.marker'; true\"; "
      "git config core.pager \"touch '" +
      m +
      "/pager.marker'; cat\"; "
      "git config diff.external \"touch '" +
      m +
      "/external.marker'; true\"; "
      "printf '*.cu diff=evil filter=evil\\n' > .gitattributes; "
      "printf 'int a = 2;\\n' > src/flash_mla/k.cu; "
      "GIT_CONFIG_NOSYSTEM=1 git -c filter.evil.clean= -c filter.evil.smudge= -c "
      "core.fsmonitor=false "
      "add -A; GIT_CONFIG_NOSYSTEM=1 git -c filter.evil.clean= -c core.fsmonitor=false commit -qm "
      "head; "
      "printf 'int a = 3;\\n' > src/flash_mla/k.cu; rm -f '" +
      m + "'/*.marker";
  auto r = RunShell(script);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return repo;
}

std::vector<std::string> Markers(const TempDir& dir) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().extension() == ".marker") found.push_back(e.path().filename().string());
  }
  return found;
}

TEST(GitDiffTest, RepositoryProgramsNeverRun) {
  TempDir dir;
  std::string repo = MakeHostileRepo(dir);
  PosixProcessRunner runner;
  for (DiffMode mode : {DiffMode::kCommit, DiffMode::kStaged, DiffMode::kWorktree}) {
    auto out = RunGitDiff(runner, {repo, "HEAD~1", mode});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_NE(out->text.find("+int a ="), std::string::npos) << out->text;
    EXPECT_TRUE(Markers(dir).empty()) << Markers(dir)[0];
  }
  // The test means something: plain git does run the repository's textconv driver.
  auto plain = RunShell("cd '" + repo +
                        "' && GIT_CONFIG_NOSYSTEM=1 git -c core.fsmonitor=false --no-pager "
                        "diff HEAD~1 HEAD >/dev/null");
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_FALSE(Markers(dir).empty());
}

TEST(GitDiffTest, NotARepositoryOrBadBaseIsAnError) {
  TempDir dir;
  PosixProcessRunner runner;
  auto out = RunGitDiff(runner, {dir.path(), "HEAD~1", DiffMode::kCommit});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("not a git repository"), std::string::npos)
      << out.status().message();
  std::string repo = MakeHostileRepo(dir);
  auto bad = RunGitDiff(runner, {repo, "no-such-branch", DiffMode::kCommit});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no-such-branch"), std::string::npos);
}

}  // namespace
}  // namespace av
