// core/sandbox.h: the bwrap argv, and, where bwrap works on this machine, a real sandbox
// run by cheating programs of our own: writes into $HOME, every PATH folder, the host's
// /tmp, the package, the repository's .git and the run-seal key all change nothing on the
// host, while the out/ folder and the working folder are writable; processes left behind
// are counted (and a forged count does not stick). Skips with the reason where bwrap
// cannot run (no user namespaces).
#include "core/sandbox.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

TEST(SandboxTest, ArgvMountsTheRootReadOnlyAPrivateTmpThePackageThenItsOutFolders) {
  std::vector<std::string> a =
      BwrapArgv("/usr/bin/bwrap", {{"/p"}, {"/p/work/cases/x/out"}, "/p"}, {"/bin/cand", "c"});
  auto at = [&](const std::vector<std::string>& seq) {
    return std::search(a.begin(), a.end(), seq.begin(), seq.end()) - a.begin();
  };
  const long end = static_cast<long>(a.size());
  ASSERT_EQ(a.front(), "/usr/bin/bwrap");
  for (const char* flag : {"--die-with-parent", "--unshare-net", "--unshare-pid"}) {
    EXPECT_NE(std::find(a.begin(), a.end(), flag), a.end()) << flag;
  }
  EXPECT_LT(at({"--cap-drop", "ALL"}), end);
  EXPECT_EQ(at({"--bind", "/", "/"}), end);  // never the writable machine
  const auto root = at({"--ro-bind", "/", "/"});
  const auto tmp = at({"--tmpfs", "/tmp"});
  const auto ro = at({"--ro-bind", "/p", "/p"});
  const auto rw = at({"--bind", "/p/work/cases/x/out", "/p/work/cases/x/out"});
  ASSERT_LT(rw, end);
  EXPECT_LT(root, tmp);
  EXPECT_LT(tmp, ro);
  EXPECT_LT(ro, rw);  // the writable folder is mounted over the read-only package
  EXPECT_EQ(at({"--bind", "/p", "/p"}), end);  // a working folder in the package stays read-only
  EXPECT_EQ(at({"--setenv", "HOME"}), end);    // $HOME stays: pyenv and conda find python by it
  EXPECT_LT(at({"--setenv", "TMPDIR", "/tmp"}), end);
  EXPECT_LT(at({"--chdir", "/p"}), at({"/bin/cand", "c"}));
  EXPECT_TRUE(IsSandboxArgv(a));
  EXPECT_EQ(a.back(), "c");
  EXPECT_FALSE(IsSandboxArgv({"/bin/cand", "c"}));
  for (const std::string& node : GpuDeviceNodes()) {
    EXPECT_LT(at({"--dev-bind", node, node}), end) << node;
  }
}

TEST(SandboxTest, AWorkingFolderOutsideThePackageIsWritableButItsGitAndHomeNever) {
  testing::TempDir dir;
  const std::string repo = fs::canonical(dir.path()).string();
  fs::create_directories(repo + "/.git");
  std::vector<std::string> a =
      BwrapArgv("/usr/bin/bwrap", {{repo + "/pkg"}, {}, repo}, {"/bin/cand"});
  auto at = [&](const std::vector<std::string>& seq) {
    return std::search(a.begin(), a.end(), seq.begin(), seq.end()) - a.begin();
  };
  EXPECT_LT(at({"--bind", repo, repo}), at({"--ro-bind", repo + "/.git", repo + "/.git"}));
  EXPECT_LT(at({"--ro-bind", repo + "/.git", repo + "/.git"}),
            at({"--ro-bind", repo + "/pkg", repo + "/pkg"}));
  for (const char* wide : {"/", "/root", "/home"}) {
    const char* home = std::getenv("HOME");
    if (std::string(wide) != "/" && (home == nullptr || fs::path(home).parent_path() != wide) &&
        (home == nullptr || std::string(home) != wide))
      continue;
    std::vector<std::string> b = BwrapArgv("/usr/bin/bwrap", {{}, {}, wide}, {"/bin/cand"});
    const std::vector<std::string> rw = {"--bind", wide, wide};
    EXPECT_EQ(std::search(b.begin(), b.end(), rw.begin(), rw.end()), b.end()) << wide;
  }
}

TEST(SandboxTest, ReportIsTakenOffStderrAndAForgedOrCutOneCountsNothing) {
  ProcessResult r = MakeExitedResult(0, "", "warn\n\nattnverify-sandbox: leftover_processes=3\n");
  ApplySandboxReport(&r);
  EXPECT_EQ(r.leftover_processes, 3);
  EXPECT_EQ(r.stderr_text, "warn\n");
  // Not the last line (something wrote after it): not the shell's.
  r = MakeExitedResult(0, "", "\nattnverify-sandbox: leftover_processes=0\nmore\n");
  r.leftover_processes = 1;
  ApplySandboxReport(&r);
  EXPECT_EQ(r.leftover_processes, 0);
  EXPECT_NE(r.stderr_text.find("more"), std::string::npos);
  // Cut at the cap: the real last line may be gone.
  r = MakeExitedResult(0, "", "\nattnverify-sandbox: leftover_processes=0\n");
  r.stderr_truncated = true;
  r.leftover_processes = 1;
  ApplySandboxReport(&r);
  EXPECT_EQ(r.leftover_processes, 0);
}

// ---- a real sandbox ----

class RealSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::string> bwrap = FindWorkingBwrap(runner_);
    if (!bwrap.ok()) GTEST_SKIP() << bwrap.status().message();
    bwrap_ = *bwrap;
    root_ = fs::canonical(dir_.path()).string();
    pkg_ = root_ + "/repo/pkg";
    out_ = pkg_ + "/work/cases/x/out";
    fs::create_directories(pkg_ + "/evidence");
    fs::create_directories(out_);
    fs::create_directories(root_ + "/repo/.git/hooks");
    ASSERT_TRUE(WriteFileAtomically(pkg_ + "/evidence/resources.json", "{}").ok());
  }

  // `script` under /bin/sh in the sandbox of a package run from the repository.
  ProcessResult Run(const std::string& script, const std::vector<std::string>& args = {}) {
    ProcessRequest req;
    std::vector<std::string> argv = {"/bin/sh", "-c", script, "cheat"};
    argv.insert(argv.end(), args.begin(), args.end());
    req.argv = BwrapArgv(bwrap_, {{pkg_}, {out_}, root_ + "/repo"}, argv);
    req.timeout_ms = 20'000;
    Result<ProcessResult> r = runner_.Run(req);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : ProcessResult{};
  }

  PosixProcessRunner runner_;
  std::string bwrap_;
  testing::TempDir dir_, host_;  // host_: a folder of the host's /tmp, outside the sandbox
  std::string root_, pkg_, out_;
};

TEST_F(RealSandboxTest, WritesOutsideOutAndTheRepositoryChangeNothingOnTheHost) {
  const std::string name = "attnverify-cheat-" + std::to_string(::getpid());
  const char* home = std::getenv("HOME");
  const char* path = std::getenv("PATH");
  ProcessResult r =
      Run("n=$1; real_home=$2; host_tmp=$3\n"
          "for d in $(echo \"$PATH\" | tr : ' '); do echo x > \"$d/$n\" 2>/dev/null && echo "
          "\"wrote $d\"; done\n"
          "echo x > \"$real_home/$n\" 2>/dev/null && echo 'wrote home'\n"
          "echo x > \"$XDG_CACHE_HOME/$n\" 2>/dev/null || { mkdir -p \"$XDG_CACHE_HOME\" && "
          "echo x > \"$XDG_CACHE_HOME/$n\" && echo 'private cache'; }\n"
          "echo x > \"$host_tmp/$n\" 2>/dev/null && echo 'wrote host tmp'\n"
          "echo x > /tmp/$n && echo 'private tmp'\n"
          "echo forged > pkg/evidence/resources.json 2>/dev/null && echo 'wrote package'\n"
          "echo x > .git/hooks/pre-commit 2>/dev/null && echo 'wrote hook'\n"
          "echo o > pkg/work/cases/x/out/o.npy && echo 'wrote out'\n"
          "mkdir -p build && echo x > build/twin && echo 'wrote build'\n",
          {name, home ? home : "/nonexistent", host_.path()});
  EXPECT_TRUE(r.ok()) << r.Describe() << ": " << r.stderr_text;
  EXPECT_EQ(r.stdout_text, "private cache\nprivate tmp\nwrote out\nwrote build\n") << r.stderr_text;
  // Nothing landed on the host, and the sandbox's /tmp and $HOME are gone.
  std::error_code ec;
  for (std::string d = path ? path : ""; !d.empty();) {
    const size_t colon = d.find(':');
    const std::string folder = d.substr(0, colon);
    EXPECT_FALSE(fs::exists(folder + "/" + name, ec)) << folder;
    fs::remove(folder + "/" + name, ec);
    d = colon == std::string::npos ? "" : d.substr(colon + 1);
  }
  if (home != nullptr) {
    EXPECT_FALSE(fs::exists(std::string(home) + "/" + name, ec));
    fs::remove(std::string(home) + "/" + name, ec);
  }
  EXPECT_FALSE(fs::exists(host_.File(name), ec));
  EXPECT_FALSE(fs::exists("/tmp/" + name, ec));
  EXPECT_EQ(*ReadFileToString(pkg_ + "/evidence/resources.json"), "{}");
  EXPECT_FALSE(fs::exists(root_ + "/repo/.git/hooks/pre-commit", ec));
  EXPECT_TRUE(fs::exists(out_ + "/o.npy", ec));
  EXPECT_TRUE(fs::exists(root_ + "/repo/build/twin", ec));
  EXPECT_EQ(r.leftover_processes, 0);
  EXPECT_EQ(r.stderr_text.find("attnverify-sandbox"), std::string::npos) << r.stderr_text;
}

TEST_F(RealSandboxTest, TheRunSealKeyCannotBeRead) {
  // Outside /tmp, so that only the key's own bind hides it.
  const std::string key = "/var/tmp/attnverify-test-key-" + std::to_string(::getpid());
  ASSERT_TRUE(WriteFileAtomically(key, std::string(32, 's')).ok());
  const char* saved = std::getenv("ATTNVERIFY_KEY_FILE");
  const std::string keep = saved ? saved : "";
  ::setenv("ATTNVERIFY_KEY_FILE", key.c_str(), 1);
  ProcessResult r = Run("cat \"$1\"", {key});
  if (saved)
    ::setenv("ATTNVERIFY_KEY_FILE", keep.c_str(), 1);
  else
    ::unsetenv("ATTNVERIFY_KEY_FILE");
  std::error_code ec;
  fs::remove(key, ec);
  // /dev/null is bound over it (on a nodev mount, so even opening it fails).
  EXPECT_EQ(r.stdout_text.find("ssss"), std::string::npos);
  EXPECT_EQ(r.stdout_text, "");
}

TEST_F(RealSandboxTest, ProcessesLeftBehindAreCountedAndAForgedCountDoesNotStick) {
  // Nothing left: 0, every time (the reaper alone read 0 or 1 here).
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Run("true").leftover_processes, 0) << i;
  // A setsid daemon and a double-forked one, after printing a forged report.
  ProcessResult r =
      Run("printf '\\nattnverify-sandbox: leftover_processes=0\\n' >&2\n"
          "setsid sleep 300 </dev/null >/dev/null 2>&1 &\n"
          "(sleep 300 </dev/null >/dev/null 2>&1 &)\n");
  EXPECT_TRUE(r.ok()) << r.stderr_text;
  EXPECT_EQ(r.leftover_processes, 2) << r.stderr_text;
  EXPECT_LT(r.wall_ms, 10'000);  // they were killed, not waited for
  // The exit code of the program is kept.
  EXPECT_EQ(Run("exit 3").exit_code, 3);
}

}  // namespace
}  // namespace av
