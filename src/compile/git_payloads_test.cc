// The marker-file test of git hardening (reliability.md row 2, H4, H5): repositories
// whose config, hooks, attributes, includes, submodule and partial-clone remote name a
// program for every class of thing git can be made to run (testdata/git_payloads/
// make_repos.sh). A control run of plain git shows each payload is live; then every
// attnverify mode that runs git (slice in its three modes, review, build --base, run)
// runs on them, and no marker may appear. Real git and the real binary; ~10 s.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace av {
namespace {

using av::testing::RunShell;
using av::testing::TempDir;

std::set<std::string> Markers(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& m : s) out += (out.empty() ? "" : ", ") + m;
  return out;
}

struct Payloads {
  TempDir dir;
  std::string w, markers;
  bool ok = false;
  Payloads() : w(dir.path()), markers(dir.File("markers")) {
    auto r = RunShell("sh '" + av::testing::SourceDir() +
                      "/testdata/git_payloads/make_repos.sh' '" + w + "'");
    ok = r.exit_code == 0;
    EXPECT_TRUE(ok) << r.output;
  }
  void Clear() { RunShell("rm -f '" + markers + "'/*"); }
};

// Plain git, in copies of the repositories: each command must leave its marker(s).
// Settings on a control's command line only switch off other payloads that would make
// git stop before it reaches the one under test.
struct Control {
  std::string command;
  std::vector<std::string> markers;
};

std::vector<Control> Controls() {
  const std::string quiet_proc = "-c filter.fproc.process= -c filter.fproc.required=false ";
  return {
      {"git " + quiet_proc + "status", {"fsmonitor"}},
      {"git -c core.hooksPath=.git/hooks update-ref refs/heads/x HEAD", {"hook"}},
      {"git update-ref refs/heads/y HEAD", {"hookspath"}},
      {"git diff HEAD~1 HEAD -- k.cu", {"diffext"}},
      {"git diff HEAD~1 HEAD -- dcmd.txt", {"dcmd"}},
      {"git diff --no-ext-diff HEAD~1 HEAD -- dtext.txt", {"dtext"}},
      {"git " + quiet_proc + "diff -- clean.txt", {"fclean"}},
      {"git " + quiet_proc + "diff -- inc.txt", {"finc"}},
      {"git diff -- proc.txt", {"fproc"}},
      {"git " + quiet_proc + "worktree add -q --detach ../ctl_wt HEAD~1 && cd ../ctl_wt && git " +
           quiet_proc + "status",
       {"fsmudge", "fwt", "fsmonitor_wt"}},
      {"git avpayload", {"alias"}},
      {"script -qc 'git log -1' /dev/null", {"pager", "gpg"}},
      {"script -qc 'git diff HEAD~1 HEAD' /dev/null", {"pagerdiff"}},
      {"git ls-remote ssh://example.invalid/x", {"ssh"}},
      {"env -u GIT_EDITOR -u VISUAL -u EDITOR git " + quiet_proc +
           "-c user.name=t -c user.email=t@example.invalid commit --allow-empty",
       {"editor"}},
      {"printf 'protocol=https\\nhost=example.invalid\\n\\n' | git credential fill",
       {"credential", "askpass"}},
      // Last: it moves HEAD.
      {"git " + quiet_proc + "-c protocol.file.allow=always checkout -qf HEAD~1", {"submodule"}},
  };
}

TEST(GitPayloads, ControlRunsShowEveryPayloadIsLive) {
  if (RunShell("git --version").exit_code != 0) GTEST_SKIP() << "git is not installed";
  if (RunShell("command -v script").exit_code != 0)
    GTEST_SKIP() << "script(1) (util-linux) is needed to give git a terminal for the pager";
  Payloads p;
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(RunShell("cp -a '" + p.w + "/repo' '" + p.w + "/ctl' && cp -a '" + p.w + "/partial' '" +
                     p.w + "/ctlp'")
                .exit_code,
            0);
  int classes = 0;
  for (const Control& c : Controls()) {
    p.Clear();
    RunShell("cd '" + p.w + "/ctl' && " + c.command + " >/dev/null 2>&1");
    std::set<std::string> seen = Markers(p.markers);
    for (const std::string& m : c.markers) {
      EXPECT_TRUE(seen.count(m)) << "payload " << m << " did not run under `" << c.command
                                 << "` (saw: " << Join(seen) << ")";
      ++classes;
    }
  }
  p.Clear();
  RunShell("cd '" + p.w + "/ctlp' && git diff HEAD~1 HEAD >/dev/null 2>&1");
  EXPECT_TRUE(Markers(p.markers).count("uploadpack")) << "the lazy fetch ran no upload-pack";
  ++classes;
  EXPECT_EQ(classes, 22);  // every class of doc/formats/attnverify-toml-build.md's list
}

TEST(GitPayloads, NoPayloadRunsInAnyMode) {
  if (RunShell("git --version").exit_code != 0) GTEST_SKIP() << "git is not installed";
  Payloads p;
  ASSERT_TRUE(p.ok);
  const std::string av = "'" + std::string(ATTNVERIFY_BINARY) + "' ";
  const std::string cfg = " --config attention-verify/attnverify.toml";
  const std::vector<std::pair<std::string, std::string>> modes = {
      {"slice HEAD~1", av + "slice" + cfg + " --base HEAD~1"},
      {"slice --staged", av + "slice" + cfg + " --base HEAD~1 --staged"},
      {"slice --worktree", av + "slice" + cfg + " --base HEAD~1 --worktree"},
      {"review", av + "review" + cfg},
      {"build --base", av + "build" + cfg + " --base HEAD~1"},
      {"run", av + "run" + cfg + " --base HEAD~1"},
  };
  for (const char* repo : {"repo", "partial"}) {
    for (const auto& [mode, command] : modes) {
      p.Clear();
      auto r = RunShell("cd '" + p.w + "/" + repo + "' && " + command);
      EXPECT_LT(r.exit_code, 4) << repo << ", " << mode << ": " << r.output;
      std::set<std::string> seen = Markers(p.markers);
      EXPECT_TRUE(seen.empty()) << repo << ", " << mode << ": ran " << Join(seen) << "\n"
                                << r.output;
    }
  }
  // The base of `build --base` really was written (the copy, not an empty folder).
  auto build = RunShell("cd '" + p.w + "/repo' && " + av + "build" + cfg + " --base HEAD~1");
  EXPECT_NE(build.output.find("vs base HEAD~1"), std::string::npos) << build.output;
  // In the partial clone the missing base objects are an error, never a download.
  auto lazy = RunShell("cd '" + p.w + "/partial' && " + av + "slice" + cfg + " --base HEAD~1");
  EXPECT_EQ(lazy.exit_code, 2) << lazy.output;
}

}  // namespace
}  // namespace av
