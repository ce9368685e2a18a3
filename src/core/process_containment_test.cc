// The runner's reaper (core/process_tree.h) with real processes: what a program leaves
// behind — `setsid` children, children that hold its pipes, a program that kills its own
// reaper — is killed before Run returns, at the timeout as well as at a normal exit; and
// the program gets only stdio and default signal dispositions. Each test that waits for a
// process to go polls for a few seconds, never forever.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/process.h"
#include "testing/test_util.h"

namespace av {
namespace {

// Whether `pid` is still a live process (a zombie counts as gone).
bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

// Polls for up to 5 s until `pid` is gone.
bool GoneSoon(pid_t pid) {
  for (int i = 0; i < 500 && Alive(pid); ++i) ::usleep(10'000);
  return !Alive(pid);
}

pid_t FirstLineAsPid(const std::string& text) {
  return static_cast<pid_t>(std::atol(text.c_str()));
}

TEST(ProcessContainment, SetsidChildIsKilledWhenTheProgramExits) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!"};
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->ok()) << r->Describe();
  const pid_t child = FirstLineAsPid(r->stdout_text);
  ASSERT_GT(child, 1) << r->stdout_text;
  EXPECT_GE(r->leftover_processes, 1);
  EXPECT_TRUE(GoneSoon(child)) << "the setsid child " << child << " outlived the run";
}

// Regression (M5): a child that keeps the pipes open used to hold the run until the
// timeout ("timed out") and then outlive attnverify.
TEST(ProcessContainment, AChildHoldingThePipesNeitherHoldsTheRunNorOutlivesIt) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c", "setsid sleep 300 & echo $!"};
  req.timeout_ms = 60'000;
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->ok()) << r->Describe();
  EXPECT_FALSE(r->timed_out);
  const pid_t child = FirstLineAsPid(r->stdout_text);
  ASSERT_GT(child, 1) << r->stdout_text;
  EXPECT_TRUE(GoneSoon(child));
}

TEST(ProcessContainment, TimeoutKillsTheWholeTreeSetsidChildrenIncluded) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c",
              "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 300"};
  req.timeout_ms = 500;
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->exited);
  EXPECT_NE(r->Describe().find("timed out"), std::string::npos);
  const pid_t child = FirstLineAsPid(r->stdout_text);
  ASSERT_GT(child, 1) << r->stdout_text;
  EXPECT_TRUE(GoneSoon(child));
}

// A hostile program can kill its reaper; it is then handed to attnverify (a child
// subreaper) and killed by the runner's sweep.
TEST(ProcessContainment, AProgramThatKillsItsReaperIsStillKilled) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c", "echo $$; kill -9 $PPID; exec sleep 300"};
  req.timeout_ms = 60'000;
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->term_signal, SIGKILL);
  const pid_t program = FirstLineAsPid(r->stdout_text);
  ASSERT_GT(program, 1) << r->stdout_text;
  EXPECT_TRUE(GoneSoon(program));
}

TEST(ProcessContainment, OnlyStdioAndDefaultSignalsReachTheProgram) {
  PosixProcessRunner runner;  // also ignores SIGXFSZ in this process (InitProcessGuards)
  int fd = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: a leak the program must not get
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::dup2(fd, 77), 77);
  ::close(fd);
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c",
              "test -e /proc/self/fd/77 && echo fd-open || echo fd-closed; "
              "grep SigIgn /proc/self/status"};
  auto r = runner.Run(req);
  ::close(77);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->stdout_text.find("fd-closed"), std::string::npos) << r->stdout_text;
  EXPECT_NE(r->stdout_text.find("SigIgn:\t0000000000000000"), std::string::npos) << r->stdout_text;
}

TEST(ProcessContainment, AMissingWorkingFolderIsACannotStart) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/true"};
  req.cwd = "/nonexistent/attnverify-folder";
  auto r = runner.Run(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot start"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("(the folder /nonexistent/attnverify-folder)"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace av
