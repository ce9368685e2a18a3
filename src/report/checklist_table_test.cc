// The check table is the one list of checks: its rows are unique and well formed, each
// mask category has a row, waivers accept exactly its ids, and doc/report.md's table of
// items and checks lists exactly its rows, in its order.
#include "report/checklist_table.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/file.h"
#include "report/checklist_internal.h"
#include "report/report_config.h"
#include "testing/test_util.h"

namespace av {
namespace {

using checklist::CheckDef;
using checklist::Checks;

TEST(ChecklistTableTest, RowsAreUniqueWellFormedAndInItemOrder) {
  std::set<std::string_view> ids;
  int last_item = 0;
  for (const CheckDef& def : Checks()) {
    EXPECT_TRUE(ids.insert(def.id).second) << "duplicate " << def.id;
    ASSERT_NE(def.judge, nullptr) << def.id;
    EXPECT_FALSE(def.title.empty()) << def.id;
    EXPECT_GE(def.item, last_item) << def.id << ": rows are grouped by item, in order";
    last_item = def.item;
    EXPECT_EQ(def.id.substr(0, def.id.find('.')), std::to_string(def.item)) << def.id;
    EXPECT_TRUE(IsKnownCheckId(def.id)) << def.id;
    EXPECT_EQ(checklist::FindCheckDef(def.id), &def);
  }
  EXPECT_EQ(last_item, checklist::kItemCount);
  EXPECT_FALSE(IsKnownCheckId("2.windows"));
  EXPECT_EQ(checklist::FindCheckDef("9.nothing"), nullptr);
}

TEST(ChecklistTableTest, EveryMaskCategoryHasExactlyOneRow) {
  std::multiset<int> args;
  for (const CheckDef& def : Checks()) {
    if (def.judge == &checklist::JudgeMaskCategory) args.insert(def.arg);
  }
  for (int k = 0; k < checklist::kMaskCategoryCount; ++k) EXPECT_EQ(args.count(k), 1u) << k;
  EXPECT_EQ(args.size(), static_cast<size_t>(checklist::kMaskCategoryCount));
}

// The check ids of doc/report.md's "Items and checks" table, in the order it lists them.
std::vector<std::string> DocumentedCheckIds() {
  Result<std::string> doc = ReadFileToString(testing::SourceDir() + "/doc/report.md");
  EXPECT_TRUE(doc.ok());
  if (!doc.ok()) return {};
  const size_t begin = doc->find("## Items and checks");
  const size_t end = doc->find("\n## ", begin + 1);
  EXPECT_NE(begin, std::string::npos) << "doc/report.md has no \"## Items and checks\"";
  std::string table = doc->substr(begin, end - begin);
  std::vector<std::string> ids;
  const std::regex row(R"(^\|[^|]*\| `(\d\.[a-z_]+)`)");
  size_t at = 0;
  while (at < table.size()) {
    size_t nl = table.find('\n', at);
    if (nl == std::string::npos) nl = table.size();
    std::string line = table.substr(at, nl - at);
    std::smatch m;
    if (std::regex_search(line, m, row)) ids.push_back(m[1]);
    at = nl + 1;
  }
  return ids;
}

TEST(ChecklistTableTest, DocReportTableListsExactlyTheTableRows) {
  std::vector<std::string> expected;
  for (const CheckDef& def : Checks()) expected.emplace_back(def.id);
  EXPECT_EQ(DocumentedCheckIds(), expected)
      << "doc/report.md, \"Items and checks\": one row per check, in the order of kChecks "
         "(src/report/checklist_table.cc)";
}

}  // namespace
}  // namespace av
