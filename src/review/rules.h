// The built-in reviewer: rules over a unified diff that know CUDA, C++ and Python, each
// with a stable id, a severity, the checklist item it feeds and the attnverify command
// that verifies it (doc/review.md has the table and what each rule looks for). Noise is
// a bug: comment, whitespace and rename-only changes and docs raise nothing; test files
// raise only what they no longer check (tests.coverage_reduced).
// Stateless; safe to call from several threads on distinct reports.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "findings/finding.h"
#include "review/component_kind.h"
#include "review/source_outline.h"

namespace av {

enum class VerifyWith { kBuild, kNumerics };

struct RuleInfo {
  std::string_view id;
  Severity severity;
  int checklist_item;
  std::vector<int> related_items;
  std::string_view title;
  VerifyWith verify;
  std::string_view looks_for;  // one line, for docs and --help
  // The item on GEMM code when it differs (boundary guards are item 4 there); 0: the same.
  int gemm_item = 0;
};

std::span<const RuleInfo> BuiltinRules();
std::vector<std::string> BuiltinRuleIds();
const RuleInfo* FindRule(std::string_view id);

struct ReviewOptions {
  std::string config_path = "attention-verify/attnverify.toml";  // as the user wrote it
  std::string base = "HEAD~1";
  std::vector<std::string> disabled_rules;
};

// The attnverify command (argv) that verifies a rule's finding.
std::vector<std::string> VerifyCommand(const RuleInfo& rule, const ReviewOptions& options);

// One component's diff.
struct ComponentDiff {
  std::string component;
  const Diff* diff = nullptr;
  std::optional<ComponentKind> kind;  // [components] kind, when given
};

// The whole base and head files of a diff's file, when the reviewer could read them (git
// blobs); null outlines otherwise.
struct FileSources {
  const SourceOutline* base = nullptr;
  const SourceOutline* head = nullptr;
};
using SourceLookup = std::function<FileSources(const FileDiff&, SourceLanguage)>;

// Findings for the diffs of all components (ids left empty), in component, file and line
// order. Renames, moved code and counted uses are judged across all of them. `sources`
// may be null (the diff alone). `files_reviewed` and `files_skipped` count code files
// looked at and files passed over.
std::vector<Finding> ReviewDiffs(const std::vector<ComponentDiff>& diffs,
                                 const ReviewOptions& options, const SourceLookup* sources,
                                 int64_t* files_reviewed, int64_t* files_skipped);

// The same for one diff of one component, without whole files.
std::vector<Finding> ReviewDiff(const Diff& diff, const std::string& component,
                                const ReviewOptions& options, int64_t* files_reviewed,
                                int64_t* files_skipped);

// Gives findings their ids F001, F002, ... in order.
void NumberFindings(std::vector<Finding>* findings);

}  // namespace av
