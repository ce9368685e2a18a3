// The report's parsers: attnverify.toml's [policy] and [report], and the evidence files,
// which must name the file and JSON path of what is wrong, load what is absent as absent,
// and never crash the engine on what they accept.
#include "report/evidence.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "report/checklist_test_util.h"
#include "report/report_config.h"
#include "testing/test_util.h"

namespace av {
namespace {

using report_testing::Compute;
using report_testing::FindCheck;
using report_testing::kConfig;

TEST(ReportConfigTest, UnknownKeysAndBadValuesNameFileLineColumn) {
  Result<ReportConfig> r = ParseReportConfig("[policy]\nrequire = [1]\n", kConfig);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "attention-verify/attnverify.toml:2:1: unknown key \"require\" in [policy]"),
            std::string::npos)
      << r.status().message();
  r = ParseReportConfig("[policy]\nrequired = [1, 9]\n", kConfig);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(":2:16:"), std::string::npos) << r.status().message();
  r = ParseReportConfig("[policy]\nwaive = { \"2.windows\" = \"x\" }\n", kConfig);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown check id \"2.windows\""), std::string::npos)
      << r.status().message();
  r = ParseReportConfig("[report]\nformats = [\"pdf\"]\n", kConfig);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown report format \"pdf\""), std::string::npos);
  r = ParseReportConfig("[slice]\nbase = \"main\"\n[report]\nformats = [\"md\", \"sarif\"]\n",
                        kConfig);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->base_ref, "main");
  EXPECT_EQ(r->formats, (std::vector<std::string>{"md", "sarif"}));
}

TEST(EvidenceParseTest, MalformedEvidenceNamesTheFileAndPath) {
  auto n = ParseNumericsEvidence("{\"cases\": [", "evidence/numerics.json");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(),
            "evidence/numerics.json:1:12: unexpected end of file: expected a value");
  n = ParseNumericsEvidence(R"({"cases": [{"id": "a", "verdict": "pass", "outputs": {}}]})",
                            "evidence/numerics.json");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(),
            "evidence/numerics.json: $.cases[0].outputs: must be an array, got an object");
  n = ParseNumericsEvidence(R"({"schema": "attnverify.resources/1", "cases": []})",
                            "evidence/numerics.json");
  EXPECT_FALSE(n.ok());
  auto r = ParseReviewEvidence(R"({"findings": [{"rule": "x", "severity": "fatal"}]})",
                               "evidence/review.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("evidence/review.json: $.findings[0].severity"),
            std::string::npos);
  r = ParseReviewEvidence(R"({"findings": [{"rule": "x", "severity": "note", "line": "12"}]})",
                          "evidence/review.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "evidence/review.json: $.findings[0].line: must be an integer, got a string");
  auto res = ParseResourcesEvidence(
      R"({"status": "ok", "gates": [{"gate": "g", "passed": "yes"}]})", "evidence/resources.json");
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().message(),
            "evidence/resources.json: $.gates[0].passed: must be true or false, got a string");
  // Optional additions absent, nulls where values are unknown: fine.
  n = ParseNumericsEvidence(
      R"({"cases": [{"id": "a", "verdict": "pass", "group": null, "localisation": null}]})",
      "evidence/numerics.json");
  EXPECT_TRUE(n.ok()) << n.status().message();
}

TEST(EvidenceLoadTest, AbsentFilesAreFineAndBadOnesAreErrors) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("evidence"));
  EvidenceRequest req{dir.path(), kConfig};
  Result<Evidence> ev = LoadEvidence(req);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_FALSE(ev->numerics || ev->resources || ev->review || ev->slice || ev->perf);
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/review.json"), "[1, 2").ok());
  ev = LoadEvidence(req);
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.status().message(),
            "evidence/review.json:1:6: unexpected end of file: expected ',' or ']' in an array");
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/review.json"),
                                  R"({"command": "attnverify review --x"})")
                  .ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/slice.json"),
                                  R"({"schema": "attnverify.slice/1", "base": "HEAD~1",
                                      "base_commit": "", "head_commit": "", "components": []})")
                  .ok());
  ev = LoadEvidence(req);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_EQ(ev->review->file.command, "attnverify review --x");
  EXPECT_EQ(ev->review->file.sha256, Sha256Hex(R"({"command": "attnverify review --x"})"));
  EXPECT_EQ(ev->slice->command, "attnverify slice --config attention-verify/attnverify.toml");
  // run.json: read, and its stage logs checked against their recorded sha256 (item 8).
  std::filesystem::create_directories(dir.File("logs"));
  ASSERT_TRUE(WriteFileAtomically(dir.File("logs/run-build.log"), "$ attnverify build\n").ok());
  ASSERT_TRUE(
      WriteFileAtomically(
          dir.File("evidence/run.json"),
          R"({"schema": "attnverify.run/1", "command": "attnverify run", "config": "/x/attnverify.toml",
                                      "stages": [{"name": "build", "status": "error", "reason": "exit 2: bad",
                                                  "log": "logs/run-build.log", "log_sha256": "00"}]})")
          .ok());
  ev = LoadEvidence(req);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  ASSERT_TRUE(ev->run.has_value());
  EXPECT_EQ(ev->run->Stage("build")->reason, "exit 2: bad");
  bool checked = false;
  for (const ReferencedFile& f : ev->referenced) {
    if (f.path != "logs/run-build.log") continue;
    checked = true;
    EXPECT_TRUE(f.exists);
    EXPECT_EQ(f.expected_sha256, "00");
    EXPECT_EQ(f.actual_sha256, Sha256Hex("$ attnverify build\n"));
  }
  EXPECT_TRUE(checked);
  ChecklistReport r = Compute(*ev);
  EXPECT_EQ(FindCheck(r, "8.files")->status, CheckStatus::kFail);  // the log changed since run.json
}

// Every value of the fixture evidence replaced by each JSON type in turn: the parsers
// either accept the document or name the file, and the engine never crashes on what
// they accept.
void Mutate(const nlohmann::json& root, nlohmann::json& node,
            const std::function<void(const nlohmann::json&)>& visit) {
  static const nlohmann::json kReplacements[] = {
      nullptr, 1, -7, 2.5, "s", nlohmann::json::array(), nlohmann::json::object(), true};
  if (!node.is_object() && !node.is_array()) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    nlohmann::json saved = *it;
    for (const nlohmann::json& r : kReplacements) {
      *it = r;
      visit(root);
    }
    *it = saved;
    Mutate(root, *it, visit);
  }
}

TEST(EvidenceParseTest, NoMutationOfTheFixtureCrashesParserOrEngine) {
  const std::string dir = testing::SourceDir() + "/testdata/report/package/evidence/";
  int accepted = 0, rejected = 0;
  for (const char* name : {"numerics.json", "resources.json", "review.json"}) {
    nlohmann::json doc = nlohmann::json::parse(*ReadFileToString(dir + name));
    const std::string path = std::string("evidence/") + name;
    Mutate(doc, doc, [&](const nlohmann::json& mutated) {
      const std::string text = mutated.dump();
      Evidence ev;
      Status st;
      if (std::string(name) == "numerics.json") {
        auto r = ParseNumericsEvidence(text, path);
        st = r.status();
        if (r.ok()) ev.numerics = *r;
      } else if (std::string(name) == "resources.json") {
        auto r = ParseResourcesEvidence(text, path);
        st = r.status();
        if (r.ok()) ev.resources = *r;
      } else {
        auto r = ParseReviewEvidence(text, path);
        st = r.status();
        if (r.ok()) ev.review = *r;
      }
      if (!st.ok()) {
        ++rejected;
        EXPECT_EQ(st.message().rfind(path + ": ", 0), 0u) << st.message();
        return;
      }
      ++accepted;
      ChecklistReport report = Compute(ev);
      EXPECT_EQ(report.items.size(), 8u);
    });
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace av
