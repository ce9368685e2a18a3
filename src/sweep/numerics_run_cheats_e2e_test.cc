// Issue 35: a kernel cannot game the sweep. Cheating candidates from the reward-hacking
// catalogue (testdata/cheats/cheat_candidate.py, built on the numpy example) run through
// the real binary on a small MLA sweep with reruns and num_splits variants; each must
// fail. They run with --sandbox none, the stronger adversary: whatever they store outside
// the package survives from one run to the next. Fixed salts keep the runs reproducible.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;

class CheatingCandidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    py_ = testing::FindPythonWithNumpy();
    if (py_.empty()) GTEST_SKIP() << "no python3 with numpy";
    std::filesystem::create_directories(dir_.File("pkg"));
    // The lattice of unseen shapes is wide (s_k 20..140 by 20, s_q 1..3): two salts draw
    // different cases.
    ASSERT_TRUE(WriteFileAtomically(dir_.File("pkg/shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "mla", "op": "mla_decode", "fixed": {"b": 2, "d": 32, "dv": 16, "causal": true},
       "grid": {"s_q": [1, 3], "h_q": [4, 8], "s_k": [20, 140]},
       "invariance": {"num_splits": [2], "reruns": 1}}]})")
                    .ok());
  }
  // Runs `numerics` with the cheat; returns numerics.json and sets *rc.
  json Run(const std::string& cheat, bool record, const std::string& salt, int* rc,
           const std::string& sandbox = "none", const std::string& candidate_toml = "") {
    const std::string src = testing::SourceDir();
    std::string command = "[\"" + py_ + "\", \"" + src +
                          "/testdata/cheats/cheat_candidate.py\", \"{cases}\", \"--cheat\", \"" +
                          cheat + "\", \"--store\", \"" + dir_.File("store") + "\"" +
                          (record ? ", \"--record\"" : "") + "]";
    EXPECT_TRUE(WriteFileAtomically(dir_.File("pkg/attnverify.toml"),
                                    "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"" + src +
                                        "/config/tolerances.json\"\n[candidate]\ncommand = " +
                                        command + "\n" + candidate_toml)
                    .ok());
    testing::CommandResult r = testing::RunShell(
        std::string(ATTNVERIFY_BINARY) + " numerics --sandbox " + sandbox + " --salt " + salt +
        " --config " + dir_.File("pkg/attnverify.toml"));
    *rc = r.exit_code;
    Result<std::string> text = ReadFileToString(dir_.File("pkg/evidence/numerics.json"));
    EXPECT_TRUE(text.ok()) << r.output;
    return text.ok() ? json::parse(*text) : json::object();
  }
  static std::string Verdict(const json& doc, const std::string& check) {
    std::string v = "missing";
    for (const json& r : doc["invariance"]) {
      if (r["check"] != check) continue;
      if (v == "missing" || r["verdict"] == "fail") v = r["verdict"];
    }
    return v;
  }
  std::string py_;
  testing::TempDir dir_;
};

// Catalogue #20: reruns and num_splits variants copy their base case's outputs. The base is
// no longer named (case.json has no group or variant), and once the first candidate run
// is judged its outputs are gone; the reruns run in a second process and must compute.
TEST_F(CheatingCandidateTest, VariantCopyBaseFailsTheDeterminismCheck) {
  int rc = -1;
  json doc = Run("variant_copy_base", false, "c0ffee", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(Verdict(doc, "determinism"), "fail") << doc["invariance"].dump(1);
}

// Catalogue #12: a nondeterministic kernel memoised by the inputs' hash. The rerun's inputs
// are its own copy and it runs in a second process: the memo is empty there.
TEST_F(CheatingCandidateTest, MemoByInputHashFailsTheDeterminismCheck) {
  int rc = -1;
  json doc = Run("memo_by_input_hash", false, "c0ffee", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(Verdict(doc, "determinism"), "fail") << doc["invariance"].dump(1);
}

// The same memo kept on disk for the second candidate run: in $TMPDIR, its working folder
// (here outside the package, where prepare may build), $HOME, and beside its outputs. In
// the sandbox none of it survives the first run: the private /tmp goes with it, the
// working folder and $HOME are read-only to a candidate run, and every out/ folder is
// emptied once read. (Without the sandbox nothing can stop it: containment's job.)
TEST_F(CheatingCandidateTest, MemoOnDiskFailsTheDeterminismCheckInTheSandbox) {
  std::filesystem::create_directories(dir_.File("repo"));
  int rc = -1;
  json doc = Run("memo_on_disk", false, "c0ffee", &rc, "bwrap",
                 "cwd = \"" + dir_.File("repo") + "\"\n");
  if (doc["containment"]["sandbox"] != "bwrap") GTEST_SKIP() << "bwrap does not work here";
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(Verdict(doc, "determinism"), "fail") << doc["invariance"].dump(1);
  EXPECT_FALSE(std::filesystem::exists(dir_.File("repo/.av_memo")));
}

// Catalogue #12/#13: a broken kernel (zeros) replays what an honest run stored, keyed by
// the inputs' hash. With the same salt the replay passes (so the cheat works as written);
// a fresh salt gives every input new bytes and every case fails.
TEST_F(CheatingCandidateTest, ReplayCacheOfAnEarlierRunFailsUnderAFreshSalt) {
  int rc = -1;
  json honest = Run("replay_cache", true, "1", &rc);
  ASSERT_EQ(rc, 0) << honest["cases"].dump(1);
  json same = Run("replay_cache", false, "1", &rc);
  EXPECT_EQ(rc, 0) << "the control: the same salt, the same bytes, the replay passes";
  json fresh = Run("replay_cache", false, "2", &rc);
  EXPECT_EQ(rc, 1);
  // --salt reproduces a run exactly: the same cases (drawn ones included), inputs and
  // folders; another salt changes every input.
  auto inputs = [](const json& doc) {
    std::map<std::string, std::string> by_id;
    for (const json& c : doc["cases"])
      by_id[c["id"]] = c["sha256"]["inputs"].get<std::string>() + " " + c["case_dir"].get<std::string>();
    return by_id;
  };
  EXPECT_EQ(inputs(same), inputs(honest));
  for (const auto& [id, sha] : inputs(fresh)) {
    auto it = inputs(honest).find(id);
    if (it != inputs(honest).end()) {
      EXPECT_NE(sha.substr(0, 64), it->second.substr(0, 64)) << id;
    }
  }
  EXPECT_EQ(fresh["config"]["salt"], "0000000000000002");
  EXPECT_EQ(fresh["summary"]["failed"], fresh["summary"]["cases_run"]);
}

// Catalogue #14/#15: correct only on the shapes of the sweep it was tuned on (an earlier
// run's, drawn cases included), zeros elsewhere. It passes every listed case and fails
// this run's drawn cases, and only those.
TEST_F(CheatingCandidateTest, TestedShapesOnlyFailsTheDrawnCases) {
  int rc = -1;
  json tuned = Run("tested_shapes_only", true, "1", &rc);
  ASSERT_EQ(rc, 0) << tuned["cases"].dump(1);
  json doc = Run("tested_shapes_only", false, "2", &rc);
  EXPECT_EQ(rc, 1);
  int drawn_failed = 0;
  for (const json& c : doc["cases"]) {
    const bool drawn = c.value("drawn", false);
    if (drawn) {
      EXPECT_EQ(c["verdict"], "fail") << c["id"];
      ++drawn_failed;
    } else {
      EXPECT_EQ(c["verdict"], "pass") << c["id"] << ": " << c["reason"];
    }
  }
  EXPECT_EQ(drawn_failed, 2) << "two drawn cases per sweep (the default [numerics] drawn_cases)";
}

// Catalogue #15 again, specialised per dimension rather than per shape: right only when
// every parameter takes a value an earlier run showed for it (templates instantiated for
// the published s_k, h_q, ...), zeros elsewhere. A drawn case takes at least one value off
// the listed grid, so it fails unless an earlier run's drawn case happened to show that
// value too; the listed cases pass.
TEST_F(CheatingCandidateTest, ListedValuesOnlyFailsTheDrawnCasesOffTheGrid) {
  int rc = -1;
  json tuned = Run("listed_values_only", true, "1", &rc);
  ASSERT_EQ(rc, 0) << tuned["cases"].dump(1);
  std::map<std::string, std::set<std::string>> seen;
  for (const json& c : tuned["cases"])
    for (const auto& [k, v] : c["params"].items()) seen[k].insert(v.dump());
  json doc = Run("listed_values_only", false, "2", &rc);
  EXPECT_EQ(rc, 1);
  int drawn_failed = 0;
  for (const json& c : doc["cases"]) {
    bool all_seen = true;
    for (const auto& [k, v] : c["params"].items()) all_seen = all_seen && seen[k].count(v.dump());
    if (!c.value("drawn", false)) {
      EXPECT_EQ(c["verdict"], "pass") << c["id"] << ": " << c["reason"];
    } else {
      EXPECT_EQ(c["verdict"], all_seen ? "pass" : "fail") << c["id"];
      drawn_failed += c["verdict"] == "fail";
    }
  }
  EXPECT_GE(drawn_failed, 1) << "salt 2 draws a value salt 1 did not show";
}

// Catalogue #12/#13 keyed by what stays the same from run to run: the case's shape (public
// in shapes.json) or its folder's name. A broken kernel serving an honest run's outputs by
// either key passes under the same salt (the control) and fails every case under another:
// the bytes are new and the folders are shuffled by the salt.
TEST_F(CheatingCandidateTest, ReplayByShapeOrFolderFailsUnderAFreshSalt) {
  for (const std::string cheat : {"replay_by_shape", "replay_by_folder"}) {
    SCOPED_TRACE(cheat);
    std::filesystem::remove_all(dir_.File("store"));
    int rc = -1;
    json honest = Run(cheat, true, "1", &rc);
    ASSERT_EQ(rc, 0) << honest["cases"].dump(1);
    Run(cheat, false, "1", &rc);
    EXPECT_EQ(rc, 0) << "the control: the same salt serves the same bytes";
    json fresh = Run(cheat, false, "2", &rc);
    EXPECT_EQ(rc, 1);
    int listed = 0, failed = 0;
    for (const json& c : fresh["cases"]) {
      if (c.value("drawn", false)) continue;
      ++listed;
      failed += c["verdict"] == "fail";
    }
    EXPECT_GT(listed, 0);
    // Reruns and num_splits variants are judged against their base; a wrong base fails the
    // comparison, so every listed case fails or is a variant of one that did.
    EXPECT_EQ(fresh["summary"]["passed"], 0) << fresh["cases"].dump(1);
    EXPECT_GT(failed, 0);
  }
}

// Catalogue #16, a precision downgrade a bf16 GEMM's output hides: computed in float16
// (or on float16 operands with float32 sums, as float16 MMA would), a randn GEMM stays
// within calc_diff, since the bf16 output's rounding (2^-8) is coarser than float16's. The
// wide_range generator puts operands beyond float16's range (65,504): the downgrade gives
// inf there and fails, while an honest kernel passes both.
TEST_F(CheatingCandidateTest, Float16ComputeOfABf16GemmFailsTheWideRangeCase) {
  ASSERT_TRUE(WriteFileAtomically(dir_.File("pkg/shapes.json"), R"({"version": 1, "sweeps": [
    {"name": "gemm", "op": "gemm", "cases": [{"m": 65, "n": 127, "k": 129},
      {"m": 65, "n": 127, "k": 129, "generator": "wide_range"}], "dtypes": ["bf16"]}]})")
                  .ok());
  auto verdicts = [](const json& doc) {
    std::map<std::string, std::string> by_generator;
    for (const json& c : doc["cases"])
      by_generator[c["params"].value("generator", "randn")] = c["verdict"];
    return by_generator;
  };
  int rc = -1;
  // tested_shapes_only with --record is the honest numpy kernel (it records as it goes).
  json honest = Run("tested_shapes_only", true, "5", &rc);
  EXPECT_EQ(rc, 0) << honest["cases"].dump(1);
  EXPECT_EQ(verdicts(honest), (std::map<std::string, std::string>{{"randn", "pass"},
                                                                    {"wide_range", "pass"}}));
  for (const std::string cheat : {"f16_compute", "f16_operands"}) {
    SCOPED_TRACE(cheat);
    json doc = Run(cheat, false, "5", &rc);
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(verdicts(doc), (std::map<std::string, std::string>{{"randn", "pass"},
                                                                   {"wide_range", "fail"}}))
        << doc["cases"].dump(1);
  }
}

}  // namespace
}  // namespace av
