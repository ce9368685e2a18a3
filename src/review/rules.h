// The built-in reviewer: rules over a unified diff that know CUDA, C++ and Python, each
// with a stable id, a severity, the checklist item it feeds and the attnverify command
// that verifies it (doc/review.md has the table and what each rule looks for). Noise is
// a bug: comment, whitespace and rename-only changes, tests and docs raise nothing.
// Stateless; safe to call from several threads on distinct reports.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "review/diff.h"
#include "review/finding.h"

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

// Findings for one diff (ids left empty), in file and line order. `files_reviewed` and
// `files_skipped` count code files looked at and files passed over.
std::vector<Finding> ReviewDiff(const Diff& diff, const std::string& component,
                                const ReviewOptions& options, int64_t* files_reviewed,
                                int64_t* files_skipped);

// Gives findings their ids F001, F002, ... in order.
void NumberFindings(std::vector<Finding>* findings);

}  // namespace av
