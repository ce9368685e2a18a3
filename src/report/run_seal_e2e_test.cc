// End to end, real binary and real candidates: evidence/run.json is sealed with the
// user's key (schema/run_seal.h), and the report refuses evidence replayed into a package
// by hand — a passing numerics.json from another config with the ledger edited to bind
// it (reward-hacking's replay_evidence+ledger), the same with the seal stripped, and a
// whole evidence folder copied from another package — while an honest run is bound, and
// on a machine without the key is judged but held back (INCOMPLETE, never REJECTED).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Two GEMM cases: a sweep of a second or so with the C++ CPU candidate.
constexpr const char* kShapes = R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm",
  "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 16, "n": 8, "k": 32}], "dtypes": ["bf16"],
  "seeds": [0]}]})";

std::string Honest() {
  return std::string("command = [\"") + ATTNVERIFY_CPU_CANDIDATE + "\", \"{cases}\"]\n";
}
// Writes no output: every case fails.
constexpr const char* kBroken = "command = [\"/bin/sh\", \"-c\", \"true\", \"sh\", \"{cases}\"]\n";

class RunSealE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    key_ = dir_.File("state/run-seal.key");
    other_key_ = dir_.File("laptop/run-seal.key");
  }

  // A package made by `init`, with the small sweep and `candidate` as attnverify.toml.
  std::string MakePackage(const std::string& name, const std::string& candidate) {
    const std::string root = dir_.File(name);
    fs::create_directories(root);
    EXPECT_EQ(Av("init " + root).exit_code, 0);
    const std::string pkg = root + "/attention-verify";
    EXPECT_TRUE(WriteFileAtomically(pkg + "/config/shapes.json", kShapes).ok());
    AddConfig(pkg, "attnverify.toml", candidate);
    return pkg;
  }
  // A copy of the package's init config named `name`, running `candidate`.
  void AddConfig(const std::string& pkg, const std::string& name, const std::string& candidate) {
    std::string toml = *ReadFileToString(pkg + "/attnverify.toml");
    if (size_t at = toml.find("\n[candidate]\n"); at != std::string::npos) toml.resize(at + 1);
    EXPECT_TRUE(WriteFileAtomically(pkg + "/" + name, toml + "\n[candidate]\n" + candidate).ok());
  }

  testing::CommandResult Av(const std::string& args, const std::string& key = "") {
    return testing::RunShell("ATTNVERIFY_KEY_FILE='" + (key.empty() ? key_ : key) + "' " +
                             ATTNVERIFY_BINARY + " " + args);
  }

  // The check `id` of reports/acceptance.json.
  json Check(const std::string& pkg, const std::string& id) {
    json doc = json::parse(*ReadFileToString(pkg + "/reports/acceptance.json"));
    for (const json& item : doc["items"])
      for (const json& c : item["checks"])
        if (c["id"] == id) return c;
    ADD_FAILURE() << "no check " << id;
    return json::object();
  }
  std::string Verdict(const std::string& pkg) {
    return json::parse(*ReadFileToString(pkg + "/reports/acceptance.json"))["verdict"];
  }

  testing::TempDir dir_;
  std::string key_, other_key_;
};

// Rewrites evidence/run.json's numerics entry to bind `replayed` (a numerics.json copied
// in): its run id, its sha256, status ok — what the agent in the finding did by hand.
void LaunderLedger(const std::string& pkg, const std::string& replayed, bool strip_seal) {
  json ledger = json::parse(*ReadFileToString(pkg + "/evidence/run.json"));
  json numerics = json::parse(*ReadFileToString(replayed));
  for (json& s : ledger["stages"]) {
    if (s["name"] != "numerics") continue;
    s["run_id"] = numerics["provenance"]["run_id"];
    s["status"] = "ok";
    s["exit_code"] = 0;
    s["reason"] = "";
    for (json& o : s["outputs"])
      if (o["path"] == "evidence/numerics.json") o["sha256"] = *Sha256File(replayed);
  }
  if (strip_seal) ledger.erase("seal");
  ASSERT_TRUE(WriteFileAtomically(pkg + "/evidence/run.json", ledger.dump(2)).ok());
  ASSERT_TRUE(
      WriteFileAtomically(pkg + "/evidence/numerics.json", *ReadFileToString(replayed)).ok());
}

TEST_F(RunSealE2E, ReplayedNumericsBoundByAnEditedLedgerIsRefused) {
  const std::string pkg = MakePackage("repo", kBroken);
  AddConfig(pkg, "av_src.toml", Honest());
  ASSERT_EQ(Av("numerics --config " + pkg + "/av_src.toml").exit_code, 0);
  const std::string saved = dir_.File("saved-numerics.json");
  fs::copy_file(pkg + "/evidence/numerics.json", saved);
  ASSERT_EQ(Av("numerics --config " + pkg + "/attnverify.toml").exit_code, 1);
  json sealed = json::parse(*ReadFileToString(pkg + "/evidence/run.json"));
  ASSERT_TRUE(sealed.contains("seal")) << sealed.dump();
  EXPECT_EQ(sealed["seal"]["alg"], "hmac-sha256");

  LaunderLedger(pkg, saved, /*strip_seal=*/false);
  testing::CommandResult r = Av("report --config " + pkg + "/attnverify.toml");
  EXPECT_NE(Verdict(pkg), "accepted") << r.output;
  json base = Check(pkg, "1.base_cases");
  EXPECT_EQ(base["status"], "MISSING");
  EXPECT_NE(base["summary"].get<std::string>().find("changed after attnverify sealed it"),
            std::string::npos)
      << base;
  EXPECT_EQ(Check(pkg, "8.evidence_bound")["status"], "MISSING");
  testing::CommandResult v = Av("verify-package --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(v.exit_code, 1) << v.output;
  EXPECT_NE(v.output.find("changed after attnverify sealed it"), std::string::npos) << v.output;

  // The seal stripped: nothing proves the ledger, and the replayed file names the other
  // config in its provenance.
  LaunderLedger(pkg, saved, /*strip_seal=*/true);
  r = Av("report --config " + pkg + "/attnverify.toml");
  EXPECT_NE(Verdict(pkg), "accepted") << r.output;
  base = Check(pkg, "1.base_cases");
  EXPECT_EQ(base["status"], "MISSING");
  EXPECT_NE(base["summary"].get<std::string>().find(
                "written under the config av_src.toml, and this report judges attnverify.toml"),
            std::string::npos)
      << base;
  EXPECT_NE(Check(pkg, "8.evidence_bound").dump().find("carries no seal"), std::string::npos)
      << Check(pkg, "8.evidence_bound");
}

TEST_F(RunSealE2E, EvidenceCopiedFromAnotherPackageIsNotThisPackages) {
  const std::string bad = MakePackage("bad", kBroken);
  const std::string good = MakePackage("good", Honest());
  ASSERT_EQ(Av("numerics --config " + bad + "/attnverify.toml").exit_code, 1);
  ASSERT_EQ(Av("numerics --config " + good + "/attnverify.toml").exit_code, 0);
  // Both sealed with the same key, on the same machine: the copy keeps a valid MAC.
  for (const char* f : {"evidence/numerics.json", "evidence/run.json"}) {
    ASSERT_TRUE(WriteFileAtomically(bad + "/" + f, *ReadFileToString(good + "/" + f)).ok());
  }
  testing::CommandResult r = Av("report --config " + bad + "/attnverify.toml");
  EXPECT_NE(Verdict(bad), "accepted") << r.output;
  json base = Check(bad, "1.base_cases");
  EXPECT_EQ(base["status"], "MISSING");
  EXPECT_NE(base["summary"].get<std::string>().find("written under another attnverify.toml"),
            std::string::npos)
      << base;
  EXPECT_NE(Check(bad, "8.evidence_bound").dump().find("for the package at " + good),
            std::string::npos)
      << Check(bad, "8.evidence_bound");
}

TEST_F(RunSealE2E, HonestRunIsBoundHereAndOnlyHeldBackWhereTheKeyIsMissing) {
  const std::string pkg = MakePackage("repo", Honest());
  ASSERT_EQ(Av("numerics --config " + pkg + "/attnverify.toml").exit_code, 0);
  Av("report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(Check(pkg, "1.base_cases")["status"], "PASS");
  json bound = Check(pkg, "8.evidence_bound");
  EXPECT_EQ(bound["status"], "PASS") << bound;
  EXPECT_NE(bound["summary"].get<std::string>().find("sealed with this machine's key"),
            std::string::npos)
      << bound;
  EXPECT_EQ(Av("verify-package --config " + pkg + "/attnverify.toml").exit_code, 0);

  // The package judged on another machine (another key): still judged, not rejected.
  Av("report --config " + pkg + "/attnverify.toml", other_key_);
  EXPECT_EQ(Check(pkg, "1.base_cases")["status"], "PASS");
  bound = Check(pkg, "8.evidence_bound");
  EXPECT_EQ(bound["status"], "MISSING");
  EXPECT_NE(bound["summary"].get<std::string>().find("cannot be authenticated"), std::string::npos)
      << bound;
  EXPECT_EQ(Verdict(pkg), "incomplete");
  testing::CommandResult v = Av("verify-package --config " + pkg + "/attnverify.toml", other_key_);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_NE(v.output.find("note: evidence/run.json cannot be authenticated"), std::string::npos)
      << v.output;
}

TEST_F(RunSealE2E, EvidenceRolledBackToAnEarlierPassingRunIsNotTrusted) {
  // The same config; the kernel behind it changed between the runs (a script that runs
  // the honest candidate, then one that writes nothing). Putting the first run's whole
  // evidence folder back keeps a valid MAC, but it is not the newest ledger sealed here.
  const std::string script = dir_.File("cand.sh");
  auto write_candidate = [&](const std::string& body) {
    ASSERT_TRUE(WriteFileAtomically(script, "#!/bin/sh\n" + body + "\n").ok());
    fs::permissions(script, fs::perms::owner_all);
  };
  const std::string pkg =
      MakePackage("repo", "command = [\"" + script + "\", \"{cases}\"]\n");
  write_candidate(std::string("exec \"") + ATTNVERIFY_CPU_CANDIDATE + "\" \"$1\"");
  ASSERT_EQ(Av("numerics --config " + pkg + "/attnverify.toml").exit_code, 0);
  const std::string saved = dir_.File("saved-evidence");
  fs::copy(pkg + "/evidence", saved, fs::copy_options::recursive);
  write_candidate("exit 0");
  ASSERT_EQ(Av("numerics --config " + pkg + "/attnverify.toml").exit_code, 1);
  fs::remove_all(pkg + "/evidence");
  fs::copy(saved, pkg + "/evidence", fs::copy_options::recursive);

  testing::CommandResult r = Av("report --config " + pkg + "/attnverify.toml");
  EXPECT_NE(Verdict(pkg), "accepted") << r.output;
  json bound = Check(pkg, "8.evidence_bound");
  EXPECT_EQ(bound["status"], "MISSING") << bound;
  EXPECT_NE(bound.dump().find("not the newest ledger this machine sealed"), std::string::npos)
      << bound;
  // Running the stage again makes its evidence the newest: bound again, failing as it is.
  ASSERT_EQ(Av("numerics --config " + pkg + "/attnverify.toml").exit_code, 1);
  Av("report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(Check(pkg, "1.base_cases")["status"], "FAIL");
}

TEST_F(RunSealE2E, AStageRunAfterTheEditNeverSealsIt) {
  // attnverify as a signing oracle: edit run.json by hand, then run any stage, which
  // rewrites the ledger sealed. The entries of a ledger whose seal fails are not carried.
  const std::string pkg = MakePackage("repo", kBroken);
  AddConfig(pkg, "av_src.toml", Honest());
  ASSERT_EQ(Av("numerics --config " + pkg + "/av_src.toml").exit_code, 0);
  const std::string saved = dir_.File("saved-numerics.json");
  fs::copy_file(pkg + "/evidence/numerics.json", saved);
  ASSERT_EQ(Av("numerics --config " + pkg + "/attnverify.toml").exit_code, 1);
  const std::string root = dir_.File("repo");
  const std::string git = "git -C '" + root + "' -c user.email=t@example.com -c user.name=t ";
  ASSERT_EQ(testing::RunShell(git + "init -q && " + git + "add -A && " + git +
                              "commit -qm one && echo x > '" + root + "/f.txt' && " + git +
                              "add f.txt && " + git + "commit -qm two")
                .exit_code,
            0);
  for (bool strip : {false, true}) {
    LaunderLedger(pkg, saved, strip);
    testing::CommandResult slice = Av("slice --config " + pkg + "/attnverify.toml");
    ASSERT_EQ(slice.exit_code, 0) << slice.output;
    json ledger = json::parse(*ReadFileToString(pkg + "/evidence/run.json"));
    ASSERT_EQ(ledger["stages"].size(), 1u) << ledger.dump();
    EXPECT_EQ(ledger["stages"][0]["name"], "slice");
    Av("report --config " + pkg + "/attnverify.toml");
    EXPECT_EQ(Check(pkg, "1.base_cases")["status"], "MISSING") << strip;
    EXPECT_NE(Verdict(pkg), "accepted");
  }
}

}  // namespace
}  // namespace av
