// Timings from the user's own harness: Google Benchmark JSON (--benchmark_format=json,
// every repetition a sample; the aggregate rows are skipped, their figures are
// recomputed from the samples) and a plain CSV of kernel,shape,time_ns rows.
#include <nlohmann/json.hpp>

#include "profile/csv_reader.h"
#include "profile/import.h"
#include "profile/units.h"

namespace av::profile {
namespace {

using nlohmann::json;

// nlohmann's parser recurses: nesting is checked before it is called.
bool NestsDeeperThan(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if ((c == '[' || c == '{') && ++depth > max_depth) return true;
    if (c == ']' || c == '}') --depth;
  }
  return false;
}

struct Sample {
  std::string kernel, shape;
  double ns;
};

// Appends one launch of `ns` to the profile of (kernel, shape), made on first sight.
void AddSample(std::vector<KernelProfile>* out, const KernelProfile& proto, const Sample& s,
               const std::string& id) {
  KernelName k = NormaliseKernelName(s.kernel);
  KernelProfile* p = nullptr;
  for (KernelProfile& e : *out) {
    if (e.name.key == k.key && e.shape == s.shape) p = &e;
  }
  if (!p) {
    out->push_back(proto);
    p = &out->back();
    p->name = std::move(k);
    p->shape = s.shape;
  }
  Launch l;
  l.id = id;
  l.figures[fig::kDuration] = Figure{s.ns, "ns", std::to_string(s.ns), "ns"};
  p->launches.push_back(std::move(l));
}

KernelProfile Proto(const ImportOptions& opt, const char* tool, const char* format) {
  KernelProfile p;
  p.label = opt.label;
  p.tool = tool;
  p.format = format;
  p.source_file = opt.shown;
  p.source_sha256 = opt.sha256;
  return p;
}

}  // namespace

Result<std::vector<KernelProfile>> ImportGoogleBenchmark(std::string_view text,
                                                         const ImportOptions& opt) {
  if (NestsDeeperThan(text, 32)) return InvalidInput(opt.shown + ": JSON nested deeper than 32");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return InvalidInput(opt.shown +
                        ": not a JSON object (Google Benchmark --benchmark_format=json)");
  }
  auto bm = doc.find("benchmarks");
  if (bm == doc.end() || !bm->is_array())
    return InvalidInput(opt.shown + ": $.benchmarks must be an array");
  KernelProfile proto = Proto(opt, "google-benchmark", "gbench-json");
  if (auto ctx = doc.find("context"); ctx != doc.end() && ctx->is_object()) {
    auto v = ctx->find("library_version");
    proto.tool_version = v != ctx->end() && v->is_string() ? v->get<std::string>() : "";
  }
  std::vector<KernelProfile> out;
  for (size_t i = 0; i < bm->size(); ++i) {
    const json& b = (*bm)[i];
    const std::string where = opt.shown + ": $.benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) return InvalidInput(where + ": must be an object");
    auto rt = b.find("run_type");
    if (rt != b.end() && rt->is_string() && rt->get<std::string>() == "aggregate") continue;
    auto name = b.find("run_name") != b.end() ? b.find("run_name") : b.find("name");
    auto time = b.find("real_time");
    auto unit = b.find("time_unit");
    if (name == b.end() || !name->is_string())
      return InvalidInput(where + ".name: must be a string");
    if (time == b.end() || !time->is_number() || time->get<double>() < 0) {
      return InvalidInput(where + ".real_time: must be a non-negative number");
    }
    std::string u = unit != b.end() && unit->is_string() ? unit->get<std::string>() : "ns";
    if (u != "ns" && u != "us" && u != "ms" && u != "s") {
      return InvalidInput(where + ".time_unit: must be ns, us, ms or s, got \"" + u + "\"");
    }
    // "BM_attn/128/64" -> kernel "BM_attn", shape "128/64" (or --shape when given).
    std::string n = name->get<std::string>();
    size_t slash = n.find('/');
    Sample s{n.substr(0, slash), slash == n.npos ? "" : n.substr(slash + 1),
             NormaliseUnit(time->get<double>(), u).value};
    if (!opt.shape.empty()) s.shape = opt.shape;
    AddSample(&out, proto, s, std::to_string(i));
  }
  return out;
}

Result<std::vector<KernelProfile>> ImportTimingCsv(std::istream& in, const ImportOptions& opt) {
  CsvReader csv(in, opt.shown);
  std::vector<std::string> h, f;
  AV_ASSIGN_OR_RETURN(bool got, csv.Next(&h));
  // A leading "# ..." line says where the timings came from; it is skipped.
  while (got && !h.empty() && h[0].rfind('#', 0) == 0) {
    AV_ASSIGN_OR_RETURN(got, csv.Next(&h));
  }
  if (!got)
    return InvalidInput(opt.shown + ": empty file (expected a kernel,shape,time_ns header)");
  const int kernel = FindColumn(h, "kernel"), shape = FindColumn(h, "shape");
  int time = FindColumn(h, "time_ns");
  const char* unit = "ns";
  if (time < 0 && (time = FindColumn(h, "time_us")) >= 0) unit = "us";
  if (time < 0 && (time = FindColumn(h, "time_ms")) >= 0) unit = "ms";
  if (kernel < 0 || time < 0) {
    return InvalidInput(opt.shown + ":" + std::to_string(csv.line()) +
                        ": the header must name the columns kernel and time_ns (shape optional)");
  }
  KernelProfile proto = Proto(opt, "timing-csv", "timing-csv");
  std::vector<KernelProfile> out;
  while (true) {
    AV_ASSIGN_OR_RETURN(bool more, csv.Next(&f));
    if (!more) break;
    if ((f.size() == 1 && f[0].empty()) || (!f.empty() && f[0].rfind('#', 0) == 0)) continue;
    if (f.size() != h.size()) {
      return csv.ErrorHere(std::to_string(f.size()) + " fields, the header has " +
                           std::to_string(h.size()));
    }
    std::optional<double> v = ParseProfilerNumber(f[time]);
    if (!v || *v < 0)
      return csv.ErrorHere("time is not a non-negative number: \"" + f[time].substr(0, 40) + "\"");
    if (f[kernel].empty()) return csv.ErrorHere("empty kernel name");
    Sample s{f[kernel], shape >= 0 ? f[shape] : "", NormaliseUnit(*v, unit).value};
    if (!opt.shape.empty()) s.shape = opt.shape;
    AddSample(&out, proto, s, std::to_string(csv.line()));
  }
  return out;
}

}  // namespace av::profile
