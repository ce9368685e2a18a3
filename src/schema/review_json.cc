#include "schema/review_json.h"

#include <nlohmann/json.hpp>

#include "core/json_dump.h"
#include "core/json_reader.h"
#include "core/shell_quote.h"

namespace av {

using nlohmann::json;

nlohmann::json FindingToJson(const Finding& f) {
  return {{"id", f.id},
          {"rule", f.rule},
          {"severity", SeverityName(f.severity)},
          {"component", f.component},
          {"file", f.file},
          {"side", f.side},
          {"function", f.function},
          {"line", f.line},
          {"end_line", f.end_line},
          {"checklist_item", f.checklist_item},
          {"related_items", f.related_items},
          {"title", f.title},
          {"message", f.message},
          {"old", f.old_text},
          {"new", f.new_text},
          // argv; a line only when there is no argv (a /1 file's, or an agent's shell line).
          {"verify", f.verify.empty() && !f.legacy_verify.empty() ? json(f.legacy_verify)
                                                                  : json(f.verify)}};
}

namespace {

Status ReadFinding(const JsonReader& in, const json& f, const std::string& w, size_t i,
                   Finding* x) {
  if (!f.is_object()) return in.Error(w, "must be an object");
  for (auto [key, field] : {std::pair{"id", &x->id},
                            {"rule", &x->rule},
                            {"component", &x->component},
                            {"file", &x->file},
                            {"side", &x->side},
                            {"function", &x->function},
                            {"title", &x->title},
                            {"message", &x->message},
                            {"old", &x->old_text},
                            {"new", &x->new_text}}) {
    AV_RETURN_IF_ERROR(in.Str(f, key, w, field));
  }
  // /2: argv; /1: a command line, kept for display.
  if (const json* v = JsonReader::Get(f, "verify"); v != nullptr && v->is_string()) {
    x->legacy_verify = v->get<std::string>();
  } else {
    AV_RETURN_IF_ERROR(in.Strings(f, "verify", w, &x->verify));
  }
  std::string severity;
  AV_RETURN_IF_ERROR(in.Str(f, "severity", w, &severity));
  std::optional<Severity> s = ParseSeverity(severity);
  if (!s) {
    return in.Error(w + ".severity",
                    std::string("must be ") + SeverityWords() + ", got \"" + severity + "\"");
  }
  x->severity = *s;
  AV_RETURN_IF_ERROR(in.Int(f, "line", w, &x->line));
  AV_RETURN_IF_ERROR(in.Int(f, "end_line", w, &x->end_line));
  int64_t item = 0;
  AV_RETURN_IF_ERROR(in.Int(f, "checklist_item", w, &item));
  if (item < 0 || item > 8)
    return in.Error(w + ".checklist_item", "must be 1..8, got " + std::to_string(item));
  x->checklist_item = static_cast<int>(item);
  AV_ASSIGN_OR_RETURN(const json* related, in.Array(f, "related_items", w));
  for (size_t k = 0; related != nullptr && k < related->size(); ++k) {
    const json& v = (*related)[k];
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 8) {
      return in.Error(JsonReader::Index(w + ".related_items", k), "must be an item number 1..8");
    }
    x->related_items.push_back(static_cast<int>(v.get<int64_t>()));
  }
  if (x->rule.empty()) return in.Error(w + ".rule", "missing");
  if (x->side != "head" && x->side != "base")
    return in.Error(w + ".side", "must be \"head\" or \"base\", got \"" + x->side + "\"");
  if (x->line < 0 || x->end_line < 0) return in.Error(w + ".line", "must be >= 0");
  if (x->id.empty()) x->id = "F" + std::to_string(i + 1);
  return Status::Ok();
}

Status ReadConfigChange(const JsonReader& in, const json& c, const std::string& w,
                        ConfigChange* x) {
  if (!c.is_object()) return in.Error(w, "must be an object");
  for (auto [key, field] : {std::pair{"file", &x->file},
                            {"json_path", &x->json_path},
                            {"effect", &x->effect},
                            {"finding", &x->finding}}) {
    AV_RETURN_IF_ERROR(in.Str(c, key, w, field));
  }
  if (x->file.empty()) return in.Error(w + ".file", "missing");
  static const char* const kEffects[] = {"loosened", "tightened", "changed", "added", "removed"};
  bool known = false;
  for (const char* e : kEffects) known = known || x->effect == e;
  if (!known) {
    return in.Error(w + ".effect",
                    "must be \"loosened\", \"tightened\", \"changed\", \"added\" or \"removed\", "
                    "got \"" +
                        x->effect + "\"");
  }
  x->old_json = DumpJson(c.contains("old") ? c["old"] : json(nullptr));
  x->new_json = DumpJson(c.contains("new") ? c["new"] : json(nullptr));
  return Status::Ok();
}

}  // namespace

std::string Finding::VerifyLine() const {
  return verify.empty() ? legacy_verify : ShellJoin(verify);
}

json ReviewToJson(const ReviewReport& report) {
  json diffs = json::array();
  for (const ReviewedDiff& d : report.diffs) {
    diffs.push_back({{"component", d.component},
                     {"path", d.path},
                     {"sha256", d.sha256},
                     {"files", d.files},
                     {"kind", d.kind}});
  }
  json findings = json::array();
  for (const Finding& f : report.findings) findings.push_back(FindingToJson(f));
  json changes = json::array();
  for (const ConfigChange& c : report.config_changes) {
    // The values were JSON when compared; text that is not (it cannot be, but the field is
    // a string) is written as a string.
    json old_value = json::parse(c.old_json, nullptr, false);
    json new_value = json::parse(c.new_json, nullptr, false);
    changes.push_back({{"file", c.file},
                       {"json_path", c.json_path},
                       {"old", old_value.is_discarded() ? json(c.old_json) : old_value},
                       {"new", new_value.is_discarded() ? json(c.new_json) : new_value},
                       {"effect", c.effect},
                       {"finding", c.finding}});
  }
  return json{{"schema", kReviewJsonSchema},
              {"tool", {{"name", "attnverify"}, {"version", report.provenance.tool_version}}},
              {"provenance", ProvenanceToJson(report.provenance)},
              {"reviewer", report.reviewer},
              {"base", report.base},
              {"base_commit", report.base_commit},
              {"head_commit", report.head_commit},
              {"disabled_rules", report.disabled_rules},
              {"files_reviewed", report.files_reviewed},
              {"files_skipped", report.files_skipped},
              {"diffs", std::move(diffs)},
              {"findings", std::move(findings)},
              {"config_reviewed", report.config_reviewed},
              {"config_not_reviewed", report.config_not_reviewed},
              {"config_changes", std::move(changes)}};
}

Result<ReviewReport> ParseReview(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  AV_RETURN_IF_ERROR(in.CheckSchema(doc, {kReviewJsonSchema, kReviewJsonSchemaV1}, true));
  ReviewReport r;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &r.provenance, &r.has_provenance));
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &r.legacy_command));
  AV_ASSIGN_OR_RETURN(const json* tool, in.Object(doc, "tool", "$"));
  if (tool != nullptr) AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &r.tool_version));
  for (auto [key, field] : {std::pair{"reviewer", &r.reviewer},
                            {"base", &r.base},
                            {"base_commit", &r.base_commit},
                            {"head_commit", &r.head_commit}}) {
    AV_RETURN_IF_ERROR(in.Str(doc, key, "$", field));
  }
  AV_RETURN_IF_ERROR(in.Strings(doc, "disabled_rules", "$", &r.disabled_rules));
  AV_RETURN_IF_ERROR(in.Int(doc, "files_reviewed", "$", &r.files_reviewed));
  AV_RETURN_IF_ERROR(in.Int(doc, "files_skipped", "$", &r.files_skipped));
  AV_ASSIGN_OR_RETURN(const json* diffs, in.Array(doc, "diffs", "$"));
  for (size_t i = 0; diffs != nullptr && i < diffs->size(); ++i) {
    const std::string w = JsonReader::Index("$.diffs", i);
    const json& d = (*diffs)[i];
    if (!d.is_object()) return in.Error(w, "must be an object");
    ReviewedDiff x;
    AV_RETURN_IF_ERROR(in.Str(d, "component", w, &x.component));
    AV_RETURN_IF_ERROR(in.Str(d, "path", w, &x.path));
    AV_RETURN_IF_ERROR(in.Str(d, "sha256", w, &x.sha256));
    AV_RETURN_IF_ERROR(in.Int(d, "files", w, &x.files));
    AV_RETURN_IF_ERROR(in.Str(d, "kind", w, &x.kind));
    r.diffs.push_back(std::move(x));
  }
  AV_ASSIGN_OR_RETURN(const json* findings, in.Array(doc, "findings", "$"));
  for (size_t i = 0; findings != nullptr && i < findings->size(); ++i) {
    Finding f;
    AV_RETURN_IF_ERROR(ReadFinding(in, (*findings)[i], JsonReader::Index("$.findings", i), i, &f));
    r.findings.push_back(std::move(f));
  }
  AV_RETURN_IF_ERROR(in.Bool(doc, "config_reviewed", "$", &r.config_reviewed));
  AV_RETURN_IF_ERROR(in.Str(doc, "config_not_reviewed", "$", &r.config_not_reviewed));
  AV_ASSIGN_OR_RETURN(const json* changes, in.Array(doc, "config_changes", "$"));
  for (size_t i = 0; changes != nullptr && i < changes->size(); ++i) {
    ConfigChange c;
    AV_RETURN_IF_ERROR(
        ReadConfigChange(in, (*changes)[i], JsonReader::Index("$.config_changes", i), &c));
    r.config_changes.push_back(std::move(c));
  }
  return r;
}

}  // namespace av
