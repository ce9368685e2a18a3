// evidence/review.json as one model: what a reviewer (the built-in rules now, an LLM
// later) raised about the sliced diffs. `attnverify review` writes a ReviewReport, the
// report reads it back with ParseReview; a Finding is the one finding type (the rules,
// the config audit and the report all use it; findings/finding.h includes this header).
// Schema /2 adds the provenance block, stores each finding's verify command as argv and
// the package config changes; /1 files are still read. Format: doc/formats/review-json.md.
// Pure values; any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_value.h"
#include "core/status.h"
#include "schema/outcome.h"
#include "schema/provenance.h"

namespace av {

inline constexpr const char* kReviewJsonSchema = "attnverify.review/2";
inline constexpr const char* kReviewJsonSchemaV1 = "attnverify.review/1";

// A question with a place (file and new-side line), the checklist item it feeds and the
// attnverify command whose evidence answers it; never a verdict.
struct Finding {
  std::string id;    // "F001", in report order
  std::string rule;  // "smem.declaration_changed"
  Severity severity = Severity::kNote;
  std::string component;
  std::string file;
  int64_t line = 0;  // new side; for a pure deletion, where it sat
  int64_t end_line = 0;
  // "head" (file and lines name the new revision) or "base": the file no longer exists in
  // head (it was deleted), so file is its old path and the lines are old-side lines.
  std::string side = "head";
  std::string function;            // the enclosing function or kernel, when known
  int checklist_item = 0;          // 1..8; 0 when the reviewer did not say
  std::vector<int> related_items;  // other items it bears on
  std::string title;
  std::string message;
  std::string old_text, new_text;   // the code lines involved (trimmed, at most a few)
  std::vector<std::string> verify;  // argv of the attnverify command that answers it
  std::string legacy_verify;        // schema /1: that command as a line (shown, never parsed)

  bool has_verify() const { return !verify.empty() || !legacy_verify.empty(); }
  // The verify command for people: the argv shell-quoted, or a /1 file's line.
  std::string VerifyLine() const;
};

// A change to the package's own configuration inside the reviewed range
// (config/tolerances.json, config/shapes.json, attnverify.toml [policy]).
struct ConfigChange {
  std::string file;       // package-relative
  std::string json_path;  // "$.mla_decode.o.*.rtol"
  std::string old_json;   // the value as JSON text; "null" when absent
  std::string new_json;
  std::string effect;   // "loosened", "tightened", "changed", "added", "removed"
  std::string finding;  // the id of the finding that reports it
};

struct ReviewedDiff {
  std::string component;
  std::string path;    // package-relative for a slice, else as given
  std::string sha256;  // of the diff file's bytes
  int64_t files = 0;
  std::string kind;  // the component's kind (review/component_kind.h), "" when none decides
};

struct ReviewReport {
  Provenance provenance;
  bool has_provenance = false;
  std::string legacy_command;  // schema /1's "command" line
  std::string tool_version;
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

// One finding as review.json writes it (also the config audit's JSON findings).
nlohmann::json FindingToJson(const Finding& f);
nlohmann::json ReviewToJson(const ReviewReport& report);
// Strict: a finding needs a rule and a known severity; items are 1..8; errors name `path`
// and the JSON path. A finding without an id gets "F<n>" by position.
Result<ReviewReport> ParseReview(std::string_view text, const std::string& path);

}  // namespace av
