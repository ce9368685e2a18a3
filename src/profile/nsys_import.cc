// nsys stats --report cuda_gpu_kern_sum --format csv (and the older gpukernsum): one row
// per kernel with the tool's own statistics over its instances. Column sets differ by
// version ("Time(%)" / "Time (%)", "Average" / "Avg (ns)", "Med (ns)" only since 2021),
// so columns are found by a normalised header name; the time unit is read from it.
#include <cctype>

#include "profile/csv_reader.h"
#include "profile/import.h"
#include "profile/units.h"

namespace av::profile {
namespace {

// "Avg (ns)" -> {"avg", "ns"}; "Average" -> {"avg", ""}; lower case, no spaces.
std::pair<std::string, std::string> NormaliseColumn(std::string_view h) {
  std::string unit;
  size_t open = h.find('(');
  if (open != h.npos && h.back() == ')') {
    unit = std::string(h.substr(open + 1, h.size() - open - 2));
    h = h.substr(0, open);
  }
  std::string name;
  for (char c : h) {
    if (c != ' ') name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (name == "average") name = "avg";
  if (name == "minimum") name = "min";
  if (name == "maximum") name = "max";
  if (name == "median") name = "med";
  if (name == "time" && unit == "%") name = "time%";
  if (name == "time%") unit.clear();
  return {name, unit};
}

bool LooksLikeHeader(const std::vector<std::string>& f) {
  bool name = false, instances = false;
  for (const std::string& h : f) {
    auto [n, u] = NormaliseColumn(h);
    name |= n == "name";
    instances |= n == "instances";
  }
  return name && instances;
}

}  // namespace

Result<std::vector<KernelProfile>> ImportNsysKernSum(std::istream& in, const ImportOptions& opt) {
  CsvReader csv(in, opt.shown);
  std::vector<std::string> f;
  // nsys prints "Processing [...]" lines and a blank line before the table.
  while (true) {
    AV_ASSIGN_OR_RETURN(bool more, csv.Next(&f));
    if (!more) {
      return InvalidInput(opt.shown +
                          ": no nsys kernel summary header (a row with \"Name\" "
                          "and \"Instances\"; is this `nsys stats --report cuda_gpu_kern_sum "
                          "--format csv` output?)");
    }
    if (LooksLikeHeader(f)) break;
  }
  const std::vector<std::string> header = f;
  int col_name = -1, col_n = -1, col_total = -1, col_avg = -1, col_med = -1, col_min = -1,
      col_max = -1, col_sd = -1;
  std::vector<std::string> unit(header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    auto [n, u] = NormaliseColumn(header[i]);
    unit[i] = u.empty() ? "ns" : u;
    int c = static_cast<int>(i);
    if (n == "name") col_name = c;
    if (n == "instances") col_n = c;
    if (n == "totaltime") col_total = c;
    if (n == "avg") col_avg = c;
    if (n == "med") col_med = c;
    if (n == "min") col_min = c;
    if (n == "max") col_max = c;
    if (n == "stddev") col_sd = c;
  }
  const size_t header_line = csv.line();
  // A time column in a unit that is not a time unit would be read as ns: refuse it here,
  // at the header that names it.
  for (int col : {col_total, col_avg, col_med, col_min, col_max, col_sd}) {
    if (col < 0) continue;
    Result<double> ns = TimeInNs(1, unit[col], "\"" + header[col] + "\"");
    if (!ns.ok())
      return InvalidInput(opt.shown + ":" + std::to_string(header_line) + ": " +
                          ns.status().message());
  }
  if (col_avg < 0 && col_med < 0) {
    return InvalidInput(opt.shown + ":" + std::to_string(header_line) +
                        ": the nsys header has neither an average nor a median column");
  }
  KernelProfile proto;
  proto.label = opt.label;
  proto.shape = opt.shape;
  proto.tool = "nsys";
  proto.tool_version = (col_med >= 0 ? std::string("cuda_gpu_kern_sum, ") : "gpukernsum, ") +
                       std::to_string(header.size()) + " columns";
  proto.format = "nsys-kern-sum";
  proto.source_file = opt.shown;
  proto.source_sha256 = opt.sha256;
  std::vector<KernelProfile> out;
  while (true) {
    AV_ASSIGN_OR_RETURN(bool more, csv.Next(&f));
    if (!more) break;
    if (f.size() == 1 && f[0].empty()) continue;
    if (f.size() != header.size()) {
      return csv.ErrorHere(std::to_string(f.size()) + " fields, the header has " +
                           std::to_string(header.size()) +
                           (f.size() < header.size() ? " (a truncated file?)" : ""));
    }
    auto time = [&](int col, double* out_ns) -> Status {
      if (col < 0) return Status::Ok();
      std::optional<double> v = ParseProfilerNumber(f[col]);
      if (!v || *v < 0) {
        return csv.ErrorHere("\"" + header[col] + "\" is not a time: \"" + f[col].substr(0, 40) +
                             "\"");
      }
      Result<double> ns = TimeInNs(*v, unit[col], "\"" + header[col] + "\"");
      if (!ns.ok()) return csv.ErrorHere(ns.status().message());
      *out_ns = *ns;
      return Status::Ok();
    };
    Summary s;
    std::optional<double> n = ParseProfilerNumber(f[col_n]);
    if (!n || *n < 1 || *n > 9e15 || *n != static_cast<double>(static_cast<int64_t>(*n))) {
      return csv.ErrorHere("\"Instances\" is not a positive count: \"" + f[col_n].substr(0, 40) +
                           "\"");
    }
    s.instances = static_cast<int64_t>(*n);
    AV_RETURN_IF_ERROR(time(col_total, &s.total_ns));
    AV_RETURN_IF_ERROR(time(col_avg, &s.avg_ns));
    AV_RETURN_IF_ERROR(time(col_min, &s.min_ns));
    AV_RETURN_IF_ERROR(time(col_max, &s.max_ns));
    AV_RETURN_IF_ERROR(time(col_sd, &s.stddev_ns));
    s.med_ns = -1;  // unknown in gpukernsum
    AV_RETURN_IF_ERROR(time(col_med, &s.med_ns));
    if (col_avg < 0) s.avg_ns = s.med_ns;
    KernelProfile k = proto;
    k.name = NormaliseKernelName(f[col_name]);
    k.summary = s;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace av::profile
