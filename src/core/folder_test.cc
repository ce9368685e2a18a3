// core/folder.h: a symbolic link planted in a folder attnverify manages is replaced or
// refused, never followed, and removing a tree never deletes what a link inside it
// points to.
#include "core/folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

struct Victim {
  explicit Victim(const testing::TempDir& dir) : path(dir.File("victim")) {
    fs::create_directories(path + "/sub");
    std::ofstream(path + "/thesis.tex") << "precious";
    std::ofstream(path + "/sub/data.csv") << "precious too";
  }
  bool Intact() const {
    return fs::exists(path + "/thesis.tex") && fs::exists(path + "/sub/data.csv") &&
           std::distance(fs::directory_iterator(path), fs::directory_iterator()) == 2;
  }
  std::string path;
};

TEST(FolderTest, ALinkedFolderIsReplacedAndItsTargetUntouched) {
  testing::TempDir dir;
  Victim victim(dir);
  fs::create_directories(dir.File("work"));
  fs::create_symlink(victim.path, dir.File("work/cases"));
  auto work = OpenFolderNoFollow(dir.File("work"), false);
  ASSERT_TRUE(work.ok()) << work.status().message();
  std::string replaced;
  auto cases =
      OpenFolderAt(work->get(), "cases", "work/cases", true, NotAFolder::kReplace, &replaced);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  EXPECT_EQ(replaced, "work/cases was a symbolic link (to " + victim.path +
                          "): replaced by a real folder (nothing it pointed to was touched)");
  EXPECT_FALSE(fs::is_symlink(dir.File("work/cases")));
  EXPECT_TRUE(fs::is_directory(dir.File("work/cases")));
  EXPECT_TRUE(victim.Intact());
}

TEST(FolderTest, ALinkIsRefusedWhenAskedAndAtTheTop) {
  testing::TempDir dir;
  Victim victim(dir);
  fs::create_symlink(victim.path, dir.File("work"));
  auto top = OpenFolderNoFollow(dir.File("work"), true);
  ASSERT_FALSE(top.ok());
  EXPECT_NE(top.status().message().find("is a symbolic link (to " + victim.path + ")"),
            std::string::npos)
      << top.status().message();
  auto root = OpenFolderNoFollow(dir.path(), false);
  ASSERT_TRUE(root.ok());
  auto refused = OpenFolderAt(root->get(), "work", "work", true, NotAFolder::kRefuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(fs::is_symlink(dir.File("work")));
  EXPECT_TRUE(victim.Intact());
}

TEST(FolderTest, RemovingATreeRemovesLinksNotTheirTargets) {
  testing::TempDir dir;
  Victim victim(dir);
  fs::create_directories(dir.File("case/out/deep/er"));
  fs::create_symlink(victim.path, dir.File("case/out/deep/er/link"));
  fs::create_symlink(victim.path + "/thesis.tex", dir.File("case/out/file_link"));
  std::ofstream(dir.File("case/out/o.npy")) << "x";
  auto root = OpenFolderNoFollow(dir.path(), false);
  ASSERT_TRUE(root.ok());
  ASSERT_TRUE(RemoveTreeAt(root->get(), "case", "case").ok());
  EXPECT_FALSE(fs::exists(dir.File("case")));
  EXPECT_TRUE(victim.Intact());
}

}  // namespace
}  // namespace av
