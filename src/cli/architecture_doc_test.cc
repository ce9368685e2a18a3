// doc/architecture.md's module table held to CMakeLists.txt, which the build enforces: the
// same modules, and each module's "uses" column naming exactly the modules CMake lets it
// use (ATTNVERIFY_USES_<module>). Words in parentheses are notes; cli's "all" is not
// compared. A map that drifts from the build fails here.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::set<std::string> Words(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// ATTNVERIFY_MODULES and every ATTNVERIFY_USES_<m> of CMakeLists.txt.
std::map<std::string, std::set<std::string>> CmakeModules(const std::string& text) {
  std::map<std::string, std::set<std::string>> out;
  std::smatch m;
  const std::regex modules(R"(set\(ATTNVERIFY_MODULES ([^)]*)\))");
  EXPECT_TRUE(std::regex_search(text, m, modules)) << "no ATTNVERIFY_MODULES in CMakeLists.txt";
  for (const std::string& mod : Words(m[1])) out[mod];
  const std::regex uses(R"(set\(ATTNVERIFY_USES_([a-z_]+) ([^)]*)\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), uses); it != std::sregex_iterator();
       ++it) {
    std::string list = (*it)[2];
    if (list == "\"\"") list.clear();
    out[(*it)[1]] = Words(list);
  }
  return out;
}

// The rows "| `m/` | owns | uses |" of architecture.md's module table.
std::map<std::string, std::set<std::string>> DocModules(
    const std::string& text, const std::map<std::string, std::set<std::string>>& known) {
  std::map<std::string, std::set<std::string>> out;
  const std::regex row(R"(\n\| `([a-z_]+)/` \|[^\n]*\| ([^|\n]*) \|)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator();
       ++it) {
    std::string uses = (*it)[2];
    std::string plain;
    int depth = 0;
    for (char c : uses) {
      if (c == '(') ++depth;
      if (depth == 0) plain += (c == ',' ? ' ' : c);
      if (c == ')' && depth > 0) --depth;
    }
    std::set<std::string> named;
    for (const std::string& w : Words(plain)) {
      if (known.count(w)) named.insert(w);
    }
    out[(*it)[1]] = named;
  }
  return out;
}

TEST(ArchitectureDoc, TheModuleTableIsTheBuildsModuleTable) {
  Result<std::string> cmake = ReadFileToString(testing::SourceDir() + "/CMakeLists.txt");
  Result<std::string> doc = ReadFileToString(testing::SourceDir() + "/doc/architecture.md");
  ASSERT_TRUE(cmake.ok() && doc.ok());
  const auto built = CmakeModules(*cmake);
  const auto drawn = DocModules(*doc, built);
  ASSERT_GE(built.size(), 10u);
  for (const auto& [mod, uses] : built) {
    auto it = drawn.find(mod);
    if (it == drawn.end()) {
      ADD_FAILURE() << "doc/architecture.md has no row for `" << mod << "/`";
      continue;
    }
    if (mod == "cli") continue;  // "all"
    EXPECT_EQ(it->second, uses) << "doc/architecture.md's \"uses\" of `" << mod
                                << "/` differs from ATTNVERIFY_USES_" << mod;
  }
  for (const auto& [mod, uses] : drawn) {
    EXPECT_TRUE(built.count(mod)) << "doc/architecture.md lists `" << mod
                                  << "/`, which CMakeLists.txt does not build";
  }
}

}  // namespace
}  // namespace av
