// Helpers of the rule tests (rules_test.cc, rules_small_cases_test.cc,
// rules_statement_test.cc): review a testdata diff or an inline one, and print findings.
#ifndef AV_REVIEW_RULES_TEST_UTIL_H_
#define AV_REVIEW_RULES_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/file.h"
#include "review/change_blocks.h"
#include "review/code_text.h"
#include "review/rules.h"
#include "testing/test_util.h"

namespace av::rules_test {

using Key = std::tuple<std::string, std::string, int64_t>;  // rule, file, line

inline std::vector<Finding> ReviewFile(const std::string& name, ReviewOptions options = {}) {
  std::string path = testing::SourceDir() + "/testdata/review/" + name;
  Result<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  Result<Diff> diff = ParseUnifiedDiff(*text, path);
  EXPECT_TRUE(diff.ok()) << diff.status().message();
  if (!diff.ok()) return {};
  int64_t reviewed = 0, skipped = 0;
  return ReviewDiff(*diff, "c", options, &reviewed, &skipped);
}

inline std::set<Key> Keys(const std::vector<Finding>& findings) {
  std::set<Key> keys;
  for (const Finding& f : findings) keys.insert({f.rule, f.file, f.line});
  return keys;
}

inline std::string Dump(const std::vector<Finding>& findings) {
  std::string s;
  for (const Finding& f : findings) {
    s += f.rule + " " + f.file + ":" + std::to_string(f.line) + "-" + std::to_string(f.end_line) +
         " " + f.message + "\n";
  }
  return s;
}

inline const Finding* Find(const std::vector<Finding>& findings, std::string_view rule) {
  for (const Finding& f : findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

inline Diff ParseOk(const std::string& text) {
  Result<Diff> d = ParseUnifiedDiff(text, "inline.diff");
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? std::move(d).value() : Diff();
}

inline std::vector<Finding> ReviewText(const std::string& text) {
  return ReviewDiff(ParseOk(text), "c", ReviewOptions(), nullptr, nullptr);
}
inline std::vector<ReviewCodeFile> CodeFiles(const Diff& d) {
  std::vector<ReviewCodeFile> files;
  for (const FileDiff& f : d.files) {
    ReviewCodeFile c;
    c.file = &f;
    c.language = LanguageOfPath(f.path());
    files.push_back(c);
  }
  return files;
}

}  // namespace av::rules_test

#endif  // AV_REVIEW_RULES_TEST_UTIL_H_
