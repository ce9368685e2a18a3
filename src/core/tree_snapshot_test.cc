// core/tree_snapshot.h: every kind of change to a package's files shows, attnverify's
// own recorded writes do not, and skipped folders stay out.
#include "core/tree_snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

TEST(TreeSnapshotTest, CreatedChangedRemovedAndRelinkedFilesShow) {
  testing::TempDir dir;
  fs::create_directories(dir.File("evidence"));
  fs::create_directories(dir.File("work/cases/x"));
  fs::create_directories(dir.File("src/__pycache__"));
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/resources.json"), "{\"ok\": false}").ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"), "[numerics]\n").ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File("logs.txt"), "log").ok());
  auto snap = TreeSnapshot::Take(dir.path(), {"work"}, {"__pycache__"});
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  EXPECT_TRUE(snap->Compare().empty());

  // Same length, same second: the content decides.
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/resources.json"), "{\"ok\": true }").ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/forged.json"), "{}").ok());
  fs::remove(dir.File("logs.txt"));
  fs::remove(dir.File("attnverify.toml"));
  fs::create_symlink("/etc/passwd", dir.File("attnverify.toml"));
  // Not the package's evidence: the work folder and python's caches.
  ASSERT_TRUE(WriteFileAtomically(dir.File("work/cases/x/o.npy"), "x").ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File("src/__pycache__/m.pyc"), "x").ok());
  EXPECT_EQ(snap->Compare(),
            (std::vector<std::string>{"attnverify.toml replaced by a link",
                                      "evidence/forged.json created",
                                      "evidence/resources.json changed", "logs.txt removed"}));
}

TEST(TreeSnapshotTest, AttnverifysOwnRecordedWritesDoNotShow) {
  testing::TempDir dir;
  auto snap = TreeSnapshot::Take(dir.path(), {}, {});
  ASSERT_TRUE(snap.ok());
  fs::create_directories(dir.File("evidence/heatmaps"));
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/heatmaps/a.svg"), "<svg/>").ok());
  snap->Record(dir.File("evidence/heatmaps/a.svg"), "<svg/>");
  EXPECT_TRUE(snap->Compare().empty());
  // ... but a change after attnverify wrote it does.
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/heatmaps/a.svg"), "<svg>forged</svg>").ok());
  EXPECT_EQ(snap->Compare(), (std::vector<std::string>{"evidence/heatmaps/a.svg changed"}));
  fs::remove(dir.File("evidence/heatmaps/a.svg"));
  snap->Forget(dir.File("evidence/heatmaps/a.svg"));
  EXPECT_TRUE(snap->Compare().empty());
}

// `attnverify judge --evidence /tmp/...` (the pytest plugin) wrote its heatmaps outside
// the package; recording them made the comparison report "../.. removed" and fail every
// case of the sweep with "package files changed while the candidate ran".
TEST(TreeSnapshotRegression, WritesOutsideTheTreeAreNotPackageChanges) {
  testing::TempDir package, elsewhere;
  auto snap = TreeSnapshot::Take(package.path(), {}, {});
  ASSERT_TRUE(snap.ok());
  fs::create_directories(elsewhere.File("evidence/heatmaps"));
  ASSERT_TRUE(WriteFileAtomically(elsewhere.File("evidence/heatmaps/a.svg"), "<svg/>").ok());
  snap->Record(elsewhere.File("evidence/heatmaps/a.svg"), "<svg/>");
  snap->Forget(elsewhere.File("evidence/heatmaps/b.svg"));
  EXPECT_TRUE(snap->Compare().empty());
  // Inside the package a forged file still shows.
  ASSERT_TRUE(WriteFileAtomically(package.File("forged.json"), "{}").ok());
  EXPECT_EQ(snap->Compare(), (std::vector<std::string>{"forged.json created"}));
}

}  // namespace
}  // namespace av
