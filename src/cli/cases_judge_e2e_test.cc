// attnverify cases and judge (the pytest plugin's two commands), as real processes on
// real files: the export is byte for byte what the judge regenerates, outputs written
// into the export are judged by numerics' rules, a case without outputs fails, and bad
// input is a clear exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

std::string Av() { return std::string(ATTNVERIFY_BINARY); }
std::string Sweep() {
  return " --shapes " + SourceDir() + "/testdata/python/shapes.json --tolerances " + SourceDir() +
         "/testdata/python/tolerances.json";
}

json ReadJson(const std::string& path) {
  Result<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? json::parse(*text) : json::object();
}

// The numpy example candidate over an exported folder, as a pytest test would.
testing::CommandResult RunNumpyCandidate(const std::string& exported) {
  const std::string python = testing::FindPythonWithNumpy();
  if (python.empty()) return {127, "no python3 with numpy (Debian python3-numpy)"};
  return RunShell(python + " " + SourceDir() + "/examples/candidates/numpy_candidate.py " +
                  exported + "/cases.json");
}

TEST(CasesJudge, ExportedOutputsAreJudgedAsNumericsJudgesThem) {
  TempDir dir;
  const std::string exp = dir.File("exp");
  testing::CommandResult r =
      RunShell(Av() + " cases" + Sweep() + " --filter '^attn\\.(?!drawn)' --export " + exp);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("5 cases written"), std::string::npos) << r.output;
  r = RunNumpyCandidate(exp);
  if (r.exit_code != 0) GTEST_SKIP() << "python3 with numpy is needed: " << r.output;
  r = RunShell(Av() + " judge" + Sweep() + " --filter '^attn\\.(?!drawn)' --outputs " + exp +
               " --evidence " + dir.File("ev/numerics.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json doc = ReadJson(dir.File("ev/numerics.json"));
  EXPECT_EQ(doc["schema"], "attnverify.numerics/2");
  EXPECT_EQ(doc["provenance"]["stage"], "numerics");
  EXPECT_EQ(doc["verdict"], "pass");
  ASSERT_EQ(doc["cases"].size(), 5u);
  for (const json& c : doc["cases"]) {
    // The judge's regenerated inputs are the exported bytes.
    json exported = ReadJson(exp + "/cases/" + c["id"].get<std::string>() + "/case.json");
    EXPECT_EQ(c["sha256"]["inputs"], exported["inputs_sha256"]) << c["id"];
    EXPECT_EQ(c["candidate"]["metadata"]["kernel"], "numpy_reference");
  }
  EXPECT_TRUE(std::filesystem::exists(dir.File("ev/numerics.junit.xml")));
}

TEST(CasesJudge, ACaseWithoutOutputsFailsAndAWrongOneFailsAlone) {
  TempDir dir;
  const std::string exp = dir.File("exp");
  ASSERT_EQ(RunShell(Av() + " cases" + Sweep() + " --filter '^gemm8\\.(?!drawn)' --export " + exp).exit_code,
            0);
  testing::CommandResult r = RunNumpyCandidate(exp);
  if (r.exit_code != 0) GTEST_SKIP() << "python3 with numpy is needed: " << r.output;
  const std::string first = "gemm8.k=200.m=3.n=130.f8_e4m3fn.s0";
  const std::string second = "gemm8.k=128.m=129.n=64.ue8m0=true.f8_e4m3fn.s0";
  std::filesystem::remove_all(exp + "/cases/" + second + "/out");
  // Evidence outside the package: the failing case's heatmap lands there too.
  r = RunShell(Av() + " judge" + Sweep() + " --outputs " + exp + " --filter '^gemm8\\.(?!drawn)' --evidence " +
               dir.File("numerics.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  json doc = ReadJson(dir.File("numerics.json"));
  ASSERT_EQ(doc["cases"].size(), 2u);
  EXPECT_EQ(doc["cases"][0]["id"], first);
  EXPECT_EQ(doc["cases"][0]["verdict"], "pass") << doc["cases"][0]["reason"];
  EXPECT_EQ(doc["cases"][1]["verdict"], "fail");
  EXPECT_NE(doc["cases"][1]["reason"].get<std::string>().find("no output"), std::string::npos)
      << doc["cases"][1]["reason"];
}

// The workflow's command names shapes.json inside a package: that package's toml applies
// (its evidence path here), as it does for `numerics`.
TEST(CasesJudge, ShapesInsideAPackageUseItsToml) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("pkg/config"));
  for (const char* f : {"shapes.json", "tolerances.json"}) {
    std::filesystem::copy_file(SourceDir() + "/testdata/python/" + f, dir.File("pkg/config/") + f);
  }
  ASSERT_TRUE(WriteFileAtomically(dir.File("pkg/attnverify.toml"),
                                  "[numerics]\nreference = \"fast\"\nevidence = \"ev/n.json\"\n")
                  .ok());
  const std::string sweep = " --shapes " + dir.File("pkg/config/shapes.json") + " --tolerances " +
                            dir.File("pkg/config/tolerances.json") + " --filter '^gemm8\\.(?!drawn)'";
  ASSERT_EQ(RunShell(Av() + " cases" + sweep + " --export " + dir.File("exp")).exit_code, 0);
  testing::CommandResult r = RunShell(Av() + " judge" + sweep + " --outputs " + dir.File("exp"));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // no outputs were written
  json doc = ReadJson(dir.File("pkg/ev/n.json"));
  EXPECT_EQ(doc["summary"]["cases_run"], 2) << r.output;
}

// Each export draws its own salt (fresh inputs, and the run's drawn cases), stamped into
// cases.json, and judge generates that export's cases again: outputs a test cached from an
// earlier export, keyed by its inputs, answer other inputs today and fail.
TEST(CasesJudge, EachExportHasFreshInputsAndOutputsOfAnEarlierExportFail) {
  TempDir dir;
  const std::string a = dir.File("a"), b = dir.File("b");
  const std::string filter = " --filter '^attn\\.'";
  ASSERT_EQ(RunShell(Av() + " cases" + Sweep() + filter + " --export " + a).exit_code, 0);
  testing::CommandResult r = RunShell(Av() + " cases" + Sweep() + filter + " --export " + b);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 drawn"), std::string::npos) << r.output;
  json index_a = ReadJson(a + "/cases.json"), index_b = ReadJson(b + "/cases.json");
  ASSERT_TRUE(index_a["salt"].is_string()) << index_a.dump();
  EXPECT_NE(index_a["salt"], index_b["salt"]);
  EXPECT_EQ(index_b["drawn_cases"], 2);
  // A listed (not drawn) case: both exports have it, under the same id.
  std::string listed;
  for (const json& c : index_a["cases"]) {
    const std::string id = c["id"];
    if (id.find("drawn") == std::string::npos) listed = id;
  }
  ASSERT_FALSE(listed.empty()) << index_a.dump();
  ASSERT_TRUE(std::filesystem::exists(b + "/cases/" + listed + "/case.json")) << listed;
  EXPECT_NE(ReadJson(a + "/cases/" + listed + "/case.json")["inputs_sha256"],
            ReadJson(b + "/cases/" + listed + "/case.json")["inputs_sha256"]);
  // --salt repeats an export exactly.
  r = RunShell(Av() + " cases" + Sweep() + filter + " --salt " +
               index_a["salt"].get<std::string>() + " --export " + dir.File("a2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadJson(a + "/cases/" + listed + "/case.json")["inputs_sha256"],
            ReadJson(dir.File("a2") + "/cases/" + listed + "/case.json")["inputs_sha256"]);

  r = RunNumpyCandidate(a);
  if (r.exit_code != 0) GTEST_SKIP() << "python3 with numpy is needed: " << r.output;
  r = RunShell(Av() + " judge" + Sweep() + filter + " --outputs " + a + " --evidence " +
               dir.File("ev-a/numerics.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;  // drawn cases included: the honest answers pass
  json doc = ReadJson(dir.File("ev-a/numerics.json"));
  EXPECT_EQ(doc["config"]["salt"], index_a["salt"]);
  // The replay: yesterday's outputs put into today's export, case by case.
  for (const json& c : index_b["cases"]) {
    const std::string id = c["id"];
    std::error_code ec;
    std::filesystem::copy(a + "/cases/" + id + "/out", b + "/cases/" + id + "/out",
                          std::filesystem::copy_options::overwrite_existing, ec);
  }
  r = RunShell(Av() + " judge" + Sweep() + filter + " --outputs " + b + " --evidence " +
               dir.File("ev-b/numerics.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  doc = ReadJson(dir.File("ev-b/numerics.json"));
  int failed = 0;
  for (const json& c : doc["cases"]) failed += c["verdict"] == "fail";
  EXPECT_EQ(failed, static_cast<int>(doc["cases"].size())) << doc["summary"];
}

// An export is made on one machine, run on a GPU box and judged back: its folders are
// relative, so a moved export is read where it lies, and the judge finds the outputs there.
TEST(CasesJudge, AnExportMovedToAnotherFolderRunsAndIsJudgedThere) {
  TempDir dir;
  const std::string filter = " --filter '^attn\\.(?!drawn)'";
  const std::string made = dir.File("laptop/exp"), moved = dir.File("gpubox/exp");
  ASSERT_EQ(RunShell(Av() + " cases" + Sweep() + filter + " --export " + made).exit_code, 0);
  json index = ReadJson(made + "/cases.json");
  ASSERT_FALSE(index["cases"].empty());
  for (const json& c : index["cases"]) {
    EXPECT_EQ(c["dir"], "cases/" + c["id"].get<std::string>());
    EXPECT_EQ(ReadJson(made + "/" + c["dir"].get<std::string>() + "/case.json")["out_dir"], "out");
  }
  std::filesystem::create_directories(dir.File("gpubox"));
  std::filesystem::rename(made, moved);
  testing::CommandResult r = RunNumpyCandidate(moved);
  if (r.exit_code == 127) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const json& c : index["cases"]) {
    EXPECT_TRUE(std::filesystem::exists(moved + "/cases/" + c["id"].get<std::string>() +
                                        "/out/outputs.safetensors"))
        << c["id"];
  }
  r = RunShell(Av() + " judge" + Sweep() + filter + " --outputs " + moved + " --evidence " +
               dir.File("ev/numerics.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadJson(dir.File("ev/numerics.json"))["verdict"], "pass");
}

TEST(CasesJudge, OneCaseByIdAndItsGroupsBase) {
  TempDir dir;
  const std::string id =
      "mla.b=2.d=64.dv=32.h_q=4.padded=true.page_size=16.s_k=40.s_q=1.bf16.s0.num_splits=2";
  testing::CommandResult r = RunShell(Av() + " cases" + Sweep() + " --list --case " + id);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "mla.b=2.d=64.dv=32.h_q=4.padded=true.page_size=16.s_k=40.s_q=1.bf16.s0\n" + id + "\n");
}

TEST(CasesJudge, BadInputIsExit2NamingWhatIsWrong) {
  TempDir dir;
  testing::CommandResult r = RunShell(Av() + " judge" + Sweep() + " --outputs " + dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no cases/ folder in it"), std::string::npos) << r.output;
  r = RunShell(Av() + " cases" + Sweep() + " --list --case 'a/../b'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("not a case id"), std::string::npos) << r.output;
  r = RunShell(Av() + " cases --shapes " + dir.File("none.json") + " --tolerances x --list");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("none.json: no such file"), std::string::npos) << r.output;
  r = RunShell(Av() + " cases" + Sweep() + " --filter 'nothing_matches' --list");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("matches none of the 15 cases"), std::string::npos) << r.output;
  r = RunShell(Av() + " cases" + Sweep());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("give --export DIR, --list or --shard-plan N"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace av
