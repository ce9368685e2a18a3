// The [slice]/[components]/[review] tables, and slicing a real temporary git repository
// through them (golden diffs in testdata/review/slice_golden/; UPDATE_GOLDEN=1 rewrites
// them). Globs, writing a slice and git's diff: diff/glob_test.cc, diff/slice_test.cc,
// diff/git_diff_test.cc.
#include "diff/slice.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/process.h"
#include "core/sha256.h"
#include "diff/git_diff.h"
#include "review/review_config.h"
#include "review/rules.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;
using testing::TempDir;

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

// Writes `content` to repo/path (parents created).
void Put(const std::string& repo, const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(repo + "/" + path).parent_path());
  std::ofstream(repo + "/" + path, std::ios::binary) << content;
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
  SliceDiff(SliceSpecs(config->components), &slice);
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
