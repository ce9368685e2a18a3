// evidence/perf.json: writing, reading back, and appending an import atomically.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/format.h"
#include "profile/perf_model.h"

namespace av::profile {
namespace {

using nlohmann::json;

json FigureJson(const Figure& f) {
  return json{{"value", f.value}, {"unit", f.unit}, {"raw", f.raw}, {"raw_unit", f.raw_unit}};
}

json KernelJson(const KernelProfile& k) {
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
  for (const Launch& l : k.launches) {
    json fj = json::object();
    for (const auto& [name, f] : l.figures) fj[name] = FigureJson(f);
    j["launches"].push_back({{"id", l.id},
                             {"grid", l.grid},
                             {"block", l.block},
                             {"occupancy_limiter", l.occupancy_limiter},
                             {"figures", fj}});
  }
  if (k.summary) {
    const Summary& s = *k.summary;
    j["summary"] = {{"instances", s.instances}, {"total_ns", s.total_ns}, {"avg_ns", s.avg_ns},
                    {"med_ns", s.med_ns},       {"min_ns", s.min_ns},     {"max_ns", s.max_ns},
                    {"stddev_ns", s.stddev_ns}};
  }
  return j;
}

// Path-aware typed reads over nlohmann values: "perf.json: $.kernels[2].label: ...".
class Reader {
 public:
  explicit Reader(std::string shown) : shown_(std::move(shown)) {}
  Status Error(const std::string& where, const std::string& what) const {
    return InvalidInput(shown_ + ": " + where + ": " + what);
  }
  Status Str(const json& o, const char* key, const std::string& where, std::string* out) const {
    auto it = o.find(key);
    if (it == o.end()) return Error(where + "." + key, "missing");
    if (!it->is_string()) return Error(where + "." + key, "must be a string");
    *out = it->get<std::string>();
    return Status::Ok();
  }
  Status Num(const json& o, const char* key, const std::string& where, double* out) const {
    auto it = o.find(key);
    if (it == o.end()) return Error(where + "." + key, "missing");
    if (!it->is_number()) return Error(where + "." + key, "must be a number");
    *out = it->get<double>();
    return Status::Ok();
  }

 private:
  std::string shown_;
};

Status ParseLaunch(const Reader& r, const json& j, const std::string& w, Launch* l) {
  if (!j.is_object()) return r.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(r.Str(j, "id", w, &l->id));
  AV_RETURN_IF_ERROR(r.Str(j, "grid", w, &l->grid));
  AV_RETURN_IF_ERROR(r.Str(j, "block", w, &l->block));
  AV_RETURN_IF_ERROR(r.Str(j, "occupancy_limiter", w, &l->occupancy_limiter));
  auto figs = j.find("figures");
  if (figs == j.end() || !figs->is_object()) return r.Error(w + ".figures", "must be an object");
  for (auto it = figs->begin(); it != figs->end(); ++it) {
    const std::string fw = w + ".figures." + it.key();
    if (!it->is_object()) return r.Error(fw, "must be an object");
    Figure f;
    AV_RETURN_IF_ERROR(r.Num(*it, "value", fw, &f.value));
    AV_RETURN_IF_ERROR(r.Str(*it, "unit", fw, &f.unit));
    AV_RETURN_IF_ERROR(r.Str(*it, "raw", fw, &f.raw));
    AV_RETURN_IF_ERROR(r.Str(*it, "raw_unit", fw, &f.raw_unit));
    // The time gate reads durations as ns: one in another unit or below zero (a file
    // edited by hand, or written before the importers refused them) is not a figure.
    if (it.key() == fig::kDuration && (f.unit != "ns" || f.value < 0)) {
      return r.Error(fw, "must be a non-negative time in ns, got " + FormatG(f.value, 6) + " \"" +
                             f.unit.substr(0, 40) + "\"");
    }
    l->figures[it.key()] = std::move(f);
  }
  return Status::Ok();
}

Status ParseKernel(const Reader& r, const json& j, const std::string& w, KernelProfile* k) {
  if (!j.is_object()) return r.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(r.Str(j, "label", w, &k->label));
  if (k->label != "base" && k->label != "head")
    return r.Error(w + ".label", "must be base or head");
  AV_RETURN_IF_ERROR(r.Str(j, "shape", w, &k->shape));
  AV_RETURN_IF_ERROR(r.Str(j, "tool", w, &k->tool));
  AV_RETURN_IF_ERROR(r.Str(j, "tool_version", w, &k->tool_version));
  AV_RETURN_IF_ERROR(r.Str(j, "format", w, &k->format));
  auto name = j.find("name");
  if (name == j.end() || !name->is_object()) return r.Error(w + ".name", "must be an object");
  AV_RETURN_IF_ERROR(r.Str(*name, "raw", w + ".name", &k->name.raw));
  AV_RETURN_IF_ERROR(r.Str(*name, "demangled", w + ".name", &k->name.demangled));
  AV_RETURN_IF_ERROR(r.Str(*name, "key", w + ".name", &k->name.key));
  AV_RETURN_IF_ERROR(r.Str(*name, "short", w + ".name", &k->name.short_name));
  auto src = j.find("source");
  if (src == j.end() || !src->is_object()) return r.Error(w + ".source", "must be an object");
  AV_RETURN_IF_ERROR(r.Str(*src, "file", w + ".source", &k->source_file));
  AV_RETURN_IF_ERROR(r.Str(*src, "sha256", w + ".source", &k->source_sha256));
  auto launches = j.find("launches");
  if (launches == j.end() || !launches->is_array())
    return r.Error(w + ".launches", "must be an array");
  for (size_t i = 0; i < launches->size(); ++i) {
    Launch l;
    AV_RETURN_IF_ERROR(
        ParseLaunch(r, (*launches)[i], w + ".launches[" + std::to_string(i) + "]", &l));
    k->launches.push_back(std::move(l));
  }
  if (auto s = j.find("summary"); s != j.end() && !s->is_null()) {
    const std::string sw = w + ".summary";
    if (!s->is_object()) return r.Error(sw, "must be an object");
    Summary m;
    double n = 0;
    AV_RETURN_IF_ERROR(r.Num(*s, "instances", sw, &n));
    if (n < 1 || n > 9e15) return r.Error(sw + ".instances", "must be a positive count");
    m.instances = static_cast<int64_t>(n);
    AV_RETURN_IF_ERROR(r.Num(*s, "total_ns", sw, &m.total_ns));
    AV_RETURN_IF_ERROR(r.Num(*s, "avg_ns", sw, &m.avg_ns));
    AV_RETURN_IF_ERROR(r.Num(*s, "med_ns", sw, &m.med_ns));
    AV_RETURN_IF_ERROR(r.Num(*s, "min_ns", sw, &m.min_ns));
    AV_RETURN_IF_ERROR(r.Num(*s, "max_ns", sw, &m.max_ns));
    AV_RETURN_IF_ERROR(r.Num(*s, "stddev_ns", sw, &m.stddev_ns));
    for (auto [key, v] : {std::pair{"total_ns", m.total_ns}, {"avg_ns", m.avg_ns},
                          {"min_ns", m.min_ns}, {"max_ns", m.max_ns}, {"stddev_ns", m.stddev_ns}}) {
      if (v < 0) return r.Error(sw + "." + key, "must not be negative");
    }
    if (m.med_ns < 0 && m.med_ns != -1) return r.Error(sw + ".med_ns", "must not be negative");
    k->summary = m;
  }
  return Status::Ok();
}

}  // namespace

std::string RenderPerfJson(const PerfDoc& doc) {
  json j = {{"schema", kPerfSchema}, {"kernels", json::array()}};
  for (const KernelProfile& k : doc.kernels) j["kernels"].push_back(KernelJson(k));
  // Kernel names come from the code under review: invalid UTF-8 is replaced, never thrown.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<PerfDoc> ParsePerfJson(std::string_view text, const std::string& shown) {
  // perf.json nests 6 deep; anything far deeper is not ours (and nlohmann recurses).
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  if (max_depth > 16) return InvalidInput(shown + ": nested deeper than perf.json ever is");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidInput(shown + ": not valid JSON");
  Reader r(shown);
  if (!doc.is_object()) return r.Error("$", "must be an object");
  std::string schema;
  AV_RETURN_IF_ERROR(r.Str(doc, "schema", "$", &schema));
  if (schema != kPerfSchema) {
    return r.Error("$.schema", "is \"" + schema + "\", expected \"" + kPerfSchema + "\"");
  }
  auto kernels = doc.find("kernels");
  if (kernels == doc.end() || !kernels->is_array()) return r.Error("$.kernels", "must be an array");
  PerfDoc out;
  for (size_t i = 0; i < kernels->size(); ++i) {
    KernelProfile k;
    AV_RETURN_IF_ERROR(ParseKernel(r, (*kernels)[i], "$.kernels[" + std::to_string(i) + "]", &k));
    out.kernels.push_back(std::move(k));
  }
  return out;
}

Result<PerfDoc> ReadPerfJson(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + ": no such file");
  AV_ASSIGN_OR_RETURN(auto buf, ReadFileToBuffer(path, Links::kRefuse, 512u << 20));
  return ParsePerfJson(std::string_view(reinterpret_cast<const char*>(buf->data()), buf->size()),
                       path);
}

Status AppendPerfJson(const std::string& path, const std::vector<KernelProfile>& kernels) {
  PerfDoc doc;
  Result<PerfDoc> old = ReadPerfJson(path);
  if (old.ok()) {
    doc = std::move(old).value();
  } else if (old.status().code() != StatusCode::kNotFound) {
    return old.status();
  }
  std::vector<KernelProfile> kept;
  for (KernelProfile& k : doc.kernels) {
    bool replaced = false;
    for (const KernelProfile& n : kernels) {
      replaced |= n.source_sha256 == k.source_sha256 && n.label == k.label;
    }
    if (!replaced) kept.push_back(std::move(k));
  }
  kept.insert(kept.end(), kernels.begin(), kernels.end());
  doc.kernels = std::move(kept);
  return WriteFileAtomically(path, RenderPerfJson(doc));
}

}  // namespace av::profile
