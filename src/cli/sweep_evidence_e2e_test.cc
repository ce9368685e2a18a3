// End-to-end regressions for the evidence a sweep leaves (issue 34 B and D), with the real
// attnverify binary and the example cpu_candidate on a six-case GEMM sweep (well under a
// second a run):
//  - a `--filter` re-run (as `agent run-commands --yes` ran one) replaced numerics.json
//    with a one-case sweep and the next report weakened its verdict;
//  - a merge with a shard missing (`--allow-missing`) was ACCEPTED by the report;
//  - a shard file left by an earlier run was merged silently;
//  - an output-size bomb in shapes.json ended in `internal error: std::bad_alloc` (exit 3).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/sha256.h"
#include "core/shell_quote.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunShell;
using testing::TempDir;

constexpr const char* kConfig = "attention-verify/attnverify.toml";

// Six GEMM cases (two off the 128 tile); [policy] requires item 4, which this sweep
// answers on its own, so the full sweep of a correct candidate is ACCEPTED.
constexpr const char* kShapes = R"({"version": 1, "sweeps": [
  {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 130, "n": 129, "k": 9},
   {"m": 4, "n": 4, "k": 4}, {"m": 1, "n": 1, "k": 1}], "dtypes": ["f32"]}]})";
constexpr const char* kTolerances =
    R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})";

class SweepEvidenceTest : public ::testing::Test {
 protected:
  void SetUp() override { WritePackage(kShapes); }

  void WritePackage(const std::string& shapes) {
    const std::string pkg = dir_.File("attention-verify");
    fs::create_directories(pkg + "/config");
    ASSERT_TRUE(WriteFileAtomically(pkg + "/config/shapes.json", shapes).ok());
    ASSERT_TRUE(WriteFileAtomically(pkg + "/config/tolerances.json", kTolerances).ok());
    ASSERT_TRUE(WriteFileAtomically(pkg + "/attnverify.toml",
                                    "[numerics]\nshapes = \"config/shapes.json\"\n"
                                    "tolerances = \"config/tolerances.json\"\n"
                                    "[candidate]\ncommand = [\"" +
                                        std::string(ATTNVERIFY_CPU_CANDIDATE) +
                                        "\", \"{cases}\"]\ntimeout_s = 30\n"
                                        "[policy]\nrequired = [4]\n")
                    .ok());
  }

  // `attnverify ARGS...` in the repository root (the folder holding attention-verify/).
  testing::CommandResult Av(std::vector<std::string> argv) {
    argv.insert(argv.begin(), ATTNVERIFY_BINARY);
    return RunShell("cd " + ShellQuote(dir_.path()) + " && " + ShellJoin(argv));
  }
  testing::CommandResult Numerics(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {"numerics", "--config", kConfig};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return Av(argv);
  }
  testing::CommandResult Report() { return Av({"report", "--config", kConfig}); }

  std::string Evidence(const std::string& name) {
    return dir_.File("attention-verify/evidence/" + name);
  }
  json Acceptance() {
    Result<std::string> text = ReadFileToString(dir_.File("attention-verify/reports/acceptance.json"));
    EXPECT_TRUE(text.ok());
    return text.ok() ? json::parse(*text) : json::object();
  }
  static json CheckOf(const json& acceptance, const std::string& id) {
    for (const json& item : acceptance["items"]) {
      for (const json& c : item["checks"]) {
        if (c["id"] == id) return c;
      }
    }
    return json::object();
  }

  TempDir dir_;
};

TEST_F(SweepEvidenceTest, FilteredRerunDoesNotReplaceTheFullSweep) {
  auto full = Numerics();
  ASSERT_EQ(full.exit_code, 0) << full.output;
  auto before = Report();
  ASSERT_EQ(before.exit_code, 0) << before.output;  // accepted
  const std::string sha = *Sha256File(Evidence("numerics.json"));
  const std::string ledger = *ReadFileToString(Evidence("run.json"));

  // The one listed case with m = 3, n = 5 (a drawn case's id has ".drawn" after "g").
  auto filtered = Numerics({"--filter", "^g\\.k=7\\.m=3\\.n=5\\."});
  ASSERT_EQ(filtered.exit_code, 0) << filtered.output;
  EXPECT_NE(filtered.output.find("note: --filter ran 1 of the 6 cases of the sweep"),
            std::string::npos)
      << filtered.output;
  EXPECT_EQ(*Sha256File(Evidence("numerics.json")), sha);
  EXPECT_EQ(*ReadFileToString(Evidence("run.json")), ledger);  // the numerics stage stands
  Result<std::string> side = ReadFileToString(Evidence("numerics.filtered.json"));
  ASSERT_TRUE(side.ok());
  EXPECT_EQ(json::parse(*side)["cases"].size(), 1u);
  EXPECT_TRUE(fs::exists(Evidence("numerics.filtered.junit.xml")));

  auto after = Report();
  EXPECT_EQ(after.exit_code, 0) << after.output;
  EXPECT_EQ(Acceptance()["verdict"], "accepted");
}

TEST_F(SweepEvidenceTest, NarrowedEvidenceNamedExplicitlyIsNeverAccepted) {
  auto one = Numerics({"--filter", "m=130", "--evidence", "attention-verify/evidence/numerics.json"});
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto report = Report();
  EXPECT_EQ(report.exit_code, 1) << report.output;
  const json a = Acceptance();
  EXPECT_NE(a["verdict"], "accepted");
  ASSERT_FALSE(a["warnings"].empty());
  EXPECT_NE(a["warnings"][0].get<std::string>().find("holds 1 of the 6 cases"), std::string::npos)
      << a["warnings"];
  EXPECT_EQ(CheckOf(a, "1.sweep_complete")["status"], "MISSING");
  const json gemm = CheckOf(a, "4.unaligned_gemm");
  EXPECT_EQ(gemm["status"], "MISSING") << gemm.dump();
  EXPECT_NE(gemm["summary"].get<std::string>().find("--filter \"m=130\""), std::string::npos);
}

// The Slurm finding: with [policy] required = [2, 4, 5, 6] a merge missing 63 of 263
// cases was ACCEPTED, exit 0.
TEST_F(SweepEvidenceTest, PartialMergeIsNotAccepted) {
  for (const char* s : {"0/2", "1/2"}) {
    auto r = Numerics({"--shard", s, "--sweep-id", "7", "--salt", "5eed"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  auto whole = Av({"merge", "attention-verify/evidence/numerics.json.shard0of2",
                   "attention-verify/evidence/numerics.json.shard1of2"});
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  ASSERT_EQ(Report().exit_code, 0);  // both shards: accepted

  auto partial = Av({"merge", "attention-verify/evidence/numerics.json.shard0of2",
                     "--allow-missing"});
  ASSERT_EQ(partial.exit_code, 1) << partial.output;
  auto report = Report();
  EXPECT_EQ(report.exit_code, 1) << report.output;
  const json a = Acceptance();
  EXPECT_EQ(a["verdict"], "incomplete");
  const json gemm = CheckOf(a, "4.unaligned_gemm");
  EXPECT_EQ(gemm["status"], "MISSING") << gemm.dump();
  EXPECT_NE(gemm["summary"].get<std::string>().find("shard(s) 1/2 are missing"),
            std::string::npos)
      << gemm.dump();
}

// On a real Slurm array, shard 2's task was cancelled and the earlier run's shard 2 file
// was merged: 72 failures reported where the new kernel had 93.
TEST_F(SweepEvidenceTest, StaleShardOfAnEarlierRunIsRefused) {
  for (const char* s : {"0/2", "1/2"}) {
    auto r = Numerics({"--shard", s, "--sweep-id", "41", "--salt", "41"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  // The next run: shard 1's task never ran.
  auto r = Numerics({"--shard", "0/2", "--sweep-id", "57", "--salt", "57"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto merge = Av({"merge", "attention-verify/evidence/numerics.json.shard0of2",
                   "attention-verify/evidence/numerics.json.shard1of2"});
  EXPECT_EQ(merge.exit_code, 2) << merge.output;
  EXPECT_NE(merge.output.find("evidence/numerics.json.shard1of2 comes from another run than "
                              "evidence/numerics.json.shard0of2"),
            std::string::npos)
      << merge.output;
  EXPECT_NE(merge.output.find("sweep_id \"41\" vs \"57\""), std::string::npos) << merge.output;
  EXPECT_FALSE(fs::exists(Evidence("numerics.json")));
}

TEST_F(SweepEvidenceTest, FilteredShardsMergeBesideTheFullSweep) {
  for (const char* s : {"0/2", "1/2"}) {
    auto r = Numerics({"--filter", "m=", "--shard", s, "--sweep-id", "9", "--salt", "9"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  auto merge = Av({"merge", "attention-verify/evidence/numerics.filtered.json.shard0of2",
                   "attention-verify/evidence/numerics.filtered.json.shard1of2"});
  EXPECT_EQ(merge.exit_code, 0) << merge.output;
  EXPECT_TRUE(fs::exists(Evidence("numerics.filtered.json"))) << merge.output;
  EXPECT_FALSE(fs::exists(Evidence("numerics.json")));
}

// L4: gemm m = n = 200000, k = 8 has 12 MB of inputs and a 160 GB output.
TEST_F(SweepEvidenceTest, OutputSizeBombIsAConfigErrorNotACrash) {
  WritePackage(R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm",
    "grid": {"m": [200000], "n": [200000], "k": [8]}, "dtypes": ["f32"], "seeds": [0]}]})");
  auto r = Numerics();
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("config/shapes.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("case g.k=8.m=200000.n=200000.f32.s0: outputs would take about"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace av
