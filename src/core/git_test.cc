// core/git: the safe argv and environment (H5: protocol.allow=never and no lazy fetch on
// every call), and the tree and blob reads with real git.
#include "core/git.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/test_util.h"

namespace av {
namespace {

using av::testing::RunShell;
using av::testing::TempDir;

bool Has(const std::vector<std::string>& argv, const std::string& setting) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-c" && argv[i + 1] == setting) return true;
  }
  return false;
}

TEST(SafeGit, EveryCallForbidsTransportsAndRepositoryPrograms) {
  std::vector<std::string> argv = SafeGitArgv({"cat-file", "--batch"}, {"lfs"}, {"color.ui=false"});
  for (const char* s :
       {"protocol.allow=never", "core.hooksPath=/dev/null", "core.fsmonitor=false",
        "diff.external=", "credential.helper=", "log.showSignature=false",
        "submodule.recurse=false", "core.pager=cat", "color.ui=false", "filter.lfs.smudge=",
        "filter.lfs.clean=", "filter.lfs.process=", "filter.lfs.required=false"}) {
    EXPECT_TRUE(Has(argv, s)) << s;
  }
  EXPECT_EQ(argv.front(), "git");
  EXPECT_EQ(argv[argv.size() - 3], "--no-pager");
  EXPECT_EQ(argv.back(), "--batch");
  const auto& env = SafeGitEnvironment();
  EXPECT_EQ(env.at("GIT_NO_LAZY_FETCH"), "1");
  EXPECT_EQ(env.at("GIT_CONFIG_NOSYSTEM"), "1");
  EXPECT_EQ(env.at("GIT_TERMINAL_PROMPT"), "0");

  FakeProcessRunner fake([](const ProcessRequest&) -> Result<ProcessResult> {
    return MakeExitedResult(0, "x\n", "");
  });
  ASSERT_TRUE(RunSafeGit(fake, "/repo", {"rev-parse", "HEAD"}).ok());
  const ProcessRequest& req = fake.requests().at(0);
  EXPECT_EQ(req.extra_env.at("GIT_NO_LAZY_FETCH"), "1");
  EXPECT_TRUE(Has(req.argv, "protocol.allow=never"));
  EXPECT_EQ(req.cwd, "/repo");
}

constexpr const char* kGit =
    "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "
    "-c core.hooksPath=/dev/null -c init.defaultBranch=main ";

// The reviewer reads whole files at a revision: as committed (no smudge filter runs),
// nullopt for a path the revision does not have.
TEST(SafeGit, ReadGitBlobGivesTheCommittedBytes) {
  if (RunShell("git --version").exit_code != 0) GTEST_SKIP() << "git is not installed";
  TempDir repo;
  const std::string g = kGit;
  auto made = RunShell("cd '" + repo.path() + "' && " + g + "init -q && mkdir -p src && " +
                       "printf 'v1\\n' > 'src/a b.cu' && printf 'bin\\0ary' > bin && " +
                       "echo '*.cu filter=evil' > .gitattributes && " + g + "add -A && " + g +
                       "commit -qm one && printf 'v2\\n' > 'src/a b.cu' && " + g +
                       "commit -qam two && git config filter.evil.smudge 'touch " +
                       repo.File("MARKER") + "; cat'");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  PosixProcessRunner runner;
  auto base = ReadGitBlob(runner, repo.path(), "HEAD~1", "src/a b.cu");
  ASSERT_TRUE(base.ok()) << base.status().message();
  ASSERT_TRUE(base->has_value());
  EXPECT_EQ(**base, "v1\n");
  auto head = ReadGitBlob(runner, repo.path(), "HEAD", "src/a b.cu");
  ASSERT_TRUE(head.ok() && head->has_value());
  EXPECT_EQ(**head, "v2\n");
  auto none = ReadGitBlob(runner, repo.path(), "HEAD", "src/missing.cu");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value());
  auto dir = ReadGitBlob(runner, repo.path(), "HEAD", "src");  // a tree, not a file
  ASSERT_TRUE(dir.ok());
  EXPECT_FALSE(dir->has_value());
  auto blobs = ReadGitBlobs(runner, repo.path(), {"HEAD:bin", "HEAD~1:src/a b.cu", "nope:x"});
  ASSERT_TRUE(blobs.ok()) << blobs.status().message();
  ASSERT_EQ(blobs->size(), 3u);
  EXPECT_EQ(*(*blobs)[0], std::string("bin\0ary", 7));
  EXPECT_EQ(*(*blobs)[1], "v1\n");
  EXPECT_FALSE((*blobs)[2].has_value());
  EXPECT_FALSE(ReadGitBlobs(runner, repo.path(), {"HEAD:a\nHEAD:b"}).ok());
  EXPECT_FALSE(ReadGitBlob(runner, repo.path(), "--output=/tmp/x", "a").ok());
  EXPECT_FALSE(std::filesystem::exists(repo.File("MARKER"))) << "a filter ran";

  auto tree = ListGitTree(runner, repo.path(), "HEAD");
  ASSERT_TRUE(tree.ok()) << tree.status().message();
  ASSERT_EQ(tree->size(), 3u);
  auto it = std::find_if(tree->begin(), tree->end(),
                         [](const GitTreeEntry& e) { return e.path == "src/a b.cu"; });
  ASSERT_NE(it, tree->end());
  EXPECT_EQ(it->mode, "100644");
  EXPECT_EQ(it->type, "blob");
  EXPECT_EQ(it->size, 3);
  EXPECT_EQ(it->object.size(), 40u);
}

}  // namespace
}  // namespace av
