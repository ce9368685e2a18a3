// Commands in the reports are argv rendered with POSIX quoting (issue 12): with the package
// in a folder named `attention verify 'q' ü`, every attnverify command in acceptance.md,
// .json, .html and .sarif must split, in a shell, into words whose --config is the path
// the user typed, and that path must name the package's attnverify.toml. Real processes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

const std::string kFolder = "attention verify 'q' \xc3\xbc";  // ü in UTF-8
const std::string kConfig = kFolder + "/attnverify.toml";

// POSIX single quotes, for building the test's own shell lines.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The words a shell makes of `command` (run in `cwd`), one per line.
std::vector<std::string> ShellWords(const std::string& cwd, const std::string& command) {
  auto r = RunShell("cd " + Quote(cwd) + " && printf '%s\\n' " + command);
  std::vector<std::string> words;
  size_t at = 0;
  while (at < r.output.size()) {
    size_t nl = r.output.find('\n', at);
    if (nl == std::string::npos) nl = r.output.size();
    words.push_back(r.output.substr(at, nl - at));
    at = nl + 1;
  }
  return words;
}

// Every line of `text` that is an attnverify command (what a user would paste).
void CollectCommands(const std::string& text, std::set<std::string>* out) {
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    const size_t start = line.find("attnverify ");
    if (start == std::string::npos || line.find("--config") == std::string::npos) continue;
    line = line.substr(start);
    // A markdown citation ends the command at its closing backtick; a comment after it is
    // prose.
    if (size_t tick = line.find('`'); tick != std::string::npos) line = line.substr(0, tick);
    if (size_t hash = line.find("   #"); hash != std::string::npos) line = line.substr(0, hash);
    // In the HTML page a command ends where its element does (`</pre>`, `</code>`).
    if (size_t tag = line.find("</"); tag != std::string::npos) line = line.substr(0, tag);
    out->insert(line);
  }
}

void CollectJsonCommands(const json& j, std::set<std::string>* out) {
  if (j.is_string()) {
    CollectCommands(j.get<std::string>(), out);
  } else if (j.is_array() || j.is_object()) {
    for (const json& v : j) CollectJsonCommands(v, out);
  }
}

std::string Unescape(std::string s) {
  for (auto [from, to] :
       {std::pair{"&#39;", "'"}, {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1))
      s.replace(at, std::string(from).size(), to);
  }
  return s;
}

TEST(ReportCommandsTest, QuotedPackageFolderGivesCopyPastableCommandsEverywhere) {
  TempDir root;
  const std::string pkg = root.File(kFolder);
  fs::create_directories(pkg + "/config");
  ASSERT_TRUE(WriteFileAtomically(pkg + "/config/shapes.json",
                                  R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm",
                       "grid": {"m": [3], "n": [16], "k": [8]}, "dtypes": ["bf16"], "seeds": [0]}]})")
                  .ok());
  ASSERT_TRUE(WriteFileAtomically(pkg + "/attnverify.toml",
                                  "[numerics]\nshapes = \"config/shapes.json\"\ntolerances = \"" +
                                      SourceDir() +
                                      "/config/tolerances.json\"\n[candidate]\ncommand = [\"" +
                                      ATTNVERIFY_CPU_CANDIDATE + "\", \"{cases}\"]\n")
                  .ok());
  auto r = RunShell("cd " + Quote(root.path()) + " && " + ATTNVERIFY_BINARY + " run --config " +
                    Quote(kConfig));
  ASSERT_TRUE(fs::exists(pkg + "/reports/acceptance.json")) << r.output;

  std::set<std::string> commands;
  for (const char* f : {"acceptance.md", "acceptance.html"}) {
    Result<std::string> text = ReadFileToString(pkg + "/reports/" + f);
    ASSERT_TRUE(text.ok()) << f;
    CollectCommands(std::string(f) == "acceptance.html" ? Unescape(*text) : *text, &commands);
  }
  for (const char* f : {"acceptance.json", "acceptance.sarif"}) {
    Result<std::string> text = ReadFileToString(pkg + "/reports/" + f);
    ASSERT_TRUE(text.ok()) << f;
    CollectJsonCommands(json::parse(*text), &commands);
  }
  ASSERT_GE(commands.size(), 3u);  // numerics (cited), build, review, slice (MISSING)
  bool cited_numerics = false;
  for (const std::string& c : commands) {
    std::vector<std::string> words = ShellWords(root.path(), c);
    ASSERT_GE(words.size(), 2u) << c;
    EXPECT_EQ(words[0], "attnverify") << c;
    auto it = std::find(words.begin(), words.end(), "--config");
    ASSERT_NE(it, words.end()) << c;
    ASSERT_NE(it + 1, words.end()) << c;
    EXPECT_EQ(*(it + 1), kConfig) << "in: " << c;
    EXPECT_TRUE(fs::exists(root.File(*(it + 1)))) << c;
    cited_numerics |= words[1] == "numerics";
  }
  EXPECT_TRUE(cited_numerics);
  // The Config line too.
  json report = json::parse(*ReadFileToString(pkg + "/reports/acceptance.json"));
  EXPECT_EQ(report["config"], kConfig);
}

}  // namespace
}  // namespace av
