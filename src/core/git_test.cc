// core/git: the safe argv and environment (H5: protocol.allow=never and no lazy fetch on
// every call), and the tree and blob reads of the base copy with real git.
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

// The base copy reads blobs by id: as committed (no smudge filter runs), split by the
// sizes ls-tree gave, and a non-blob or unknown id is an error.
TEST(SafeGit, ReadGitBlobsByIdGivesTheCommittedBytes) {
  if (RunShell("git --version").exit_code != 0) GTEST_SKIP() << "git is not installed";
  TempDir repo;
  const std::string g = kGit;
  auto made = RunShell(
      "cd '" + repo.path() + "' && " + g + "init -q && mkdir -p src && " +
      "printf 'v1\\n' > 'src/a b.cu' && printf 'bin\\0ary' > bin && : > empty && " +
      "echo '*.cu filter=evil' > .gitattributes && " + g + "add -A && " + g +
      "commit -qm one && git config filter.evil.smudge 'touch " + repo.File("MARKER") + "; cat'");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  PosixProcessRunner runner;
  auto tree = ListGitTree(runner, repo.path(), "HEAD");
  ASSERT_TRUE(tree.ok()) << tree.status().message();
  ASSERT_EQ(tree->size(), 4u);
  std::vector<std::string> ids;
  std::vector<int64_t> sizes;
  for (const GitTreeEntry& e : *tree) {
    EXPECT_EQ(e.mode, "100644") << e.path;
    EXPECT_EQ(e.type, "blob");
    EXPECT_EQ(e.object.size(), 40u);
    ids.push_back(e.object);
    sizes.push_back(e.size);
  }
  auto blobs = ReadGitBlobsById(runner, repo.path(), ids, sizes);
  ASSERT_TRUE(blobs.ok()) << blobs.status().message();
  ASSERT_EQ(blobs->size(), 4u);
  for (size_t i = 0; i < tree->size(); ++i) {
    const std::string& path = (*tree)[i].path;
    if (path == "src/a b.cu") EXPECT_EQ((*blobs)[i], "v1\n");
    if (path == "bin") EXPECT_EQ((*blobs)[i], std::string("bin\0ary", 7));
    if (path == "empty") EXPECT_EQ((*blobs)[i], "");
  }
  auto commit = RunShell("cd '" + repo.path() + "' && git rev-parse HEAD").output;
  commit.pop_back();
  EXPECT_FALSE(ReadGitBlobsById(runner, repo.path(), {commit}, {10}).ok());  // not a blob
  EXPECT_FALSE(ReadGitBlobsById(runner, repo.path(), {std::string(40, '1')}, {1}).ok());
  EXPECT_FALSE(ReadGitBlobsById(runner, repo.path(), {"--output=/tmp/x"}, {1}).ok());
  EXPECT_FALSE(ReadGitBlobsById(runner, repo.path(), {ids[0]}, {sizes[0] + 1}).ok());
  EXPECT_FALSE(std::filesystem::exists(repo.File("MARKER"))) << "a filter ran";
}

}  // namespace
}  // namespace av
