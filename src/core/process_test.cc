#include "core/process.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "testing/test_util.h"

namespace av {
namespace {

TEST(ProcessRunner, CapturesStdoutStderrAndExitCode) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"};
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->exited);
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->stderr_text, "err\n");
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->Describe(), "exit 3");
}

TEST(ProcessRunner, ArgumentsAreNotInterpretedByAShell) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"echo", "$HOME; rm -rf /nonexistent", "`id`"};
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "$HOME; rm -rf /nonexistent `id`\n");
}

TEST(ProcessRunner, TimeoutKillsTheProcessGroup) {
  PosixProcessRunner runner;
  ProcessRequest req;
  // The grandchild sleep would keep the pipe open if only the shell were killed.
  req.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
  req.timeout_ms = 300;
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->exited);
  EXPECT_LT(r->wall_ms, 5000);
  EXPECT_NE(r->Describe().find("timed out"), std::string::npos);
}

TEST(ProcessRunner, OutputIsCappedAndMarkedTruncated) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"/bin/sh", "-c", "head -c 100000 /dev/zero"};
  req.max_output_bytes = 1000;
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text.size(), 1000u);
  EXPECT_TRUE(r->stdout_truncated);
  EXPECT_TRUE(r->ok());
}

TEST(ProcessRunner, EnvironmentIsScrubbedToTheAllowlist) {
  ::setenv("ATTNVERIFY_SECRET_TOKEN", "hunter2", 1);
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"env"};
  req.extra_env["ATTNVERIFY_ADDED"] = "yes";
  auto r = runner.Run(req);
  ::unsetenv("ATTNVERIFY_SECRET_TOKEN");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text.find("hunter2"), std::string::npos);
  EXPECT_NE(r->stdout_text.find("ATTNVERIFY_ADDED=yes\n"), std::string::npos);
  EXPECT_NE(r->stdout_text.find("PATH="), std::string::npos);
}

TEST(ProcessRunner, ScrubEnvironmentKeepsOnlyAllowedNamesSorted) {
  auto env = ScrubEnvironment({{"PATH", "/bin"}, {"AWS_SECRET_ACCESS_KEY", "x"}, {"HOME", "/h"}},
                              {{"GIT_CONFIG_NOSYSTEM", "1"}});
  EXPECT_EQ(env, (std::vector<std::string>{"GIT_CONFIG_NOSYSTEM=1", "HOME=/h", "PATH=/bin"}));
}

TEST(ProcessRunner, WorkingDirectoryIsApplied) {
  av::testing::TempDir dir;
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"pwd"};
  req.cwd = dir.path();
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, dir.path() + "\n");
}

// Regression: a candidate command "build/cpu_twin" with cwd = the repository failed as
// "not found" unless attnverify itself was started in that folder.
TEST(ProcessRunner, RelativeProgramPathIsRelativeToTheWorkingDirectory) {
  av::testing::TempDir dir;
  std::filesystem::create_directories(dir.File("bin"));
  ASSERT_EQ(av::testing::RunShell("printf '#!/bin/sh\\necho from-bin\\n' > " +
                                  dir.File("bin/tool") + " && chmod +x " + dir.File("bin/tool"))
                .exit_code,
            0);
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"bin/tool"};
  req.cwd = dir.path();
  auto r = runner.Run(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stdout_text, "from-bin\n");
  req.argv = {"bin/missing"};
  r = runner.Run(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("looked for " + dir.path() + "/bin/missing"),
            std::string::npos)
      << r.status().message();
}

TEST(ProcessRunner, MissingProgramIsNotFound) {
  PosixProcessRunner runner;
  ProcessRequest req;
  req.argv = {"attnverify-no-such-program-xyz"};
  auto r = runner.Run(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("not found in PATH"), std::string::npos);
}

TEST(ProcessRunner, FakeRecordsRequestsAndAnswers) {
  FakeProcessRunner fake([](const ProcessRequest& req) -> Result<ProcessResult> {
    return MakeExitedResult(0, "", "seen " + req.argv[0]);
  });
  ProcessRequest req;
  req.argv = {"nvcc", "--version"};
  auto r = fake.Run(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stderr_text, "seen nvcc");
  ASSERT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.requests()[0].argv[1], "--version");
}

}  // namespace
}  // namespace av
