#include "findings/finding_writers.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace av {
namespace {

Finding Sample() {
  Finding f;
  f.id = "F001";
  f.rule = "smem.declaration_changed";
  f.severity = Severity::kWarning;
  f.component = "decode";
  f.file = "csrc/a|b.cu";
  f.line = 12;
  f.end_line = 14;
  f.function = "splitk_kernel";
  f.checklist_item = 3;
  f.related_items = {4};
  f.title = "shared memory changed";
  f.message = "Check the occupancy.";
  f.old_text = "__shared__ float s[64];";
  f.new_text = "__shared__ float s[128];\n__syncthreads();";
  f.verify = {"attnverify", "build", "--config", "my pkg/attnverify.toml"};
  return f;
}

TEST(FindingWritersTest, MarkdownCountsBySeverityAndShowsEachFinding) {
  Finding note = Sample();
  note.id = "F002";
  note.severity = Severity::kNote;
  note.old_text.clear();
  note.new_text.clear();
  const std::string md = FindingsToMarkdown({Sample(), note});
  EXPECT_NE(md.find("2 findings (1 warning, 1 note)."), std::string::npos) << md;
  // The table escapes the pipe in the path; the section names the line range.
  EXPECT_NE(md.find("| F001 | warning | 3 | `smem.declaration_changed` | `csrc/a\\|b.cu:12` |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## F001 shared memory changed — `csrc/a\\|b.cu:12-14`"), std::string::npos);
  EXPECT_NE(md.find("checklist item 3 (also 4), component `decode`."), std::string::npos);
  EXPECT_NE(md.find("```diff\n- __shared__ float s[64];\n+ __shared__ float s[128];\n"
                    "+ __syncthreads();\n```"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Verify: `attnverify build --config 'my pkg/attnverify.toml'`"),
            std::string::npos)
      << md;
  // F002 has no code lines: one diff block only.
  EXPECT_EQ(md.find("```diff"), md.rfind("```diff"));
}

TEST(FindingWritersTest, MarkdownOfNoFindingsIsTheCountAlone) {
  EXPECT_EQ(FindingsToMarkdown({}), "\n0 findings.\n");
  EXPECT_EQ(FindingsDetail({}), "");
}

TEST(FindingWritersTest, MarkdownInlineKeepsCodeSpansWhole) {
  EXPECT_EQ(MarkdownInline("a|b`c\nd"), "a\\|b'c / d");
}

TEST(FindingWritersTest, DeletedFileIsMarkedAsBaseRevision) {
  Finding f = Sample();
  f.side = "base";
  EXPECT_NE(FindingsDetail({f}).find("(base revision: the file is deleted)"), std::string::npos);
}

TEST(FindingWritersTest, SarifHasOneRulePerRuleIdAndARegionPerFinding) {
  Finding second = Sample();
  second.id = "F002";
  second.line = 30;
  second.end_line = 0;  // a one-line finding: the region ends where it starts
  Finding unplaced = Sample();
  unplaced.id = "F003";
  unplaced.rule = "config.tolerance_loosened";
  unplaced.file.clear();
  const nlohmann::json log = FindingsToSarif({Sample(), second, unplaced}, "9.9.9");
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  const nlohmann::json& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "attnverify");
  EXPECT_EQ(run["tool"]["driver"]["version"], "9.9.9");
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 2u);
  EXPECT_EQ(run["tool"]["driver"]["rules"][1]["id"], "config.tolerance_loosened");
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["shortDescription"]["text"], "shared memory changed");
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["properties"]["checklist_item"], 3);
  EXPECT_FALSE(run.contains("properties"));
  const nlohmann::json& results = run["results"];
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["level"], "warning");
  EXPECT_EQ(results[0]["ruleIndex"], 0);
  EXPECT_EQ(results[2]["ruleIndex"], 1);
  EXPECT_EQ(results[0]["message"]["text"],
            "shared memory changed: Check the occupancy. Verify: attnverify build --config "
            "'my pkg/attnverify.toml'");
  const nlohmann::json& where = results[0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(where["artifactLocation"]["uri"], "csrc/a|b.cu");
  EXPECT_EQ(where["region"]["startLine"], 12);
  EXPECT_EQ(where["region"]["endLine"], 14);
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["endLine"], 30);
  EXPECT_FALSE(results[2].contains("locations"));
  EXPECT_EQ(results[0]["properties"]["finding_id"], "F001");
  EXPECT_EQ(results[0]["properties"]["component"], "decode");
  EXPECT_EQ(results[0]["properties"]["checklist_item"], 3);
}

TEST(FindingWritersTest, SarifLogCarriesRunPropertiesWhenGiven) {
  const nlohmann::json log =
      SarifLog("1.0", nlohmann::json::array({SarifRule("checklist/x", "", 2)}),
               nlohmann::json::array(), {{"verdict", "rejected"}});
  EXPECT_EQ(log["runs"][0]["properties"]["verdict"], "rejected");
  EXPECT_EQ(log["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"]["text"],
            "checklist/x");
}

TEST(FindingWritersTest, OneJsonShapeCarriesEveryField) {
  const nlohmann::json j = FindingToJson(Sample());
  for (const char* key :
       {"id", "rule", "severity", "component", "file", "side", "function", "line", "end_line",
        "checklist_item", "related_items", "title", "message", "old", "new", "verify"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["function"], "splitk_kernel");
  EXPECT_EQ(j["verify"],
            nlohmann::json({"attnverify", "build", "--config", "my pkg/attnverify.toml"}));
}

}  // namespace
}  // namespace av
