// manifest.json's listing of the package (reliability.md L1, L3): the temporaries of an
// atomic write are never listed and those of a dead process are removed; a symbolic link
// is never followed: a link to a file is recorded by its target, a link to a folder is
// refused (by report before it writes, and by verify-package).
#include "report/manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using testing::RunShell;
using testing::TempDir;

// A pid no process has: past the kernel's pid_max (4194304 at most on Linux).
constexpr const char* kDeadPid = "4194399";

TEST(ManifestTest, TemporariesAreNeverListedAndStaleOnesAreRemoved) {
  TempDir dir;
  fs::create_directories(dir.File("reports"));
  ASSERT_TRUE(WriteFileAtomically(dir.File("reports/acceptance.md"), "ok").ok());
  const std::string stale = std::string("reports/acceptance.html.tmp.") + kDeadPid + ".674336585";
  const std::string live =
      "manifest.json.tmp." + std::to_string(::getpid()) + ".12345";  // this process: alive
  ASSERT_TRUE(WriteFileAtomically(dir.File(stale), "partial").ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File(live), "partial").ok());
  // A name that only looks like one is a package file like any other.
  ASSERT_TRUE(WriteFileAtomically(dir.File("reports/notes.tmp.txt"), "mine").ok());

  Result<PackageListing> read_only = ListPackageFiles(dir.path(), {}, false);
  ASSERT_TRUE(read_only.ok()) << read_only.status().message();
  std::vector<std::string> paths;
  for (const ManifestEntry& e : read_only->files) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"reports/acceptance.md", "reports/notes.tmp.txt"}));
  EXPECT_TRUE(fs::exists(dir.File(stale)));  // verify-package only reads

  Result<PackageListing> cleaning = ListPackageFiles(dir.path(), {}, true);
  ASSERT_TRUE(cleaning.ok());
  EXPECT_EQ(cleaning->files.size(), 2u);
  EXPECT_EQ(cleaning->removed_temporaries, std::vector<std::string>{stale});
  EXPECT_EQ(cleaning->live_temporaries, std::vector<std::string>{live});
  EXPECT_FALSE(fs::exists(dir.File(stale)));
  EXPECT_TRUE(fs::exists(dir.File(live)));  // its writer may still rename it into place
}

TEST(ManifestTest, LinkToAFileIsRecordedByItsTargetAndALinkedFolderIsRefused) {
  TempDir dir, outside;
  fs::create_directories(dir.File("pkg/reports"));
  ASSERT_TRUE(WriteFileAtomically(outside.File("forged.md"), "ACCEPTED").ok());
  fs::create_symlink(outside.File("forged.md"), dir.File("pkg/reports/acceptance.md"));
  Result<PackageListing> l = ListPackageFiles(dir.File("pkg"), {}, false);
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->files.size(), 1u);
  EXPECT_EQ(l->files[0].link_target, outside.File("forged.md"));
  EXPECT_EQ(l->files[0].sha256, Sha256Hex("symlink -> " + outside.File("forged.md")));
  ASSERT_EQ(l->links.size(), 1u);

  fs::create_symlink(outside.path(), dir.File("pkg/evidence"));
  l = ListPackageFiles(dir.File("pkg"), {}, false);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("pkg/evidence: a symbolic link to a folder"),
            std::string::npos)
      << l.status().message();
  Status st = CheckNoLinkedFolders(dir.File("pkg"), {});
  EXPECT_FALSE(st.ok());
  // An excluded folder (the sweep's work/) may be a link: nothing of it is listed.
  EXPECT_TRUE(CheckNoLinkedFolders(dir.File("pkg"), {"evidence/"}).ok());
}

TEST(ManifestRegression, LinkedReportsFolderIsRefusedBeforeAnythingIsWritten) {
  // reliability.md L3: reports/ linked outside the package was written through, and the
  // manifest silently left it out, so verify-package passed after the report was forged.
  TempDir dir, outside;
  const std::string pkg = dir.File("attention-verify");
  fs::create_directories(pkg);
  ASSERT_TRUE(WriteFileAtomically(pkg + "/attnverify.toml", "[policy]\nrequired = [8]\n").ok());
  fs::create_symlink(outside.path(), pkg + "/reports");
  auto r =
      RunShell(std::string(ATTNVERIFY_BINARY) + " report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("reports: a symbolic link to a folder"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(outside.path()));  // nothing written through the link
  EXPECT_FALSE(fs::exists(pkg + "/manifest.json"));
}

TEST(ManifestRegression, KilledReportsTemporariesAreNotInTheNextManifest) {
  // reliability.md L1: a report killed mid-write left *.tmp.<pid>.<rand>, and the next
  // report hashed it into manifest.json.
  TempDir dir;
  const std::string pkg = dir.File("attention-verify");
  fs::create_directories(pkg + "/reports");
  ASSERT_TRUE(WriteFileAtomically(pkg + "/attnverify.toml", "[policy]\nrequired = [8]\n").ok());
  const std::string stale = "reports/acceptance.html.tmp." + std::string(kDeadPid) + ".1";
  ASSERT_TRUE(WriteFileAtomically(pkg + "/" + stale, "<html>partial").ok());
  auto r =
      RunShell(std::string(ATTNVERIFY_BINARY) + " report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // incomplete: no evidence
  EXPECT_NE(r.output.find("removed " + stale), std::string::npos) << r.output;
  Result<std::string> manifest = ReadFileToString(pkg + "/manifest.json");
  ASSERT_TRUE(manifest.ok());
  EXPECT_EQ(manifest->find(".tmp."), std::string::npos) << *manifest;
  EXPECT_FALSE(fs::exists(pkg + "/" + stale));
  EXPECT_EQ(RunShell(std::string(ATTNVERIFY_BINARY) + " verify-package --config " + pkg +
                     "/attnverify.toml")
                .exit_code,
            0);
}

}  // namespace
}  // namespace av
