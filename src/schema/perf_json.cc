#include "schema/perf_json.h"

#include <nlohmann/json.hpp>

#include "core/format.h"
#include "core/json_dump.h"
#include "core/json_reader.h"

namespace av {
namespace {

using nlohmann::json;

json FigureJson(const PerfFigure& f) {
  return json{{"value", f.value}, {"unit", f.unit}, {"raw", f.raw}, {"raw_unit", f.raw_unit}};
}

json KernelJson(const PerfKernel& k) {
  json j = {{"label", k.label},
            {"shape", k.shape},
            {"tool", k.tool},
            {"tool_version", k.tool_version},
            {"format", k.format},
            {"name",
             {{"raw", k.name.raw},
              {"demangled", k.name.demangled},
              {"key", k.name.key},
              {"short", k.name.short_name}}},
            {"source", {{"file", k.source_file}, {"sha256", k.source_sha256}}},
            {"launches", json::array()}};
  for (const PerfLaunch& l : k.launches) {
    json fj = json::object();
    for (const auto& [name, f] : l.figures) fj[name] = FigureJson(f);
    j["launches"].push_back({{"id", l.id},
                             {"grid", l.grid},
                             {"block", l.block},
                             {"occupancy_limiter", l.occupancy_limiter},
                             {"figures", fj}});
  }
  if (k.summary) {
    const PerfSummary& s = *k.summary;
    j["summary"] = {{"instances", s.instances}, {"total_ns", s.total_ns}, {"avg_ns", s.avg_ns},
                    {"med_ns", s.med_ns},       {"min_ns", s.min_ns},     {"max_ns", s.max_ns},
                    {"stddev_ns", s.stddev_ns}};
  }
  return j;
}

// ---- reading: every field is required (JsonReader leaves absent ones unchanged) ----

Status Str(const JsonReader& in, const json& o, const char* key, const std::string& w,
           std::string* out) {
  const auto it = o.find(key);
  if (it == o.end()) return in.Error(w + "." + key, "missing");
  if (!it->is_string()) return in.Error(w + "." + key, "must be a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

// A JSON number (not the "nan"/"inf" strings JsonReader::Num also takes).
Status Num(const JsonReader& in, const json& o, const char* key, const std::string& w,
           double* out) {
  const auto it = o.find(key);
  if (it == o.end()) return in.Error(w + "." + key, "missing");
  if (!it->is_number()) return in.Error(w + "." + key, "must be a number");
  *out = it->get<double>();
  return Status::Ok();
}

Result<const json*> Obj(const JsonReader& in, const json& o, const char* key,
                        const std::string& w) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_object()) return in.Error(w + "." + key, "must be an object");
  return &*it;
}

Status ReadFigure(const JsonReader& in, const std::string& name, const json& j,
                  const std::string& w, PerfFigure* f) {
  if (!j.is_object()) return in.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(Num(in, j, "value", w, &f->value));
  AV_RETURN_IF_ERROR(Str(in, j, "unit", w, &f->unit));
  AV_RETURN_IF_ERROR(Str(in, j, "raw", w, &f->raw));
  AV_RETURN_IF_ERROR(Str(in, j, "raw_unit", w, &f->raw_unit));
  // The time gate reads durations as ns: one in another unit or below zero (a file
  // edited by hand, or written before the importers refused them) is not a figure.
  if (name == perf_fig::kDuration && (f->unit != "ns" || f->value < 0)) {
    return in.Error(w, "must be a non-negative time in ns, got " + FormatG(f->value, 6) + " \"" +
                           f->unit.substr(0, 40) + "\"");
  }
  return Status::Ok();
}

Status ReadLaunch(const JsonReader& in, const json& j, const std::string& w, PerfLaunch* l) {
  if (!j.is_object()) return in.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(Str(in, j, "id", w, &l->id));
  AV_RETURN_IF_ERROR(Str(in, j, "grid", w, &l->grid));
  AV_RETURN_IF_ERROR(Str(in, j, "block", w, &l->block));
  AV_RETURN_IF_ERROR(Str(in, j, "occupancy_limiter", w, &l->occupancy_limiter));
  AV_ASSIGN_OR_RETURN(const json* figs, Obj(in, j, "figures", w));
  for (auto it = figs->begin(); it != figs->end(); ++it) {
    PerfFigure f;
    AV_RETURN_IF_ERROR(ReadFigure(in, it.key(), *it, w + ".figures." + it.key(), &f));
    l->figures[it.key()] = std::move(f);
  }
  return Status::Ok();
}

Status ReadSummary(const JsonReader& in, const json& s, const std::string& sw, PerfSummary* m) {
  if (!s.is_object()) return in.Error(sw, "must be an object");
  double n = 0;
  AV_RETURN_IF_ERROR(Num(in, s, "instances", sw, &n));
  if (n < 1 || n > 9e15) return in.Error(sw + ".instances", "must be a positive count");
  m->instances = static_cast<int64_t>(n);
  AV_RETURN_IF_ERROR(Num(in, s, "total_ns", sw, &m->total_ns));
  AV_RETURN_IF_ERROR(Num(in, s, "avg_ns", sw, &m->avg_ns));
  AV_RETURN_IF_ERROR(Num(in, s, "med_ns", sw, &m->med_ns));
  AV_RETURN_IF_ERROR(Num(in, s, "min_ns", sw, &m->min_ns));
  AV_RETURN_IF_ERROR(Num(in, s, "max_ns", sw, &m->max_ns));
  AV_RETURN_IF_ERROR(Num(in, s, "stddev_ns", sw, &m->stddev_ns));
  for (auto [key, v] : {std::pair{"total_ns", m->total_ns},
                        {"avg_ns", m->avg_ns},
                        {"min_ns", m->min_ns},
                        {"max_ns", m->max_ns},
                        {"stddev_ns", m->stddev_ns}}) {
    if (v < 0) return in.Error(sw + "." + key, "must not be negative");
  }
  // -1: the older gpukernsum, which prints no median.
  if (m->med_ns < 0 && m->med_ns != -1) return in.Error(sw + ".med_ns", "must not be negative");
  return Status::Ok();
}

Status ReadKernel(const JsonReader& in, const json& j, const std::string& w, PerfKernel* k) {
  if (!j.is_object()) return in.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(Str(in, j, "label", w, &k->label));
  if (k->label != "base" && k->label != "head")
    return in.Error(w + ".label", "must be base or head");
  AV_RETURN_IF_ERROR(Str(in, j, "shape", w, &k->shape));
  AV_RETURN_IF_ERROR(Str(in, j, "tool", w, &k->tool));
  AV_RETURN_IF_ERROR(Str(in, j, "tool_version", w, &k->tool_version));
  AV_RETURN_IF_ERROR(Str(in, j, "format", w, &k->format));
  AV_ASSIGN_OR_RETURN(const json* name, Obj(in, j, "name", w));
  AV_RETURN_IF_ERROR(Str(in, *name, "raw", w + ".name", &k->name.raw));
  AV_RETURN_IF_ERROR(Str(in, *name, "demangled", w + ".name", &k->name.demangled));
  AV_RETURN_IF_ERROR(Str(in, *name, "key", w + ".name", &k->name.key));
  AV_RETURN_IF_ERROR(Str(in, *name, "short", w + ".name", &k->name.short_name));
  AV_ASSIGN_OR_RETURN(const json* src, Obj(in, j, "source", w));
  AV_RETURN_IF_ERROR(Str(in, *src, "file", w + ".source", &k->source_file));
  AV_RETURN_IF_ERROR(Str(in, *src, "sha256", w + ".source", &k->source_sha256));
  const auto launches = j.find("launches");
  if (launches == j.end() || !launches->is_array())
    return in.Error(w + ".launches", "must be an array");
  for (size_t i = 0; i < launches->size(); ++i) {
    PerfLaunch l;
    AV_RETURN_IF_ERROR(ReadLaunch(in, (*launches)[i], JsonReader::Index(w + ".launches", i), &l));
    k->launches.push_back(std::move(l));
  }
  if (const auto s = j.find("summary"); s != j.end() && !s->is_null()) {
    PerfSummary m;
    AV_RETURN_IF_ERROR(ReadSummary(in, *s, w + ".summary", &m));
    k->summary = m;
  }
  return Status::Ok();
}

}  // namespace

std::string PerfToJsonText(const PerfRecord& record) {
  json j = {{"schema", kPerfJsonSchema}, {"kernels", json::array()}};
  if (record.has_provenance) j["provenance"] = ProvenanceToJson(record.provenance);
  for (const PerfKernel& k : record.kernels) j["kernels"].push_back(KernelJson(k));
  return JsonFileText(j);
}

Result<PerfRecord> ParsePerf(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  // perf.json nests 7 deep (the provenance 3); anything far deeper is not ours.
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text, JsonLimits{16}));
  std::string schema;
  AV_RETURN_IF_ERROR(Str(in, doc, "schema", "$", &schema));
  if (schema != kPerfJsonSchema && schema != kPerfJsonSchemaV1) {
    return in.Error("$.schema", "is \"" + schema + "\", expected \"" + kPerfJsonSchema +
                                    "\" (or \"" + kPerfJsonSchemaV1 + "\")");
  }
  PerfRecord out;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &out.provenance, &out.has_provenance));
  const auto kernels = doc.find("kernels");
  if (kernels == doc.end() || !kernels->is_array())
    return in.Error("$.kernels", "must be an array");
  for (size_t i = 0; i < kernels->size(); ++i) {
    PerfKernel k;
    AV_RETURN_IF_ERROR(ReadKernel(in, (*kernels)[i], JsonReader::Index("$.kernels", i), &k));
    out.kernels.push_back(std::move(k));
  }
  return out;
}

}  // namespace av
