// examples/sharding/numerics.sbatch under a real Slurm: a private single-node Slurm 22.05
// (Debian's slurm-wlm, started by examples/sharding/single-node-slurm.sh with its own
// state, ports and logs) runs the documented array job from a fresh clone, the merge job
// chained with afterany, one shard submitted again as part of the same run, and a
// cancelled task. The merged evidence equals the unsharded run's. Skips with the reason
// where Slurm cannot run (not root, slurm-wlm or munge not installed).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "core/file.h"
#include "core/shell_quote.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunShell;
using testing::TempDir;

// Eight cases in four shards: a couple of seconds of work in all.
constexpr const char* kShapes = R"({"version": 1, "sweeps": [
  {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 130, "n": 129, "k": 9},
   {"m": 4, "n": 4, "k": 4}, {"m": 1, "n": 1, "k": 1}, {"m": 17, "n": 8, "k": 33},
   {"m": 64, "n": 2, "k": 5}], "dtypes": ["f32"]}]})";

std::string Script(const std::string& name) {
  return testing::SourceDir() + "/examples/sharding/" + name;
}

class SlurmArrayE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "a private Slurm needs root (slurmd runs jobs as root)";
    testing::CommandResult start =
        RunShell("bash " + ShellQuote(Script("single-node-slurm.sh")) + " start " +
                 ShellQuote(dir_.File("slurm")));
    // 2: not installed or not root; 1: the daemons did not come up on this machine (their
    // logs are named). Either way there is no Slurm to run the script under.
    if (start.exit_code != 0) GTEST_SKIP() << "no Slurm here: " << start.output;
    started_ = true;
    env_ = "SLURM_CONF=" + ShellQuote(dir_.File("slurm/slurm.conf")) + " PATH=" +
           ShellQuote(dir_.File("bin")) + ":/usr/sbin:\"$PATH\" ";
    repo_ = dir_.File("repo");
    // A fresh clone: the package's config, no logs/ or evidence/ (git keeps no empty folder).
    fs::create_directories(repo_ + "/attention-verify/config");
    fs::create_directories(dir_.File("bin"));
    fs::create_directories(dir_.File("scratch"));
    fs::create_symlink(ATTNVERIFY_BINARY, dir_.File("bin/attnverify"));
    ASSERT_TRUE(WriteFileAtomically(repo_ + "/attention-verify/config/shapes.json", kShapes).ok());
    ASSERT_TRUE(WriteFileAtomically(repo_ + "/attention-verify/config/tolerances.json",
                                    R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})")
                    .ok());
    WriteCandidate("[\"" + std::string(ATTNVERIFY_CPU_CANDIDATE) + "\", \"{cases}\"]");
  }
  void TearDown() override {
    if (started_) {
      RunShell("bash " + ShellQuote(Script("single-node-slurm.sh")) + " stop " +
               ShellQuote(dir_.File("slurm")));
    }
  }
  void WriteCandidate(const std::string& argv) {
    ASSERT_TRUE(WriteFileAtomically(repo_ + "/attention-verify/attnverify.toml",
                                    "[numerics]\nshapes = \"config/shapes.json\"\n"
                                    "tolerances = \"config/tolerances.json\"\n"
                                    "[candidate]\ncommand = " + argv + "\ntimeout_s = 60\n")
                    .ok());
  }

  // `sbatch --parsable ARGS` from the repository root; the job id.
  std::string Submit(const std::string& args) {
    testing::CommandResult r = RunShell("cd " + ShellQuote(repo_) + " && " + env_ +
                                        "TMPDIR=" + ShellQuote(dir_.File("scratch")) +
                                        " sbatch --parsable " + args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::string id = r.output.substr(0, r.output.find_first_of(";\n"));
    return id;
  }
  // Waits until no job of `id` is queued or running (90 s at most).
  void Wait(const std::string& id) {
    for (int i = 0; i < 450; ++i) {
      testing::CommandResult q = RunShell(env_ + "squeue -h -j " + id + " 2>/dev/null");
      if (q.exit_code != 0 || q.output.find_first_not_of(" \n") == std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ADD_FAILURE() << "job " << id << " still queued after 90 s";
  }
  // The state Slurm's accounting-free controller keeps of a finished job's tasks.
  std::string States(const std::string& id) {
    return RunShell(env_ + "scontrol -o show job " + id +
                    " | grep -o 'JobState=[A-Z_]*' | sort | uniq -c")
        .output;
  }
  json ReadJson(const std::string& path) {
    Result<std::string> text = ReadFileToString(path);
    EXPECT_TRUE(text.ok()) << path;
    return text.ok() ? json::parse(*text, nullptr, false) : json::object();
  }
  std::set<std::string> CaseVerdicts(const json& doc) {
    std::set<std::string> out;
    for (const json& c : doc["cases"]) {
      out.insert(c["id"].get<std::string>() + "=" + c["verdict"].get<std::string>());
    }
    return out;
  }

  TempDir dir_;
  std::string env_, repo_;
  bool started_ = false;
};

TEST_F(SlurmArrayE2E, TheDocumentedArrayAndMergeGiveTheUnshardedEvidence) {
  // As doc/sharding.md says: logs/ first (Slurm opens --output before the script runs);
  // no GPU here, so --gres=none; one CPU per task on a two-CPU node.
  fs::create_directories(repo_ + "/attention-verify/logs");
  const std::string common = "--gres=none --cpus-per-task=1 ";
  const std::string job = Submit(common + "--array=0-3 " + ShellQuote(Script("numerics.sbatch")));
  ASSERT_FALSE(job.empty());
  const std::string merge = Submit(
      "--dependency=afterany:" + job + " --output=attention-verify/logs/merge-%j.log --wrap " +
      ShellQuote("attnverify merge attention-verify/evidence/numerics.json.shard*of4 --out "
                 "attention-verify/evidence/numerics.json --junit "
                 "attention-verify/evidence/numerics.junit.xml"));
  Wait(job);
  Wait(merge);
  EXPECT_NE(States(job).find("4 JobState=COMPLETED"), std::string::npos) << States(job);
  const std::string ev = repo_ + "/attention-verify/evidence/";
  json merged = ReadJson(ev + "numerics.json");
  ASSERT_TRUE(merged.is_object() && merged.contains("cases"))
      << *ReadFileToString(repo_ + "/attention-verify/logs/merge-" + merge + ".log");
  EXPECT_EQ(merged["verdict"], "pass");
  EXPECT_TRUE(fs::exists(ev + "numerics.junit.xml"));
  EXPECT_TRUE(fs::is_empty(dir_.File("scratch"))) << "a task left its scratch copy";

  // The same run unsharded (the salt the script derived from the job id): the same cases,
  // the same verdicts.
  const std::string salt = merged["config"]["salt"];
  testing::CommandResult whole = RunShell(
      "cd " + ShellQuote(repo_) + " && " + env_ +
      "attnverify numerics --config attention-verify/attnverify.toml --salt " + salt +
      " --evidence " + ShellQuote(dir_.File("whole.json")) + " --junit " +
      ShellQuote(dir_.File("whole.xml")));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_EQ(CaseVerdicts(merged), CaseVerdicts(ReadJson(dir_.File("whole.json"))));

  // One shard again, joining that run: N from SHARDS, the run from SWEEP_ID.
  fs::remove(ev + "numerics.json.shard2of4");
  const std::string again = Submit(common + "--array=2 --export=ALL,SHARDS=4,SWEEP_ID=" + job +
                                   " " + ShellQuote(Script("numerics.sbatch")));
  Wait(again);
  EXPECT_TRUE(fs::exists(ev + "numerics.json.shard2of4"));
  EXPECT_FALSE(fs::exists(ev + "numerics.json.shard2of1")) << "re-run as a one-task array";
  testing::CommandResult remerge =
      RunShell("cd " + ShellQuote(repo_) + " && " + env_ +
               "attnverify merge attention-verify/evidence/numerics.json.shard*of4 --out " +
               ShellQuote(dir_.File("remerged.json")));
  EXPECT_EQ(remerge.exit_code, 0) << remerge.output;
  EXPECT_EQ(CaseVerdicts(merged), CaseVerdicts(ReadJson(dir_.File("remerged.json"))));
}

TEST_F(SlurmArrayE2E, ACancelledTaskLeavesNoScratchAndNoShardToMerge) {
  fs::create_directories(repo_ + "/attention-verify/logs");
  // A candidate that takes its time, so scancel finds the tasks running.
  ASSERT_TRUE(WriteFileAtomically(dir_.File("slow.sh"), "#!/bin/sh\nsleep 60\n").ok());
  fs::permissions(dir_.File("slow.sh"), fs::perms::owner_all);
  WriteCandidate("[\"" + dir_.File("slow.sh") + "\", \"{cases}\"]");
  const std::string job = Submit("--gres=none --cpus-per-task=1 --array=0-1 " +
                                 ShellQuote(Script("numerics.sbatch")));
  // Wait until both tasks run and have made their scratch copies.
  for (int i = 0; i < 150; ++i) {
    if (RunShell(env_ + "squeue -h -t R -j " + job + " | wc -l").output == "2\n" &&
        std::distance(fs::directory_iterator(dir_.File("scratch")), fs::directory_iterator{}) == 2)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(RunShell(env_ + "scancel " + job).exit_code, 0);
  Wait(job);
  for (int i = 0; i < 50 && !fs::is_empty(dir_.File("scratch")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(fs::is_empty(dir_.File("scratch"))) << "a cancelled task left its scratch copy";
  testing::CommandResult m =
      RunShell("cd " + ShellQuote(repo_) + " && " + env_ +
               "attnverify merge attention-verify/evidence/numerics.json.shard*of2 --out " +
               ShellQuote(dir_.File("m.json")) + " 2>&1");
  EXPECT_NE(m.exit_code, 0) << m.output;
}

}  // namespace
}  // namespace av
