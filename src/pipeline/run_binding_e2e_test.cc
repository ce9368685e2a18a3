// Evidence bound to its run, end to end with real processes (reliability.md H1, H2): a
// stage killed mid-run, a candidate that rewrites the build stage's evidence, and an
// empty attnverify.toml that skips every stage must never let the previous run's evidence
// PASS (or FAIL) an item. The build stage runs a stand-in for nvcc (a shell script that
// prints a canned ptxas log, so no CUDA is needed); the candidate is the C++ example
// candidate behind a shell wrapper. Stages are killed with SIGKILL by process id, as an
// OOM kill would.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "core/file.h"
#include "core/sha256.h"
#include "schema/run_json.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

constexpr const char* kOkLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z6decodePf' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z6decodePf\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 16384 bytes smem\n";
constexpr const char* kOverflowLog =
    "ptxas error   : Entry function '_Z6decodePf' uses too much shared data (0x56200 bytes, "
    "0x38c00 max)\n"
    "ptxas info    : Compiling entry function '_Z6decodePf' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z6decodePf\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 352768 bytes smem\n";

// nvcc's stand-in: `nvcc.mode` says ok, overflow, or slow (it sleeps until killed; its pid
// goes to nvcc.pid).
constexpr const char* kFakeNvcc = R"SH(#!/bin/sh
D=$(cd "$(dirname "$0")" && pwd)
case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0;; esac
mode=$(cat "$D/nvcc.mode" 2>/dev/null || echo ok)
if [ "$mode" = slow ]; then echo $$ > "$D/nvcc.pid"; exec sleep 60 >/dev/null 2>&1; fi
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
if [ "$mode" = overflow ]; then cat "$D/overflow.log" >&2; exit 1; fi
cat "$D/ok.log" >&2
: > "$out"
)SH";

// The candidate: the C++ example candidate, unless `cand.mode` says slow (sleeps until
// killed; pid in cand.pid) or forge (rewrites the build stage's evidence first, saying
// every gate passed).
std::string CandidateScript() {
  return std::string(R"SH(#!/bin/sh
D=$(cd "$(dirname "$0")" && pwd)
mode=$(cat "$D/cand.mode" 2>/dev/null || echo ok)
if [ "$mode" = slow ]; then echo $$ > "$D/cand.pid"; exec sleep 60 >/dev/null 2>&1; fi
if [ "$mode" = forge ]; then
  sed -i 's/"passed": false/"passed": true/g; s/"status": "rejected"/"status": "ok"/' "$D/evidence/resources.json"
fi
exec )SH") +
         ATTNVERIFY_CPU_CANDIDATE + " \"$@\"\n";
}

bool WriteExecutable(const std::string& path, const std::string& text) {
  return WriteFileAtomically(path, text).ok() && ::chmod(path.c_str(), 0755) == 0;
}

// The pid of a process whose argv holds `stage` and `--config` `config` (an attnverify
// stage that `run` started); 0 when none appears within `timeout_s`.
pid_t WaitForStage(const std::string& stage, const std::string& config, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      // /proc files report size 0, so they are read as a stream, not mapped.
      std::ifstream in(e.path() / "cmdline", std::ios::binary);
      std::optional<std::string> cmdline(std::string(std::istreambuf_iterator<char>(in), {}));
      std::vector<std::string> argv;
      for (size_t at = 0; at < cmdline->size();) {
        size_t nul = cmdline->find('\0', at);
        if (nul == std::string::npos) nul = cmdline->size();
        argv.push_back(cmdline->substr(at, nul - at));
        at = nul + 1;
      }
      if (argv.size() < 4 || argv[1] != stage || argv[2] != "--config") continue;
      // --config as the stage got it: relative to the stage's working directory.
      std::error_code ec;
      fs::path named = argv[3];
      if (named.is_relative()) named = fs::read_symlink(e.path() / "cwd", ec) / named;
      if (!ec && fs::equivalent(named, config, ec)) return static_cast<pid_t>(std::stol(name));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

// Waits until `file` exists and holds a pid, then kills it (the stand-in's sleep).
void KillPidIn(const std::string& file) {
  for (int i = 0; i < 200; ++i) {
    Result<std::string> text = ReadFileToString(file);
    if (text.ok() && !text->empty()) {
      ::kill(static_cast<pid_t>(std::stol(*text)), SIGKILL);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

class PipelineRegression : public ::testing::Test {
 protected:
  void SetUp() override {
    pkg_ = dir_.File("attention-verify");
    toml_ = pkg_ + "/attnverify.toml";
    fs::create_directories(pkg_ + "/config");
    ASSERT_TRUE(WriteExecutable(pkg_ + "/nvcc.sh", kFakeNvcc));
    ASSERT_TRUE(WriteExecutable(pkg_ + "/cand.sh", CandidateScript()));
    ASSERT_TRUE(WriteFileAtomically(pkg_ + "/ok.log", kOkLog).ok());
    ASSERT_TRUE(WriteFileAtomically(pkg_ + "/overflow.log", kOverflowLog).ok());
    ASSERT_TRUE(WriteFileAtomically(pkg_ + "/k.cu", "// compiled by the stand-in\n").ok());
    ASSERT_TRUE(WriteFileAtomically(pkg_ + "/config/shapes.json",
                                    R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm",
                         "grid": {"m": [3, 130], "n": [16], "k": [8]}, "dtypes": ["bf16"], "seeds": [0]}]})")
                    .ok());
    Configure("[1, 3]", true, true);
  }

  // attnverify.toml with [build] (the stand-in nvcc) and/or [candidate].
  void Configure(const std::string& required, bool build, bool candidate) {
    std::string toml = "[run]\nstages = [\"build\", \"numerics\", \"report\"]\n";
    if (build) {
      toml += "[build]\nroot = \".\"\nsources = [\"k.cu\"]\narchs = [\"sm_90a\"]\nnvcc = \"" +
              pkg_ + "/nvcc.sh\"\nblock_size = 128\n[build.gates]\noccupancy_not_lower = false\n";
    }
    toml += "[numerics]\nshapes = \"config/shapes.json\"\ntolerances = \"" + SourceDir() +
            "/config/tolerances.json\"\nreference = \"oracle\"\n";
    if (candidate) toml += "[candidate]\ncommand = [\"./cand.sh\", \"{cases}\"]\ntimeout_s = 60\n";
    toml += "[policy]\nrequired = " + required + "\n";
    ASSERT_TRUE(WriteFileAtomically(toml_, toml).ok());
  }

  void Mode(const char* who, const char* mode) {
    ASSERT_TRUE(WriteFileAtomically(pkg_ + "/" + who + ".mode", mode).ok());
  }

  // `attnverify run`; returns acceptance.json.
  json Run(int* exit_code) {
    auto r = RunShell("cd " + dir_.path() + " && " + ATTNVERIFY_BINARY +
                      " run --config attention-verify/attnverify.toml");
    *exit_code = r.exit_code;
    output_ = r.output;
    return Acceptance();
  }

  // `attnverify run` with `stage` killed (SIGKILL, by pid) while its stand-in sleeps.
  json RunKilling(const std::string& stage, const std::string& pid_file, int* exit_code) {
    std::thread killer([&] {
      pid_t pid = WaitForStage(stage, toml_, 60);
      EXPECT_NE(pid, 0) << "the " << stage << " stage was not seen";
      if (pid == 0) return;
      KillPidIn(pid_file);  // the stand-in first, so nothing holds the stage's pipes
      ::kill(pid, SIGKILL);
    });
    json j = Run(exit_code);
    killer.join();
    return j;
  }

  json Acceptance() {
    Result<std::string> text = ReadFileToString(pkg_ + "/reports/acceptance.json");
    if (!text.ok()) {
      ADD_FAILURE() << "no acceptance.json:\n" << output_;
      return json::object();
    }
    return json::parse(*text);
  }

  static const json& Item(const json& report, int n) { return report["items"][n - 1]; }
  static const json* Check(const json& report, const std::string& id) {
    for (const json& item : report["items"]) {
      for (const json& c : item["checks"]) {
        if (c["id"] == id) return &c;
      }
    }
    return nullptr;
  }
  // No check of items 1-7 PASSes or FAILs on the evidence of `file`.
  void ExpectNothingJudgedFrom(const json& report, const std::string& file) {
    for (const json& item : report["items"]) {
      if (item["number"] == 8) continue;
      for (const json& c : item["checks"]) {
        for (const json& cite : c["citations"]) {
          EXPECT_NE(cite["file"], file) << c["id"] << " " << c["status"] << ": " << c["summary"];
        }
      }
    }
  }

  TempDir dir_;
  std::string pkg_, toml_, output_;
};

TEST_F(PipelineRegression, FirstRunAcceptsWithEveryFileBoundToIt) {
  int rc = -1;
  json report = Run(&rc);
  EXPECT_EQ(rc, 0) << output_;
  EXPECT_EQ(report["verdict"], "accepted") << output_;
  Result<std::string> text = ReadFileToString(pkg_ + "/evidence/run.json");
  ASSERT_TRUE(text.ok());
  Result<RunLedger> ledger = ParseRunLedger(*text, "evidence/run.json");
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  const StageEntry* build = ledger->Stage("build");
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(build->run_id, ledger->run_id);
  Result<std::string> resources_sha = Sha256File(pkg_ + "/evidence/resources.json");
  ASSERT_NE(build->Output("evidence/resources.json"), nullptr);
  EXPECT_EQ(build->Output("evidence/resources.json")->sha256, *resources_sha);
  EXPECT_NE(build->Output("logs/build.log"), nullptr);
  // Each item says which run its evidence came from.
  ASSERT_FALSE(Item(report, 3)["evidence_runs"].empty());
  EXPECT_NE(Item(report, 3)["evidence_runs"][0].get<std::string>().find(ledger->run_id),
            std::string::npos);
  EXPECT_EQ(
      RunShell(std::string(ATTNVERIFY_BINARY) + " verify-package --config " + toml_).exit_code, 0);
}

// Stages run one by one from different folders, then the package moved elsewhere with tar:
// every path evidence records is package-relative, so the report binds the same files
// wherever the package sits and whichever folder each stage was started from.
TEST_F(PipelineRegression, StagesRunFromAnyFolderAndAMovedPackageStayBound) {
  const std::string av = ATTNVERIFY_BINARY;
  auto build = RunShell("cd " + dir_.path() + " && " + av +
                        " build --config attention-verify/attnverify.toml");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto numerics =
      RunShell("cd " + pkg_ + "/config && " + av + " numerics --config ../attnverify.toml");
  ASSERT_EQ(numerics.exit_code, 0) << numerics.output;
  auto report = RunShell("cd " + pkg_ + " && " + av + " report --config attnverify.toml");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  json here = Acceptance();
  EXPECT_EQ(here["verdict"], "accepted") << report.output;

  // The package moved (tar, as a CI artifact would be) into a folder with a space.
  const std::string moved = dir_.File("elsewhere/a b");
  fs::create_directories(moved);
  auto tar = RunShell("tar -C " + dir_.path() + " -cf " + dir_.File("pkg.tar") +
                      " attention-verify && tar -C '" + moved + "' -xf " + dir_.File("pkg.tar"));
  ASSERT_EQ(tar.exit_code, 0) << tar.output;
  auto again =
      RunShell("cd '" + moved + "' && " + av + " report --config attention-verify/attnverify.toml");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  Result<std::string> text = ReadFileToString(moved + "/attention-verify/reports/acceptance.json");
  ASSERT_TRUE(text.ok()) << again.output;
  json there = json::parse(*text);
  EXPECT_EQ(there["verdict"], "accepted") << again.output;
  for (int n : {1, 3}) {
    EXPECT_EQ(Item(there, n)["status"], Item(here, n)["status"]) << n;
    EXPECT_FALSE(Item(there, n)["evidence_runs"].empty()) << n;
  }
  // The files name their inputs relative to the package, not where it was.
  for (const char* f : {"evidence/numerics.json", "evidence/resources.json"}) {
    Result<std::string> ev = ReadFileToString(moved + "/attention-verify/" + f);
    ASSERT_TRUE(ev.ok()) << f;
    EXPECT_EQ(json::parse(*ev)["provenance"]["config"], "attnverify.toml") << f;
  }
}

TEST_F(PipelineRegression, KilledBuildStageEvidenceIsNotUsed) {
  // reliability.md H1: the head now overflows shared memory, and the build stage is
  // killed; the previous run's passing resources.json stays in the package.
  int rc = -1;
  ASSERT_EQ(Run(&rc)["verdict"], "accepted") << output_;
  Mode("nvcc", "slow");
  json report = RunKilling("build", pkg_ + "/nvcc.pid", &rc);
  EXPECT_NE(output_.find("killed by signal 9"), std::string::npos) << output_;
  EXPECT_NE(report["verdict"], "accepted");
  EXPECT_NE(rc, 0);
  EXPECT_NE(Item(report, 3)["status"], "PASS");
  const json* build = Check(report, "3.build");
  ASSERT_NE(build, nullptr);
  EXPECT_EQ((*build)["status"], "MISSING");
  EXPECT_NE((*build)["summary"].get<std::string>().find(
                "evidence/resources.json is not used: the latest build stage"),
            std::string::npos)
      << (*build)["summary"];
  EXPECT_NE((*build)["summary"].get<std::string>().find("killed by signal 9"), std::string::npos);
  ExpectNothingJudgedFrom(report, "evidence/resources.json");
  EXPECT_EQ(Item(report, 1)["status"], "PASS");  // numerics of this run
}

TEST_F(PipelineRegression, KilledNumericsStageEvidenceIsNotUsed) {
  int rc = -1;
  ASSERT_EQ(Run(&rc)["verdict"], "accepted") << output_;
  Mode("cand", "slow");
  json report = RunKilling("numerics", pkg_ + "/cand.pid", &rc);
  EXPECT_NE(report["verdict"], "accepted") << output_;
  EXPECT_NE(Item(report, 1)["status"], "PASS");
  const json* base = Check(report, "1.base_cases");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ((*base)["status"], "MISSING");
  EXPECT_NE((*base)["summary"].get<std::string>().find(
                "evidence/numerics.json is not used: the latest numerics stage"),
            std::string::npos)
      << (*base)["summary"];
  ExpectNothingJudgedFrom(report, "evidence/numerics.json");
  EXPECT_EQ(Item(report, 3)["status"], "PASS");  // the build of this run
}

TEST_F(PipelineRegression, CandidateThatRewritesResourcesJsonIsNotBelieved) {
  // reliability.md H2: ptxas refuses the head (smem over the cap), so the build stage is
  // rejected; the candidate then rewrites resources.json to say every gate passed.
  Mode("nvcc", "overflow");
  Mode("cand", "forge");
  int rc = -1;
  json report = Run(&rc);
  EXPECT_NE(report["verdict"], "accepted") << output_;
  EXPECT_NE(Item(report, 3)["status"], "PASS") << output_;
  Result<std::string> text = ReadFileToString(pkg_ + "/evidence/run.json");
  ASSERT_TRUE(text.ok());
  Result<RunLedger> ledger = ParseRunLedger(*text, "evidence/run.json");
  ASSERT_TRUE(ledger.ok());
  const OutputDigest* recorded = ledger->Stage("build")->Output("evidence/resources.json");
  ASSERT_NE(recorded, nullptr);
  if (*Sha256File(pkg_ + "/evidence/resources.json") != recorded->sha256) {
    // The candidate could write it (no sandbox): the report refuses the forgery...
    const json* build = Check(report, "3.build");
    ASSERT_NE(build, nullptr);
    EXPECT_NE((*build)["summary"].get<std::string>().find("changed after the latest build stage"),
              std::string::npos)
        << (*build)["summary"];
    ExpectNothingJudgedFrom(report, "evidence/resources.json");
    // ... and verify-package says the file is not what its stage wrote.
    auto v = RunShell(std::string(ATTNVERIFY_BINARY) + " verify-package --config " + toml_);
    EXPECT_EQ(v.exit_code, 1) << v.output;
    EXPECT_NE(v.output.find("run.json evidence/resources.json: sha256"), std::string::npos)
        << v.output;
  } else {
    // A sandbox kept the candidate out: the build's own verdict stands.
    EXPECT_EQ(Item(report, 3)["status"], "FAIL");
  }
}

TEST_F(PipelineRegression, EmptyAttnverifyTomlShowsNoOldVerdict) {
  // reliability.md H1, second part: an empty attnverify.toml skips every stage; the old
  // evidence (here a failing build) must not show as this run's FAIL, nor anything PASS.
  Mode("nvcc", "overflow");
  int rc = -1;
  json first = Run(&rc);
  ASSERT_EQ(first["verdict"], "rejected") << output_;
  ASSERT_TRUE(WriteFileAtomically(toml_, "").ok());
  json report = Run(&rc);
  EXPECT_EQ(report["verdict"], "incomplete") << output_;
  EXPECT_EQ(rc, 1);
  for (const json& item : report["items"]) {
    if (item["number"] == 8) continue;
    EXPECT_EQ(item["status"], "MISSING") << item["number"] << ": " << item["reason"];
  }
  const json* build = Check(report, "3.build");
  ASSERT_NE(build, nullptr);
  EXPECT_NE((*build)["summary"].get<std::string>().find("was skipped (no [build] table"),
            std::string::npos)
      << (*build)["summary"];
}

}  // namespace
}  // namespace av
