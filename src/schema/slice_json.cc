#include "schema/slice_json.h"

#include <nlohmann/json.hpp>

#include "core/json_reader.h"

namespace av {
namespace {

using nlohmann::json;

Status ReadFile(const JsonReader& in, const json& f, const std::string& w, SliceFileRecord* x) {
  if (!f.is_object()) return in.Error(w, "must be an object");
  for (auto [key, field] : {std::pair{"path", &x->path},
                            {"old_path", &x->old_path},
                            {"new_path", &x->new_path},
                            {"status", &x->status},
                            {"old_mode", &x->old_mode},
                            {"new_mode", &x->new_mode}}) {
    AV_RETURN_IF_ERROR(in.Str(f, key, w, field));
  }
  AV_RETURN_IF_ERROR(in.Bool(f, "binary", w, &x->binary));
  for (auto [key, field] : {std::pair{"added", &x->added},
                            {"deleted", &x->deleted},
                            {"hunks", &x->hunks},
                            {"similarity", &x->similarity}}) {
    AV_RETURN_IF_ERROR(in.Int(f, key, w, field));
  }
  return Status::Ok();
}

Status ReadComponent(const JsonReader& in, const json& c, const std::string& w,
                     SliceComponentRecord* x) {
  if (!c.is_object()) return in.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(in.Str(c, "name", w, &x->name));
  AV_RETURN_IF_ERROR(in.Str(c, "path", w, &x->path));
  if (x->name.empty() || x->path.empty())
    return in.Error(w, "each component needs \"name\" and \"path\" strings");
  AV_RETURN_IF_ERROR(in.Strings(c, "globs", w, &x->globs));
  AV_RETURN_IF_ERROR(in.Str(c, "sha256", w, &x->sha256));
  AV_RETURN_IF_ERROR(in.Int(c, "bytes", w, &x->bytes));
  AV_ASSIGN_OR_RETURN(const json* files, in.Array(c, "files", w));
  for (size_t i = 0; files != nullptr && i < files->size(); ++i) {
    SliceFileRecord f;
    AV_RETURN_IF_ERROR(ReadFile(in, (*files)[i], JsonReader::Index(w + ".files", i), &f));
    x->files.push_back(std::move(f));
  }
  return Status::Ok();
}

}  // namespace

json SliceToJson(const SliceRecord& s) {
  json components = json::array();
  for (const SliceComponentRecord& c : s.components) {
    json files = json::array();
    for (const SliceFileRecord& f : c.files) {
      json jf = {{"path", f.path},       {"old_path", f.old_path}, {"new_path", f.new_path},
                 {"status", f.status},   {"binary", f.binary},     {"added", f.added},
                 {"deleted", f.deleted}, {"hunks", f.hunks}};
      if (f.similarity >= 0) jf["similarity"] = f.similarity;
      if (!f.old_mode.empty()) jf["old_mode"] = f.old_mode;
      if (!f.new_mode.empty()) jf["new_mode"] = f.new_mode;
      files.push_back(std::move(jf));
    }
    components.push_back({{"name", c.name},
                          {"globs", c.globs},
                          {"path", c.path},
                          {"sha256", c.sha256},
                          {"bytes", c.bytes},
                          {"files", std::move(files)}});
  }
  return json{{"schema", kSliceJsonSchema},
              {"tool", {{"name", "attnverify"}, {"version", s.provenance.tool_version}}},
              {"provenance", ProvenanceToJson(s.provenance)},
              {"mode", s.mode},
              {"repo", s.repo},
              {"base", s.base},
              {"base_commit", s.base_commit},
              {"head_commit", s.head_commit},
              {"files_total", s.files_total},
              {"components", std::move(components)}};
}

Result<SliceRecord> ParseSlice(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  AV_RETURN_IF_ERROR(in.CheckSchema(doc, {kSliceJsonSchema, kSliceJsonSchemaV1}, false));
  SliceRecord r;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &r.provenance, &r.has_provenance));
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &r.legacy_command));
  AV_ASSIGN_OR_RETURN(const json* tool, in.Object(doc, "tool", "$"));
  if (tool != nullptr) AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &r.tool_version));
  for (auto [key, field] : {std::pair{"base", &r.base},
                            {"base_commit", &r.base_commit},
                            {"head_commit", &r.head_commit}}) {
    const json* v = JsonReader::Get(doc, key);
    if (v == nullptr || !v->is_string())
      return in.Error(JsonReader::Member("$", key), "must be a string");
    *field = v->get<std::string>();
  }
  AV_RETURN_IF_ERROR(in.Str(doc, "mode", "$", &r.mode));
  AV_RETURN_IF_ERROR(in.Str(doc, "repo", "$", &r.repo));
  AV_RETURN_IF_ERROR(in.Int(doc, "files_total", "$", &r.files_total));
  AV_ASSIGN_OR_RETURN(const json* comps, in.Array(doc, "components", "$"));
  if (comps == nullptr) return in.Error("$.components", "must be an array");
  for (size_t i = 0; i < comps->size(); ++i) {
    SliceComponentRecord c;
    AV_RETURN_IF_ERROR(ReadComponent(in, (*comps)[i], JsonReader::Index("$.components", i), &c));
    r.components.push_back(std::move(c));
  }
  return r;
}

}  // namespace av
