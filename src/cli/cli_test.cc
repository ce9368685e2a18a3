// End-to-end: the real attnverify binary on real files (the bundled example).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/sha256.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;

std::string Av() { return ATTNVERIFY_BINARY; }
std::string Example(const std::string& file) {
  return testing::SourceDir() + "/examples/compare/" + file;
}

TEST(CliTest, VersionAndHelp) {
  auto v = RunShell(Av() + " --version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.output.find("attnverify 0."), std::string::npos) << v.output;
  auto h = RunShell(Av() + " help");
  EXPECT_EQ(h.exit_code, 0);
  for (const auto& c : cli::Commands()) {
    EXPECT_NE(h.output.find(std::string(c.name)), std::string::npos) << c.name;
  }
  auto hc = RunShell(Av() + " help compare");
  EXPECT_EQ(hc.exit_code, 0);
  EXPECT_NE(hc.output.find("lowprec_multiple"), std::string::npos) << hc.output;
  EXPECT_EQ(RunShell(Av()).exit_code, 2);
}

TEST(CliTest, TypoGetsDidYouMean) {
  auto r = RunShell(Av() + " compair a b");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("did you mean compare?"), std::string::npos) << r.output;
  EXPECT_EQ(cli::SuggestCommands("verison"), (std::vector<std::string>{"version"}));
  EXPECT_TRUE(cli::SuggestCommands("zzzzzzzz").empty());
}

TEST(CliTest, FixedKernelPassesAndWritesJson) {
  testing::TempDir dir;
  auto r = RunShell(Av() + " compare " + Example("candidate_fixed.safetensors:o") + " " +
                    Example("reference.safetensors:o") + " --lowprec-ref " +
                    Example("lowprec.safetensors:o") + " --json " + dir.File("r.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("PASS  rule lowprec_multiple", 0), 0u) << r.output;
  std::ifstream in(dir.File("r.json"));
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "attnverify.compare/2");
  EXPECT_EQ(j["verdict"], "pass");
  EXPECT_EQ(j["inputs"]["candidate"]["dtype"], "bf16");
  EXPECT_EQ(j["inputs"]["reference"]["shape"], nlohmann::json({2, 2, 16, 32}));
  EXPECT_GT(j["lowprec"]["max_abs"].get<double>(), 0.0);
  // Evidence names the bytes it judged and the command that judged them.
  EXPECT_EQ(j["inputs"]["reference"]["file_sha256"], *Sha256File(Example("reference.safetensors")));
  EXPECT_EQ(j["inputs"]["lowprec_reference"]["file_sha256"],
            *Sha256File(Example("lowprec.safetensors")));
  EXPECT_EQ(j["provenance"]["argv"][0], "attnverify");
  EXPECT_EQ(j["provenance"]["argv"][1], "compare");
  EXPECT_EQ(j["provenance"]["stage"], "compare");
  EXPECT_EQ(j["provenance"]["inputs"].size(), 3u);  // candidate, reference, lowprec files
}

TEST(CliTest, MaskBugFailsAndIsLocalisedToQueryRowZero) {
  testing::TempDir dir;
  auto r = RunShell(Av() + " compare " + Example("candidate_buggy.safetensors:o") + " " +
                    Example("reference.safetensors:o") + " --lowprec-ref " +
                    Example("lowprec.safetensors:o") + " --json " + dir.File("r.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL: max |cand - ref|"), std::string::npos) << r.output;
  std::ifstream in(dir.File("r.json"));
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["verdict"], "fail");
  // Axis 1 is the query row: every mismatch sits in row 0, the row the dropped mask exposes.
  const auto& axis1 = j["breakdown"]["axes"][1];
  EXPECT_EQ(axis1["indices_touched"], 1);
  EXPECT_EQ(axis1["top"][0]["begin"], 0);
  EXPECT_DOUBLE_EQ(axis1["top"][0]["fraction"].get<double>(), 1.0);
  EXPECT_EQ(j["worst_abs"][0]["index"][1], 0);
}

TEST(CliTest, BadInputsExitTwoAndNameTheFile) {
  testing::TempDir dir;
  auto missing = RunShell(Av() + " compare " + dir.File("nope.npy") + " " + dir.File("x.npy"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("nope.npy"), std::string::npos) << missing.output;

  auto no_tensor = RunShell(Av() + " compare " + Example("reference.safetensors:out") + " " +
                            Example("reference.safetensors:o"));
  EXPECT_EQ(no_tensor.exit_code, 2);
  EXPECT_NE(no_tensor.output.find("present: "), std::string::npos) << no_tensor.output;

  auto shape = RunShell(Av() + " compare " + Example("reference.safetensors:o") + " " +
                        Example("reference.safetensors:lse"));
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_NE(shape.output.find("shape mismatch"), std::string::npos) << shape.output;

  auto rule = RunShell(Av() + " compare " + Example("reference.safetensors:o") + " " +
                       Example("reference.safetensors:o") + " --rule allclsoe");
  EXPECT_EQ(rule.exit_code, 2);
  EXPECT_NE(rule.output.find("unknown rule"), std::string::npos) << rule.output;

  auto flag = RunShell(Av() + " compare " + Example("reference.safetensors:o") + " " +
                       Example("reference.safetensors:o") + " --k 3");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.output.find("takes no --k"), std::string::npos) << flag.output;

  std::ofstream(dir.File("garbage.safetensors")) << "not a safetensors file";
  auto garbage = RunShell(Av() + " compare " + dir.File("garbage.safetensors") + " " +
                          Example("reference.safetensors:o"));
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.output.find("garbage.safetensors"), std::string::npos) << garbage.output;
}

TEST(CliTest, FailedRunLeavesAnEarlierReportIntact) {
  testing::TempDir dir;
  std::ofstream(dir.File("r.json")) << "previous";
  auto r = RunShell(Av() + " compare " + dir.File("nope.npy") + " " +
                    Example("reference.safetensors:o") + " --json " + dir.File("r.json"));
  EXPECT_EQ(r.exit_code, 2);
  std::ifstream in(dir.File("r.json"));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "previous");
}

}  // namespace
}  // namespace av
