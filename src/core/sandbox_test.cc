// core/sandbox.h: the bwrap argv, and, where bwrap works on this machine, a real sandbox:
// the package read-only but its out/ folder, no network, and every process the program
// started gone with it. Skips with the reason where bwrap cannot run (no user namespaces).
#include "core/sandbox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

TEST(SandboxTest, ArgvMountsThePackageReadOnlyThenItsOutFolders) {
  std::vector<std::string> a =
      BwrapArgv("/usr/bin/bwrap", {{"/p"}, {"/p/work/cases/x/out"}, "/repo"}, {"/bin/cand", "c"});
  auto at = [&](const std::vector<std::string>& seq) {
    return std::search(a.begin(), a.end(), seq.begin(), seq.end()) - a.begin();
  };
  ASSERT_EQ(a.front(), "/usr/bin/bwrap");
  for (const char* flag : {"--die-with-parent", "--unshare-net", "--unshare-pid"}) {
    EXPECT_NE(std::find(a.begin(), a.end(), flag), a.end()) << flag;
  }
  const auto ro = at({"--ro-bind", "/p", "/p"});
  const auto rw = at({"--bind", "/p/work/cases/x/out", "/p/work/cases/x/out"});
  ASSERT_LT(ro, static_cast<long>(a.size()));
  ASSERT_LT(rw, static_cast<long>(a.size()));
  EXPECT_LT(at({"--bind", "/", "/"}), ro);
  EXPECT_LT(ro, rw);  // the writable folder is mounted over the read-only package
  EXPECT_LT(at({"--chdir", "/repo"}), at({"--", "/bin/cand", "c"}));
  EXPECT_EQ(a.back(), "c");
  for (const std::string& node : GpuDeviceNodes()) {
    EXPECT_LT(at({"--dev-bind", node, node}), static_cast<long>(a.size())) << node;
  }
}

TEST(SandboxTest, APackageIsReadOnlyButItsOutFolderAndThereIsNoNetwork) {
  PosixProcessRunner runner;
  Result<std::string> bwrap = FindWorkingBwrap(runner);
  if (!bwrap.ok()) GTEST_SKIP() << bwrap.status().message();
  testing::TempDir dir;
  const std::string pkg = fs::canonical(dir.path()).string();
  fs::create_directories(pkg + "/evidence");
  fs::create_directories(pkg + "/work/cases/x/out");
  ASSERT_TRUE(WriteFileAtomically(pkg + "/evidence/resources.json", "{}").ok());
  ProcessRequest req;
  req.argv = BwrapArgv(*bwrap, {{pkg}, {pkg + "/work/cases/x/out"}, pkg},
                       {"/bin/sh", "-c",
                        "echo forged > evidence/resources.json || echo ro; "
                        "echo o > work/cases/x/out/o.npy && echo rw; "
                        "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; "
                        "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > /dev/null"});
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->ok()) << r->Describe() << ": " << r->stderr_text;
  EXPECT_EQ(r->stdout_text, "ro\nrw\nlo\n") << r->stderr_text;
  EXPECT_EQ(*ReadFileToString(pkg + "/evidence/resources.json"), "{}");
  EXPECT_TRUE(fs::exists(pkg + "/work/cases/x/out/o.npy"));
}

}  // namespace
}  // namespace av
