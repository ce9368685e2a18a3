// Helpers of the pattern tests (review_patterns_test.cc, rules_sibling_sites_test.cc):
// commit testdata/review/patterns/<name>/base, then head, into a temporary git repository
// and review git's diff with and without the whole files; find and print findings.
#ifndef AV_REVIEW_REVIEW_PATTERNS_TEST_UTIL_H_
#define AV_REVIEW_REVIEW_PATTERNS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/process.h"
#include "diff/diff.h"
#include "diff/git_diff.h"
#include "review/review_sources.h"
#include "review/rules.h"
#include "testing/test_util.h"

namespace av::pattern_test {

namespace fs = std::filesystem;
using testing::RunShell;
using testing::TempDir;

struct Reviewed {
  std::vector<Finding> with_files;  // base and head files read from git
  std::vector<Finding> diff_only;   // the diff alone
  std::string diff_text;
};

// Commits patterns/<name>/base, then head, and reviews the change. `components` maps a
// component name to a path prefix (the rest is "unassigned").
inline Reviewed ReviewPattern(const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& components) {
  Reviewed out;
  TempDir dir;
  const std::string src = testing::SourceDir() + "/testdata/review/patterns/" + name;
  const std::string repo = dir.File("repo");
  fs::create_directories(repo);
  auto run = [&](const std::string& cmd) {
    auto r = RunShell("cd '" + repo + "' && " + cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.output;
  };
  run("git init -q . && git config user.name t && git config user.email t@example.com");
  run("cp -r '" + src + "/base/.' . && git add -A && git commit -qm base");
  run("git rm -rq . && cp -r '" + src + "/head/.' . && git add -A && git commit -qm head");
  PosixProcessRunner runner;
  Result<GitDiffOutput> git = RunGitDiff(runner, {repo, "HEAD~1", DiffMode::kCommit});
  EXPECT_TRUE(git.ok()) << git.status().message();
  if (!git.ok()) return out;
  out.diff_text = git->text;
  Result<Diff> diff = ParseUnifiedDiff(git->text, "git diff");
  EXPECT_TRUE(diff.ok()) << diff.status().message();
  if (!diff.ok()) return out;
  // One Diff per component, as the slice cuts them.
  std::vector<Diff> parts;
  std::vector<std::string> names;
  for (const auto& [component, prefix] : components) {
    Diff part;
    for (const FileDiff& f : diff->files) {
      if (f.path().rfind(prefix, 0) == 0) part.files.push_back(f);
    }
    parts.push_back(std::move(part));
    names.push_back(component);
  }
  std::vector<ComponentDiff> diffs;
  for (size_t i = 0; i < parts.size(); ++i) diffs.push_back({names[i], &parts[i], std::nullopt});
  ReviewSources sources(runner, {git->toplevel, git->base_commit, git->head_commit});
  SourceLookup lookup = sources.Lookup();
  out.with_files = ReviewDiffs(diffs, ReviewOptions(), &lookup, nullptr, nullptr);
  out.diff_only = ReviewDiffs(diffs, ReviewOptions(), nullptr, nullptr, nullptr);
  // Every finding, whatever the pattern: its title is not repeated in its message (reports
  // print "title: message"), it spans at most 40 lines, and it names its side.
  for (const auto* findings : {&out.with_files, &out.diff_only}) {
    for (const Finding& f : *findings) {
      EXPECT_EQ(f.message.find(f.title), std::string::npos) << f.rule << ": " << f.message;
      EXPECT_LT(f.end_line - f.line, 40) << f.rule << " " << f.file << ":" << f.line;
      EXPECT_TRUE(f.side == "head" || f.side == "base") << f.side;
    }
  }
  return out;
}

inline std::string Dump(const std::vector<Finding>& findings) {
  std::string s;
  for (const Finding& f : findings) {
    s += f.rule + " " + SeverityName(f.severity) + " item " + std::to_string(f.checklist_item) + " " + f.file +
         ":" + std::to_string(f.line) + "-" + std::to_string(f.end_line) + " [" + f.side + "] " +
         f.message + "\n";
  }
  return s;
}

// The finding of `rule` covering file:line, or null.
inline const Finding* At(const std::vector<Finding>& findings, std::string_view rule,
                  std::string_view file, int64_t line) {
  for (const Finding& f : findings) {
    if (f.rule == rule && f.file == file && f.line <= line && line <= f.end_line) return &f;
  }
  return nullptr;
}

inline int Count(const std::vector<Finding>& findings, std::string_view rule) {
  int n = 0;
  for (const Finding& f : findings) n += f.rule == rule;
  return n;
}

inline bool Mentions(const Finding* f, std::string_view text) {
  return f != nullptr && f->message.find(text) != std::string::npos;
}

}  // namespace av::pattern_test

#endif  // AV_REVIEW_REVIEW_PATTERNS_TEST_UTIL_H_
