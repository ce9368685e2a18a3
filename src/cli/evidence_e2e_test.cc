// End-to-end regressions for evidence files (issue 11 M1, M2, L9; issue 12 commands as
// argv): the real attnverify binary on real packages. No input or string may abort
// attnverify (exit 134); every evidence file records its argv and package-relative paths.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/json_reader.h"
#include "core/shell_quote.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

constexpr const char* kShapes = R"({"version": 1, "sweeps": [
  {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}], "dtypes": ["f32"]}]})";
constexpr const char* kTolerances =
    R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})";

// A package folder `root` (created) with a one-case gemm sweep whose candidate is the
// TOML array `candidate`.
void WritePackage(const std::string& root, const std::string& candidate) {
  fs::create_directories(root + "/config");
  ASSERT_TRUE(WriteFileAtomically(root + "/config/shapes.json", kShapes).ok());
  ASSERT_TRUE(WriteFileAtomically(root + "/config/tolerances.json", kTolerances).ok());
  ASSERT_TRUE(WriteFileAtomically(root + "/attnverify.toml",
                                  "[numerics]\nshapes = \"config/shapes.json\"\n"
                                  "tolerances = \"config/tolerances.json\"\n"
                                  "[candidate]\ncommand = " +
                                      candidate + "\ntimeout_s = 30\n")
                  .ok());
}

std::string CpuCandidate() {
  return "[\"" + std::string(ATTNVERIFY_CPU_CANDIDATE) + "\", \"{cases}\"]";
}

// `argv` run by /bin/sh after cd'ing into `cwd`; argv[0] "attnverify" is the binary.
testing::CommandResult RunAv(const std::string& cwd, std::vector<std::string> argv) {
  argv[0] = ATTNVERIFY_BINARY;
  return RunShell("cd " + ShellQuote(cwd) + " && " + ShellJoin(argv));
}

// The evidence file at `path`, parsed strictly (it must be valid UTF-8 JSON).
json ReadEvidence(const std::string& path) {
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    ADD_FAILURE() << text.status().message();
    return json::object();
  }
  Result<json> doc = ParseJson(*text, path);
  if (!doc.ok()) {
    ADD_FAILURE() << doc.status().message();
    return json::object();
  }
  return *doc;
}

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// M1 trigger 1: the evidence of the whole sweep was lost (SIGABRT in the JSON writer).
TEST(JsonRegression, InvalidUtf8CandidateStderrIsWrittenNotAborted) {
  TempDir dir;
  WritePackage(
      dir.path(),
      R"(["/bin/sh", "-c", "printf 'error: \\377\\376 bad bytes\\n' >&2; exit 1", "{cases}"])");
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "numerics", "--config", "attnverify.toml"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  json n = ReadEvidence(dir.File("evidence/numerics.json"));
  ASSERT_EQ(n["cases"].size(), 1u);
  const std::string tail = n["cases"][0]["candidate"]["stderr_tail"];
  EXPECT_NE(tail.find(std::string("error: ") + kReplacement), std::string::npos) << tail;
  // The JUnit file is UTF-8 too.
  Result<std::string> junit = ReadFileToString(dir.File("evidence/numerics.junit.xml"));
  if (junit.ok()) EXPECT_EQ(junit->find('\xff'), std::string::npos);
}

// M1 trigger 2: valid UTF-8 stderr whose 2000-byte tail starts inside a character.
TEST(JsonRegression, StderrTailCutInsideACharacterIsWritten) {
  TempDir dir;
  // 1500 times "ä" (2 bytes) and a newline: the tail starts at byte 1001, a continuation byte.
  WritePackage(
      dir.path(),
      R"(["/bin/sh", "-c", "i=0; while [ $i -lt 1500 ]; do printf '\\303\\244' >&2; i=$((i+1)); done; echo >&2; exit 1", "{cases}"])");
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "numerics", "--config", "attnverify.toml"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  json n = ReadEvidence(dir.File("evidence/numerics.json"));
  ASSERT_EQ(n["cases"].size(), 1u);
  const std::string tail = n["cases"][0]["candidate"]["stderr_tail"];
  EXPECT_GT(tail.size(), 1000u);
  EXPECT_NE(tail.find("\xc3\xa4"), std::string::npos);
}

// M1 trigger 4: a package in a folder whose name is Latin-1, not UTF-8. The run aborted
// (SIGABRT in the JSON writer), then, once it wrote evidence, the candidate could not find
// its cases: cases.json held the folders as JSON strings with U+FFFD in place of the byte.
TEST(JsonRegression, Latin1PackageFolderCandidateFindsItsCases) {
  TempDir dir;
  const std::string root = dir.File("dir_\xe9");
  WritePackage(root, CpuCandidate());
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "numerics", "--config", root + "/attnverify.toml"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  json n = ReadEvidence(root + "/evidence/numerics.json");
  EXPECT_EQ(n["verdict"], "pass") << n.dump().substr(0, 2000);
  // Inside the package, recorded paths are relative: the bad bytes stay out of them.
  EXPECT_EQ(n["config"]["shapes"], "config/shapes.json");
  const std::string config_arg = n["provenance"]["argv"][3];
  EXPECT_NE(config_arg.find(std::string("dir_") + kReplacement), std::string::npos);
  // The protocol names the folders relative to the file that names them.
  json index = ReadEvidence(root + "/work/cases.json");
  ASSERT_FALSE(index["cases"].empty());
  const std::string id = index["cases"][0]["id"];
  EXPECT_EQ(index["cases"][0]["dir"], "cases/" + id);
  EXPECT_EQ(index["cases"][0]["out_dir"], "cases/" + id + "/out");
  EXPECT_EQ(ReadEvidence(root + "/work/cases/" + id + "/case.json")["out_dir"], "out");
  r = RunAv(dir.path(), {"attnverify", "report", "--config", root + "/attnverify.toml"});
  EXPECT_LE(r.exit_code, 1) << r.output;  // the report judges; no crash
  EXPECT_TRUE(fs::exists(root + "/reports/acceptance.json"));
}

// The same package in a UTF-8 folder keeps absolute folders (candidates written against
// them go on working).
TEST(JsonRegression, Utf8PackageFolderKeepsAbsoluteCaseFolders) {
  TempDir dir;
  const std::string root = dir.File("dir_\xc3\xa9");
  WritePackage(root, CpuCandidate());
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "numerics", "--config", root + "/attnverify.toml"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  json index = ReadEvidence(root + "/work/cases.json");
  ASSERT_FALSE(index["cases"].empty());
  const std::string case_dir = index["cases"][0]["dir"];
  EXPECT_EQ(case_dir.rfind(root + "/work/cases/", 0), 0u) << case_dir;
  EXPECT_EQ(ReadEvidence(case_dir + "/case.json")["out_dir"], case_dir + "/out");
}

// M1 trigger 3's kind: any argument that is not UTF-8 reaches the evidence as argv.
TEST(JsonRegression, NonUtf8ArgumentIsRecordedNotAborted) {
  TempDir dir;
  const std::string log = dir.File("ci_\xff.log");
  fs::copy_file(SourceDir() + "/testdata/ptxas_log/smem_over_sm90a.log", log);
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "build", "--import", log, "--out", dir.File("pkg")});
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the log's kernel is over the cap
  json res = ReadEvidence(dir.File("pkg/evidence/resources.json"));
  const std::string recorded = res["provenance"]["argv"][3];
  EXPECT_NE(recorded.find(std::string("ci_") + kReplacement), std::string::npos);
  EXPECT_EQ(res["provenance"]["stage"], "build");
}

// M2: 1e400 in any JSON file the tool reads aborted it (out_of_range.406).
TEST(JsonRegression, NumberOutOfRangeIsExitTwoWithFileLineAndColumn) {
  TempDir dir;
  WritePackage(dir.path(), CpuCandidate());
  ASSERT_TRUE(WriteFileAtomically(dir.File("config/shapes.json"),
                                  "{\"version\": 1,\n \"sweeps\": [], \"x\": 1e400}")
                  .ok());
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "numerics", "--config", "attnverify.toml"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("shapes.json:2:21: number out of range: 1e400"), std::string::npos)
      << r.output;
  // In evidence the report reads.
  fs::create_directories(dir.File("evidence"));
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("evidence/numerics.json"), "{\"zz\": 1e400, \"cases\": []}")
          .ok());
  r = RunAv(dir.path(), {"attnverify", "report", "--config", "attnverify.toml"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("evidence/numerics.json:1:8: number out of range"), std::string::npos)
      << r.output;
}

// L9: "sweeps": [...], "sweeps": [] ran 0 cases with exit 0.
TEST(JsonRegression, DuplicateKeyInShapesJsonIsExitTwo) {
  TempDir dir;
  WritePackage(dir.path(), CpuCandidate());
  ASSERT_TRUE(WriteFileAtomically(dir.File("config/shapes.json"),
                                  std::string(kShapes).substr(0, std::string(kShapes).size() - 1) +
                                      ", \"sweeps\": []}")
                  .ok());
  testing::CommandResult r =
      RunAv(dir.path(), {"attnverify", "numerics", "--config", "attnverify.toml"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("duplicate key \"sweeps\" (first at 1:16)"), std::string::npos)
      << r.output;
}

// Issue 12's bug: commands were space-joined, then split on spaces, so a package in
// `attention verify` became "--config attention". Every evidence file now records the
// argv exactly, its inputs package-relative, and the argv renders back through a shell.
TEST(CommandsAsArgv, PackageInAFolderWithSpacesQuotesAndNonAsciiIsRecordedExactly) {
  TempDir dir;
  const std::string folder = "attention verify 'q' \xc3\xbc";
  const std::string root = dir.File(folder);
  WritePackage(root, CpuCandidate());
  const std::string config = folder + "/attnverify.toml";
  fs::create_directories(root + "/logs");
  fs::copy_file(SourceDir() + "/testdata/ptxas_log/smem_over_sm90a.log", root + "/logs/ci.log");
  ASSERT_TRUE(
      WriteFileAtomically(root + "/x.diff", "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-a\n+b\n").ok());
  struct Stage {
    std::vector<std::string> argv;
    std::string evidence;
    int exit_code;
  };
  const std::vector<Stage> stages = {
      {{"attnverify", "numerics", "--config", config}, "evidence/numerics.json", 0},
      {{"attnverify", "build", "--config", config, "--import", folder + "/logs/ci.log"},
       "evidence/resources.json",
       1},
      {{"attnverify", "review", "--config", config, "--diff", folder + "/x.diff"},
       "evidence/review.json",
       0},
      {{"attnverify", "merge", folder + "/evidence/numerics.json", "--out",
        folder + "/evidence/merged.json"},
       "evidence/merged.json",
       0},
  };
  for (const Stage& s : stages) {
    testing::CommandResult r = RunAv(dir.path(), s.argv);
    EXPECT_EQ(r.exit_code, s.exit_code) << ShellJoin(s.argv) << "\n" << r.output;
    json doc = ReadEvidence(root + "/" + s.evidence);
    const json& p = doc["provenance"];
    EXPECT_EQ(p["argv"].get<std::vector<std::string>>(), s.argv) << s.evidence;
    EXPECT_EQ(p["cwd"], fs::canonical(dir.path()).string()) << s.evidence;
    if (s.argv[1] != "merge") EXPECT_EQ(p["config"], "attnverify.toml") << s.evidence;
    EXPECT_FALSE(p["run_id"].get<std::string>().empty()) << s.evidence;
    for (const json& in : p["inputs"]) {
      const std::string path = in["path"];
      EXPECT_NE(path.front(), '/') << s.evidence << ": " << path;  // all inside the package
      EXPECT_TRUE(fs::exists(root + "/" + path)) << s.evidence << ": " << path;
      EXPECT_EQ(in["sha256"].get<std::string>().size(), 64u);
    }
    // The rendered line, given to a shell, is the same argv again.
    testing::CommandResult echo =
        RunShell("printf '%s\\n' " + ShellJoin(p["argv"].get<std::vector<std::string>>()));
    std::string expected;
    for (const std::string& a : s.argv) expected += a + "\n";
    EXPECT_EQ(echo.output, expected);
  }
  json n = ReadEvidence(root + "/evidence/numerics.json");
  EXPECT_EQ(n["config"]["shapes"], "config/shapes.json");  // L2: no absolute path
  EXPECT_EQ(n["config"]["attnverify_toml"], "attnverify.toml");
  json res = ReadEvidence(root + "/evidence/resources.json");
  // Relative to the package, not the cwd (an imported log is copied to logs/build.log).
  EXPECT_EQ(res["head"]["log"], "logs/build.log");
  json merged = ReadEvidence(root + "/evidence/merged.json");
  EXPECT_EQ(merged["shard"]["merged_from"][0]["path"], "evidence/numerics.json");
  json review = ReadEvidence(root + "/evidence/review.json");
  EXPECT_EQ(review["schema"], "attnverify.review/2");
}

}  // namespace
}  // namespace av
