// Findings: what a reviewer (the built-in rules now, an LLM later) raises about a diff.
// A finding is a question with a place (file and new-side line), the checklist item it
// feeds (FACTS.md §7) and the attnverify command whose evidence answers it; it is never a
// verdict. The review report groups them with the diffs they came from; writers
// (review_writers.h) only format it. Plain data.
#pragma once

#include <string>
#include <vector>

namespace av {

struct Finding {
  std::string id;        // "F001", in report order
  std::string rule;      // "smem.declaration_changed"
  std::string severity;  // "error", "warning" or "note"
  std::string component;
  std::string file;
  int64_t line = 0;  // new side; for a pure deletion, where it sat
  int64_t end_line = 0;
  // "head" (file and lines name the new revision) or "base": the file no longer exists in
  // head (it was deleted), so file is its old path and the lines are old-side lines.
  std::string side = "head";
  std::string function;            // the enclosing function or kernel, when known
  int checklist_item = 0;          // 1..8
  std::vector<int> related_items;  // other items it bears on
  std::string title;
  std::string message;
  std::string old_text, new_text;  // the code lines involved (trimmed, at most a few)
  std::string verify;              // the attnverify command that answers it
};

struct ReviewedDiff {
  std::string component;
  std::string path;    // as given (package-relative for a slice)
  std::string sha256;  // of the diff file's bytes
  int64_t files = 0;
  std::string kind;  // the component's kind (component_kind.h), "" when none decides
};

// One changed setting of the package's own configuration between base and head
// (doc/formats/review-json.md "config_changes").
struct ConfigChange {
  std::string file;       // package-relative: "config/tolerances.json", "attnverify.toml"
  std::string json_path;  // "$.ops.mla_decode.o.*.rtol", "$.policy.required"
  std::string old_json;   // the value as JSON text; "null" when absent
  std::string new_json;
  std::string effect;   // "loosened", "tightened", "changed", "added", "removed"
  std::string finding;  // id of the package.config_changed finding it belongs to
};

struct ReviewReport {
  std::string tool_version;
  std::string command;
  std::string reviewer = "builtin";
  std::string base, base_commit, head_commit;  // empty when unknown (diffs given as files)
  std::vector<ReviewedDiff> diffs;
  std::vector<std::string> disabled_rules;
  std::vector<Finding> findings;
  std::vector<ConfigChange> config_changes;
  // Whether the package's config could be compared with the base revision's (it sits in
  // the reviewed repository and both revisions could be read); why not when it could not.
  bool config_reviewed = false;
  std::string config_not_reviewed;
  int64_t files_reviewed = 0;  // code files the rules looked at
  int64_t files_skipped = 0;   // tests, docs, binaries, other languages
};

}  // namespace av
