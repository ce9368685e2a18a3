// examples/sharding/numerics.sbatch (printed in doc/sharding.md) run by real bash, without
// Slurm: the SLURM_* variables an array task gets are set by hand, the real attnverify and
// cpu_candidate do the work on a six-case sweep. What a real Slurm 22.05 showed broken
// (issue 34 B): re-running one shard with `sbatch --array=2` ran `--shard 2/1`; a fresh
// clone had no evidence/ to copy the shard into, and the script then deleted the work; a
// cancelled task left its scratch copy behind; a shard of an earlier run was merged.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/file.h"
#include "core/shell_quote.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using testing::RunShell;
using testing::TempDir;

constexpr const char* kShapes = R"({"version": 1, "sweeps": [
  {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 130, "n": 129, "k": 9},
   {"m": 4, "n": 4, "k": 4}, {"m": 1, "n": 1, "k": 1}], "dtypes": ["f32"]}]})";

class ShardingScriptTest : public ::testing::Test {
 protected:
  // A fresh clone: the package's config only (git keeps no empty logs/ or evidence/).
  void SetUp() override {
    repo_ = dir_.File("repo");
    scratch_ = dir_.File("scratch");
    fs::create_directories(repo_ + "/attention-verify/config");
    fs::create_directories(scratch_);
    fs::create_directories(dir_.File("bin"));
    fs::create_symlink(ATTNVERIFY_BINARY, dir_.File("bin/attnverify"));
    ASSERT_TRUE(WriteFileAtomically(repo_ + "/attention-verify/config/shapes.json", kShapes).ok());
    ASSERT_TRUE(WriteFileAtomically(repo_ + "/attention-verify/config/tolerances.json",
                                    R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})")
                    .ok());
    WriteCandidate("[\"" + std::string(ATTNVERIFY_CPU_CANDIDATE) + "\", \"{cases}\"]");
  }
  void WriteCandidate(const std::string& argv) {
    ASSERT_TRUE(WriteFileAtomically(repo_ + "/attention-verify/attnverify.toml",
                                    "[numerics]\nshapes = \"config/shapes.json\"\n"
                                    "tolerances = \"config/tolerances.json\"\n"
                                    "[candidate]\ncommand = " + argv + "\ntimeout_s = 60\n")
                    .ok());
  }

  // The environment Slurm gives task `i` of array job `job` with `count` tasks.
  std::string TaskEnv(int i, int count, const std::string& job, const std::string& extra = "") {
    return "env PATH=" + ShellQuote(dir_.File("bin")) + ":\"$PATH\" SLURM_ARRAY_TASK_ID=" +
           std::to_string(i) + " SLURM_ARRAY_TASK_COUNT=" + std::to_string(count) +
           " SLURM_ARRAY_JOB_ID=" + job + " SLURM_SUBMIT_DIR=" + ShellQuote(repo_) +
           " SLURM_CPUS_PER_TASK=1 TMPDIR=" + ShellQuote(scratch_) + " " + extra;
  }
  testing::CommandResult Task(int i, int count, const std::string& job,
                              const std::string& extra = "") {
    return RunShell("cd " + ShellQuote(repo_) + " && " + TaskEnv(i, count, job, extra) +
                    " bash " + ShellQuote(Script()));
  }
  testing::CommandResult Merge(const std::string& n) {
    return RunShell("cd " + ShellQuote(repo_) + " && " + ShellQuote(ATTNVERIFY_BINARY) +
                    " merge attention-verify/evidence/numerics.json.shard*of" + n +
                    " --junit attention-verify/evidence/numerics.junit.xml");
  }

 public:
  static std::string Script() {
    return testing::SourceDir() + "/examples/sharding/numerics.sbatch";
  }

 protected:
  bool ScratchEmpty() const { return fs::is_empty(scratch_); }

  TempDir dir_;
  std::string repo_, scratch_;
};

TEST_F(ShardingScriptTest, ArrayTasksFromAFreshCloneMergeAndLeaveNoScratch) {
  for (int i : {0, 1}) {
    auto r = Task(i, 2, "41");
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  EXPECT_TRUE(ScratchEmpty());
  auto merged = Merge("2");
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_NE(merged.output.find("merged 2 shard(s): 6 cases, 6 passed"), std::string::npos)
      << merged.output;
  EXPECT_TRUE(fs::exists(repo_ + "/attention-verify/evidence/numerics.junit.xml"));
}

// `sbatch --array=1 --export=ALL,SHARDS=2,SWEEP_ID=41`: a one-task array of a new job.
TEST_F(ShardingScriptTest, OneShardRerunTheSlurmWayJoinsItsRun) {
  for (int i : {0, 1}) ASSERT_EQ(Task(i, 2, "41").exit_code, 0);
  auto again = Task(1, 1, "99", "SHARDS=2 SWEEP_ID=41");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  auto merged = Merge("2");
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
}

// The next run's task 1 was cancelled before it ran; run 41's shard 1 is still there.
TEST_F(ShardingScriptTest, StaleShardOfTheEarlierRunIsRefusedByTheMerge) {
  for (int i : {0, 1}) ASSERT_EQ(Task(i, 2, "41").exit_code, 0);
  ASSERT_EQ(Task(0, 2, "57").exit_code, 0);
  auto merged = Merge("2");
  EXPECT_EQ(merged.exit_code, 2) << merged.output;
  EXPECT_NE(merged.output.find("numerics.json.shard1of2 comes from another run"),
            std::string::npos)
      << merged.output;
}

// doc/sharding.md prints the script; the two must not drift apart.
TEST(ShardingScriptDoc, DocPrintsTheExampleScriptAsItIs) {
  Result<std::string> script = ReadFileToString(ShardingScriptTest::Script());
  Result<std::string> doc = ReadFileToString(testing::SourceDir() + "/doc/sharding.md");
  ASSERT_TRUE(script.ok() && doc.ok());
  EXPECT_NE(doc->find("```sh\n" + *script + "```"), std::string::npos);
}

// scancel: TERM to every process of the task. The script ends and its scratch copy goes.
TEST_F(ShardingScriptTest, CancelledTaskLeavesNoScratchCopy) {
  WriteCandidate(R"(["/bin/sh", "-c", "sleep 30", "{cases}"])");
  const std::string shell =
      "cd " + ShellQuote(repo_) + " && " + TaskEnv(0, 2, "63") + " setsid bash " +
      ShellQuote(Script()) + " >/dev/null 2>&1 & pid=$!; "
      "for t in $(seq 100); do [ -n \"$(ls " + ShellQuote(scratch_) +
      ")\" ] && break; sleep 0.05; done; sleep 0.5; "
      "kill -TERM -$(ps -o pgid= -p $pid | tr -d ' '); wait $pid; echo \"task exit $?\"";
  auto r = RunShell(shell);
  EXPECT_NE(r.output.find("task exit 143"), std::string::npos) << r.output;
  EXPECT_TRUE(ScratchEmpty());
}

}  // namespace
}  // namespace av
