// Globs, the [slice]/[components]/[review] tables, and slicing a real temporary git
// repository (golden diffs in testdata/review/slice_golden/; UPDATE_GOLDEN=1 rewrites
// them). Also: a repository's textconv, external-diff, filter, fsmonitor and pager
// programs never run.
#include "review/slice.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/process.h"
#include "core/sha256.h"
#include "review/git_diff.h"
#include "review/glob.h"
#include "review/review_config.h"
#include "review/rules.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;
using testing::TempDir;

TEST(GlobTest, Semantics) {
  EXPECT_TRUE(GlobMatch("src/flash_mla/**", "src/flash_mla/a.cu"));
  EXPECT_TRUE(GlobMatch("src/flash_mla/**", "src/flash_mla/x/y/z.h"));
  EXPECT_FALSE(GlobMatch("src/flash_mla/**", "src/flash_mla_v2/a.cu"));
  EXPECT_TRUE(GlobMatch("src/*.cu", "src/a.cu"));
  EXPECT_FALSE(GlobMatch("src/*.cu", "src/x/a.cu"));
  EXPECT_TRUE(GlobMatch("**/*.py", "a.py"));
  EXPECT_TRUE(GlobMatch("**/*.py", "x/y/a.py"));
  EXPECT_TRUE(GlobMatch("src/**/kernel.cu", "src/kernel.cu"));
  EXPECT_TRUE(GlobMatch("src/**/kernel.cu", "src/a/b/kernel.cu"));
  EXPECT_FALSE(GlobMatch("src/**/kernel.cu", "src/a/b/kernel.cuh"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_FALSE(GlobMatch("a?c", "a/c"));
  EXPECT_TRUE(GlobMatch("**", "anything/at/all"));
  EXPECT_FALSE(GlobMatch("", "x"));
  // No exponential blow-up on pathological patterns.
  EXPECT_FALSE(GlobMatch("**a**a**a**a**a**a**a**b", std::string(3000, 'a')));
  EXPECT_FALSE(ValidateGlob("/abs/**").ok());
  EXPECT_FALSE(ValidateGlob("src/../x").ok());
  EXPECT_TRUE(ValidateGlob("src/**").ok());
}

TEST(ReviewConfigTest, ReadsTablesInFileOrder) {
  const char* toml =
      "[slice]\nrepo = \"..\"\nbase = \"main\"\n"
      "[components]\nzeta = [\"src/z/**\"]\nalpha = [\"src/**\"]\n"
      "[review]\nreviewer = \"builtin\"\ndisable = [\"atomics.introduced\"]\n"
      "[build]\nblock_size = 1\n";
  auto c = ParseReviewPackageConfig(toml, "/pkg/sub/attnverify.toml", BuiltinRuleIds());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->package_dir, "/pkg/sub");
  EXPECT_EQ(c->repo_dir, "/pkg");
  EXPECT_EQ(c->base, "main");
  ASSERT_EQ(c->components.size(), 2u);
  EXPECT_EQ(c->components[0].name, "zeta");  // written first: first priority
  EXPECT_EQ(AssignComponent(c->components, "src/z/a.cu"), "zeta");
  EXPECT_EQ(AssignComponent(c->components, "src/a.cu"), "alpha");
  EXPECT_EQ(AssignComponent(c->components, "tools/a.cu"), "");
  EXPECT_EQ(c->disabled_rules, std::vector<std::string>{"atomics.introduced"});
}

TEST(ReviewConfigTest, ErrorsNameFileLineColumn) {
  auto err = [](const std::string& toml) {
    auto c = ParseReviewPackageConfig(toml, "p/attnverify.toml", BuiltinRuleIds());
    EXPECT_FALSE(c.ok());
    return c.ok() ? "" : c.status().message();
  };
  EXPECT_EQ(err("[slice]\nrepo = \"..\"\nbasis = \"x\"\n"),
            "p/attnverify.toml:3:1: unknown key \"basis\" in [slice] (allowed: base, repo)");
  EXPECT_EQ(err("[components]\nflashmla = \"src/**\"\n")
                .rfind("p/attnverify.toml:2:12: \"flashmla\" must be an array", 0),
            0u);
  EXPECT_NE(
      err("[components]\nunassigned = [\"x\"]\n").find("p/attnverify.toml:2:1: component name"),
      std::string::npos);
  EXPECT_NE(err("[components]\na = [\"../x/**\"]\n").find("\"..\" component"), std::string::npos);
  EXPECT_NE(err("[review]\ndisable = [\"no.such.rule\"]\n")
                .find("p/attnverify.toml:2:12: unknown rule \"no.such.rule\""),
            std::string::npos);
  EXPECT_NE(err("[review]\nreviewer = \"gpt\"\n").find("must be \"builtin\""), std::string::npos);
  EXPECT_NE(err("[slice]\nbase = \"--output=x\"\n").find("not an option"), std::string::npos);
  EXPECT_EQ(err("[components]\na = [\"src/**\", \"\"]\n"),
            "p/attnverify.toml:2:16: \"a\" must hold non-empty strings");
  EXPECT_EQ(err("[review]\ndisable = [1]\n"),
            "p/attnverify.toml:2:12: \"disable\" must hold only strings");
}

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

// Writes `content` to repo/path (parents created).
void Put(const std::string& repo, const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(repo + "/" + path).parent_path());
  std::ofstream(repo + "/" + path, std::ios::binary) << content;
}

// A reviewed repository can commit attention-verify/diff as a link to a folder outside the
// package: slice once wrote the component diffs through it, over a file of the same name.
TEST(SliceTest, SymlinkedDiffFolderIsRefusedAndNothingOutsideIsWritten) {
  TempDir dir;
  const std::string package = dir.File("pkg");
  const std::string outside = dir.File("outside");
  std::filesystem::create_directories(package);
  std::filesystem::create_directories(outside);
  Put(outside, "kernel.diff", "someone's notes\n");
  std::filesystem::create_directory_symlink("../outside", package + "/diff");
  SliceResult slice;
  slice.provenance = StartProvenance("slice", {"attnverify", "slice"});
  SliceComponent c;
  c.name = "kernel";
  c.path = "diff/kernel.diff";
  c.text = "diff --git a/k.cu b/k.cu\n";
  slice.components.push_back(c);
  auto written = WriteSlice(package, slice);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("symbolic link"), std::string::npos)
      << written.status().message();
  EXPECT_NE(written.status().message().find("/diff"), std::string::npos);
  EXPECT_EQ(*ReadFileToString(outside + "/kernel.diff"), "someone's notes\n");
  EXPECT_FALSE(std::filesystem::exists(outside + "/unassigned.diff"));
  EXPECT_FALSE(std::filesystem::exists(package + "/evidence/slice.json"));
}

TEST(SliceTest, GoldenSliceOfARealRepository) {
  TempDir dir;
  std::string repo = dir.File("repo");
  std::filesystem::create_directories(repo);
  auto sh = [&](const std::string& cmd) {
    auto r = RunShell("cd '" + repo + "' && " + cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
  };
  sh("git init -q . && git config user.name t && git config user.email t@example.com");
  Put(repo, "src/flash_mla/splitk.cu", "int kBlockN = 64;\nint a;\nint b;\nint c;\nint d;\n");
  Put(repo, "src/flash_mla/old_name.h", "// header\n#pragma once\nconstexpr int kStages = 2;\n");
  Put(repo, "src/deep_gemm/gemm.py", "block_n = 128\nnum_stages = 5");  // no final newline
  Put(repo, "src/deep_gemm/run.sh", "#!/bin/sh\necho hi\n");
  Put(repo, "tools/logo.bin", std::string("\x00\x01\x02\x03", 4));
  Put(repo, "README.md", "readme\n");
  sh("git add -A && git commit -qm base");
  Put(repo, "src/flash_mla/splitk.cu", "int kBlockN = 128;\nint a;\nint b;\nint c;\nint d;\n");
  sh("git mv src/flash_mla/old_name.h src/flash_mla/new_name.h");
  Put(repo, "src/deep_gemm/gemm.py", "block_n = 160\nnum_stages = 4");
  sh("chmod +x src/deep_gemm/run.sh");
  Put(repo, "tools/logo.bin", std::string("\x00\x01\x02\x04\x05", 5));
  Put(repo, "src/main_attention/new file.cu", "int x;\n");
  sh("git add -A && git commit -qm head");

  auto config = ParseReviewPackageConfig(
      "[slice]\nrepo = \"..\"\n[components]\nflashmla = [\"src/flash_mla/**\"]\ndeepgemm = "
      "[\"src/deep_gemm/**\"]\n"
      "main_attention = [\"src/main_attention/**\"]\n",
      repo + "/pkg/attnverify.toml", BuiltinRuleIds());
  ASSERT_TRUE(config.ok()) << config.status().message();
  PosixProcessRunner runner;
  auto git = RunGitDiff(runner, {config->repo_dir, "HEAD~1", DiffMode::kCommit});
  ASSERT_TRUE(git.ok()) << git.status().message();
  auto diff = ParseUnifiedDiff(git->text, "git diff");
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  SliceResult slice;
  slice.provenance = StartProvenance("slice", {"attnverify", "slice"});
  slice.mode = "commit";
  slice.base = "HEAD~1";
  slice.base_commit = git->base_commit;
  slice.head_commit = git->head_commit;
  slice.diff = std::move(diff).value();
  SliceDiff(config->components, &slice);
  auto written = WriteSlice(config->package_dir, slice);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ASSERT_EQ(written->size(), 5u);

  // The parts put back together are git's output byte for byte.
  std::string joined;
  for (const SliceComponent& c : slice.components) joined += c.text;
  EXPECT_EQ(joined.size(), git->text.size());

  const std::string golden_dir = testing::SourceDir() + "/testdata/review/slice_golden";
  const bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  for (const char* name : {"flashmla", "deepgemm", "main_attention", "unassigned"}) {
    auto got = ReadFileToString(config->package_dir + "/diff/" + name + ".diff");
    ASSERT_TRUE(got.ok());
    std::string golden = golden_dir + "/" + name + ".diff";
    if (update) {
      std::filesystem::create_directories(golden_dir);
      ASSERT_TRUE(WriteFileAtomically(golden, *got).ok());
    }
    auto want = ReadFileToString(golden);
    ASSERT_TRUE(want.ok()) << golden << " (run with UPDATE_GOLDEN=1 to create it)";
    EXPECT_EQ(*got, *want) << name;
  }

  auto json =
      nlohmann::json::parse(*ReadFileToString(config->package_dir + "/evidence/slice.json"));
  EXPECT_EQ(json["schema"], "attnverify.slice/2");
  EXPECT_EQ(json["provenance"]["stage"], "slice");
  EXPECT_EQ(json["base_commit"], git->base_commit);
  EXPECT_EQ(json["head_commit"], git->head_commit);
  ASSERT_EQ(json["components"].size(), 4u);
  const auto& fm = json["components"][0];
  EXPECT_EQ(fm["name"], "flashmla");
  EXPECT_EQ(fm["sha256"], *Sha256File(config->package_dir + "/diff/flashmla.diff"));
  ASSERT_EQ(fm["files"].size(), 2u);
  EXPECT_EQ(fm["files"][0]["status"], "renamed");
  EXPECT_EQ(fm["files"][0]["old_path"], "src/flash_mla/old_name.h");
  EXPECT_EQ(fm["files"][0]["similarity"], 100);
  EXPECT_EQ(fm["files"][1]["path"], "src/flash_mla/splitk.cu");
  const auto& dg = json["components"][1];
  EXPECT_EQ(dg["files"][1]["status"], "mode_changed");
  EXPECT_EQ(dg["files"][1]["new_mode"], "100755");
  EXPECT_EQ(json["components"][2]["files"][0]["path"], "src/main_attention/new file.cu");
  EXPECT_EQ(json["components"][2]["files"][0]["status"], "added");
  const auto& un = json["components"][3];
  EXPECT_EQ(un["name"], "unassigned");
  ASSERT_EQ(un["files"].size(), 1u);
  EXPECT_EQ(un["files"][0]["path"], "tools/logo.bin");
  EXPECT_EQ(un["files"][0]["binary"], true);
  // The no-newline marker survives slicing.
  EXPECT_NE(ReadFileToString(config->package_dir + "/diff/deepgemm.diff")
                ->find("\\ No newline at end of file"),
            std::string::npos);

  auto record = LoadSliceRecord(config->package_dir + "/evidence/slice.json");
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->components.size(), 4u);
  EXPECT_EQ(record->components[1].path, "diff/deepgemm.diff");
}

}  // namespace
}  // namespace av
