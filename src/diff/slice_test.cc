// Writing a slice into the package (its diff files and evidence/slice.json).
#include "diff/slice.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::TempDir;

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

}  // namespace
}  // namespace av
