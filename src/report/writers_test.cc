// Golden tests of the writers over the fixture package testdata/report/package
// (UPDATE_GOLDEN=1 rewrites testdata/report/golden/*), the SARIF 2.1.0 shape, and the
// HTML page's self-containment.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file.h"
#include "core/sha256.h"
#include "report/evidence.h"
#include "report/report_config.h"
#include "report/report_writers.h"
#include "schema/run_json.h"
#include "testing/test_util.h"

namespace av {
namespace {

const std::string kPackage = testing::SourceDir() + "/testdata/report/package";
const std::string kGolden = testing::SourceDir() + "/testdata/report/golden/";

// evidence/run.json of the fixture: the ledger `attnverify run` would have left, with the
// sha256 of the fixture's evidence as each stage's outputs. Rewritten with the goldens
// (UPDATE_GOLDEN=1) so that an edited fixture file stays bound to its run.
void RebindFixture() {
  const std::string run_id = "20261201T093000Z-3f9a1c";
  const std::string where = "/home/dev/splitk", package = where + "/attention-verify";
  RunLedger l;
  l.run_id = run_id;
  l.argv = {"attnverify", "run",   "--config", "attention-verify/attnverify.toml",
            "--base",     "HEAD~1"};
  l.cwd = where;
  l.package = package;
  l.config = "attnverify.toml";
  l.base = "HEAD~1";
  const std::pair<const char*, std::vector<std::string>> stages[] = {
      {"slice", {"diff/flashmla.diff"}},
      {"review", {"evidence/review.json"}},
      {"build", {"evidence/resources.json", "logs/build-base.log", "logs/build.log"}},
      {"numerics", {"evidence/heatmaps/attn.causal.o.svg", "evidence/numerics.json"}}};
  for (const auto& [name, outputs] : stages) {
    StageEntry e;
    e.name = name;
    e.run_id = run_id;
    e.argv = {"/usr/local/bin/attnverify", name, "--config", package + "/attnverify.toml"};
    if (e.name == "slice" || e.name == "build") e.argv.insert(e.argv.end(), {"--base", "HEAD~1"});
    e.cwd = where;
    e.package = package;
    e.status =
        e.name == "build" || e.name == "numerics" ? StageStatus::kRejected : StageStatus::kOk;
    e.exit_code = e.status == StageStatus::kOk ? 0 : 1;
    e.started = "2026-12-01T09:30:00Z";
    e.finished = "2026-12-01T09:31:00Z";
    for (const std::string& o : outputs) {
      Result<std::string> sha = Sha256File(kPackage + "/" + o);
      ASSERT_TRUE(sha.ok()) << o;
      e.outputs.push_back({o, *sha});
    }
    l.Put(e);
  }
  l.tool_version = "0.1.0";
  ASSERT_TRUE(
      WriteFileAtomically(kPackage + "/evidence/run.json", RunLedgerToJson(l).dump(2) + "\n").ok());
}

ChecklistReport FixtureReport() {
  if (std::getenv("UPDATE_GOLDEN") != nullptr) RebindFixture();
  Result<std::string> toml = ReadFileToString(kPackage + "/attnverify.toml");
  EXPECT_TRUE(toml.ok());
  Result<ReportConfig> config = ParseReportConfig(*toml, "attention-verify/attnverify.toml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  config->package_dir = kPackage;
  Result<Evidence> ev = LoadEvidence({kPackage, "attention-verify/attnverify.toml"});
  EXPECT_TRUE(ev.ok()) << ev.status().message();
  return ComputeChecklist(*ev, *config, "0.1.0");
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = kGolden + name;
  if (std::getenv("UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(WriteFileAtomically(path, actual).ok());
    return;
  }
  Result<std::string> expected = ReadFileToString(path);
  ASSERT_TRUE(expected.ok()) << path << " missing: run with UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, *expected) << "differs from " << path
                               << " (UPDATE_GOLDEN=1 rewrites it; review the diff)";
}

TEST(ReportWritersTest, FixtureVerdictAndItems) {
  ChecklistReport r = FixtureReport();
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected);
  ASSERT_EQ(r.items.size(), 8u);
  EXPECT_EQ(r.items[0].status, CheckStatus::kFail);  // the causal case
  EXPECT_EQ(r.items[1].status, CheckStatus::kFail);
  EXPECT_EQ(r.items[2].status, CheckStatus::kFail);  // ptxas overflow
  EXPECT_EQ(r.items[4].status, CheckStatus::kPass);  // num_splits at s_k 70 and 140
  EXPECT_EQ(r.items[6].status, CheckStatus::kPass);  // splitk and fallback paths
  EXPECT_EQ(r.items[7].status, CheckStatus::kFail);  // F003 has no verify command
  EXPECT_FALSE(r.items[3].required);
  ASSERT_EQ(r.heatmaps.size(), 1u);
  // resources.json names no command: the report cites the one that writes it, with its base.
  ASSERT_FALSE(r.items[2].checks.empty());
  EXPECT_EQ(r.items[2].checks[0].citations[0].command,
            "attnverify build --config attention-verify/attnverify.toml --base HEAD~1");
}

TEST(ReportWritersTest, MarkdownGolden) {
  ExpectGolden("acceptance.md", WriteAcceptanceMarkdown(FixtureReport()));
}

TEST(ReportWritersTest, JsonGolden) {
  nlohmann::json j = AcceptanceToJson(FixtureReport());
  EXPECT_EQ(j["schema"], "attnverify.acceptance/1");
  ExpectGolden("acceptance.json", j.dump(2) + "\n");
}

TEST(ReportWritersTest, SarifGolden) {
  ExpectGolden("acceptance.sarif", AcceptanceToSarif(FixtureReport()).dump(2) + "\n");
}

// The properties SARIF 2.1.0 requires (sarif-schema-2.1.0.json: sarifLog.version/runs,
// run.tool, tool.driver, toolComponent.name, result.message, message.text or id,
// reportingDescriptor.id, region.startLine >= 1) and the enums we use.
TEST(ReportWritersTest, SarifHasThe210RequiredShape) {
  nlohmann::json s = AcceptanceToSarif(FixtureReport());
  ASSERT_EQ(s["version"], "2.1.0");
  ASSERT_TRUE(s["$schema"].is_string());
  ASSERT_TRUE(s["runs"].is_array());
  ASSERT_EQ(s["runs"].size(), 1u);
  const auto& run = s["runs"][0];
  ASSERT_TRUE(run["tool"]["driver"]["name"].is_string());
  const auto& rules = run["tool"]["driver"]["rules"];
  ASSERT_TRUE(rules.is_array());
  std::set<std::string> rule_ids;
  for (const auto& rule : rules) {
    ASSERT_TRUE(rule["id"].is_string());
    EXPECT_TRUE(rule_ids.insert(rule["id"].get<std::string>()).second)
        << "duplicate rule " << rule["id"];
  }
  ASSERT_TRUE(run["results"].is_array());
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& result : run["results"]) {
    if (result["properties"].contains("finding_id")) findings.push_back(result);
  }
  ASSERT_EQ(findings.size(), 3u);
  const std::set<std::string> levels = {"none", "note", "warning", "error"};
  for (const auto& result : run["results"]) {
    ASSERT_TRUE(result["message"]["text"].is_string());
    EXPECT_TRUE(levels.count(result["level"].get<std::string>()));
    ASSERT_TRUE(rule_ids.count(result["ruleId"].get<std::string>()));
    EXPECT_EQ(rules[result["ruleIndex"].get<size_t>()]["id"], result["ruleId"]);
    for (const auto& loc : result["locations"]) {
      const auto& phys = loc["physicalLocation"];
      ASSERT_TRUE(phys["artifactLocation"]["uri"].is_string());
      EXPECT_FALSE(phys["artifactLocation"]["uri"].get<std::string>().empty());
      if (!phys.contains("region")) continue;  // a checklist result names a whole file
      EXPECT_GE(phys["region"]["startLine"].get<int>(), 1);
      EXPECT_GE(phys["region"]["endLine"].get<int>(), phys["region"]["startLine"].get<int>());
    }
  }
  EXPECT_EQ(findings[1]["level"], "error");
  EXPECT_EQ(findings[1]["locations"][0]["physicalLocation"]["region"]["endLine"], 90);
}

// Code scanning showed a rejected change as its two review warnings: acceptance.sarif held
// none of the FAIL items. Every FAIL check is an error result with a location, and every
// MISSING check of a required item a warning.
TEST(ReportWritersTest, SarifCarriesEveryFailingCheck) {
  const ChecklistReport report = FixtureReport();
  nlohmann::json s = AcceptanceToSarif(report);
  std::map<std::string, nlohmann::json> by_rule;
  for (const auto& result : s["runs"][0]["results"]) {
    by_rule[result["ruleId"].get<std::string>()] = result;
  }
  int failing = 0;
  for (const ItemResult& item : report.items) {
    for (const Check& c : item.checks) {
      const bool missing = c.status == CheckStatus::kMissing && c.required && item.required;
      if (c.status != CheckStatus::kFail && !missing) {
        EXPECT_FALSE(by_rule.count("checklist/" + c.id)) << c.id;
        continue;
      }
      if (c.status == CheckStatus::kFail) ++failing;
      ASSERT_TRUE(by_rule.count("checklist/" + c.id)) << c.id << " is not in the SARIF";
      const auto& result = by_rule["checklist/" + c.id];
      EXPECT_EQ(result["level"], c.status == CheckStatus::kFail ? "error" : "warning");
      EXPECT_NE(result["message"]["text"].get<std::string>().find(c.title), std::string::npos);
      const std::string uri =
          result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
      EXPECT_FALSE(uri.empty());
      EXPECT_NE(uri[0], '/') << "a machine path in the SARIF: " << uri;
    }
  }
  EXPECT_GT(failing, 0) << "the fixture package is meant to be rejected";
  EXPECT_EQ(s["runs"][0]["properties"]["verdict"], ReportVerdictName(report.verdict));
}

TEST(ReportWritersTest, HtmlIsSelfContained) {
  std::string html = WriteAcceptanceHtml(FixtureReport());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"numerics coverage\""), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"shared memory per kernel\""), std::string::npos);
  EXPECT_NE(html.find("147456 -&gt; 294912 B / cap 232448 (ptxas overflow)"), std::string::npos);
  EXPECT_NE(html.find("src=\"data:image/svg+xml;base64,PHN2Zy"),
            std::string::npos);  // "<svg" in base64
  EXPECT_NE(html.find("Verdict: <b>rejected</b>"), std::string::npos);
}

}  // namespace
}  // namespace av
