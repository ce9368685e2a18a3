// ncu --csv, the details page (one row per metric per launch) and the raw page (one row
// per launch). Both start after the preamble ncu and the profiled program print; the
// header is the first line whose first field is "ID".
#include <algorithm>
#include <map>
#include <sstream>

#include "profile/csv_reader.h"
#include "profile/import.h"

namespace av::profile {
namespace {

bool IsHeaderLine(const std::string& line) {
  return line.rfind("\"ID\",", 0) == 0 || line.rfind("ID,", 0) == 0;
}

// Skips the preamble; the header's fields into `header`. An ==ERROR== line with no
// header after it is the error.
Status ReadHeader(CsvReader& csv, std::vector<std::string>* header) {
  std::string line, error_line;
  while (true) {
    AV_ASSIGN_OR_RETURN(bool more, csv.NextLine(&line));
    if (!more) break;
    if (line.rfind("==ERROR==", 0) == 0 && error_line.empty()) error_line = line;
    if (!IsHeaderLine(line)) continue;
    std::istringstream one(line);
    CsvReader row(one, csv.shown());
    AV_ASSIGN_OR_RETURN(bool got, row.Next(header));
    if (!got) break;
    return Status::Ok();
  }
  if (!error_line.empty()) {
    return InvalidInput(csv.shown() +
                        ": ncu reported an error and wrote no table: " + error_line.substr(0, 300));
  }
  return InvalidInput(csv.shown() +
                      ": no ncu table: no line starts with the \"ID\" column (is this "
                      "`ncu --csv` output?)");
}

std::string LayoutName(const std::vector<std::string>& header, const char* page) {
  std::string v = FindColumn(header, "Kernel Time") >= 0         ? "2019-2020 layout"
                  : FindColumn(header, "Estimated Speedup") >= 0 ? "2023+ layout"
                                                                 : "2021-2022 layout";
  return std::string(page) + ", " + v + " (" + std::to_string(header.size()) + " columns)";
}

KernelProfile Proto(const ImportOptions& opt, const char* format, std::string version) {
  KernelProfile p;
  p.label = opt.label;
  p.shape = opt.shape;
  p.tool = "ncu";
  p.tool_version = std::move(version);
  p.format = format;
  p.source_file = opt.shown;
  p.source_sha256 = opt.sha256;
  return p;
}

bool IsBlankRecord(const std::vector<std::string>& f) { return f.size() == 1 && f[0].empty(); }

Result<std::vector<KernelProfile>> ReadDetails(CsvReader& csv, const std::vector<std::string>& h,
                                               const ImportOptions& opt) {
  const int id = FindColumn(h, "ID"), name = FindColumn(h, "Kernel Name"),
            metric = FindColumn(h, "Metric Name"), unit = FindColumn(h, "Metric Unit"),
            value = FindColumn(h, "Metric Value"), grid = FindColumn(h, "Grid Size"),
            block = FindColumn(h, "Block Size");
  if (name < 0 || metric < 0 || unit < 0 || value < 0) {
    return InvalidInput(opt.shown + ":" + std::to_string(csv.line()) +
                        ": the ncu header lacks one of \"Kernel Name\", \"Metric Name\", "
                        "\"Metric Unit\", \"Metric Value\"");
  }
  const size_t needed = static_cast<size_t>(std::max({id, name, metric, unit, value})) + 1;
  std::vector<std::pair<std::string, Launch>> launches;
  std::map<std::string, size_t> by_id;
  std::vector<std::string> f;
  while (true) {
    AV_ASSIGN_OR_RETURN(bool more, csv.Next(&f));
    if (!more) break;
    if (IsBlankRecord(f) || (f.size() == 1 && f[0].rfind("==", 0) == 0)) continue;
    if (f.size() > h.size()) {
      return csv.ErrorHere(std::to_string(f.size()) + " fields, the header has " +
                           std::to_string(h.size()));
    }
    if (f.size() < needed) {
      return csv.ErrorHere(std::to_string(f.size()) + " fields, fewer than the " +
                           std::to_string(needed) +
                           " that reach \"Metric Value\" (a truncated file?)");
    }
    auto [it, fresh] = by_id.emplace(f[id] + '\x1f' + f[name], launches.size());
    if (fresh) {
      Launch l;
      l.id = f[id];
      if (grid >= 0 && static_cast<size_t>(grid) < f.size()) l.grid = f[grid];
      if (block >= 0 && static_cast<size_t>(block) < f.size()) l.block = f[block];
      launches.emplace_back(f[name], std::move(l));
    }
    Launch& l = launches[it->second].second;
    if (const char* figure = FigureForMetric(f[metric])) {
      Result<bool> set = SetFigure(&l, figure, f[metric], f[value], f[unit]);
      if (!set.ok()) return csv.ErrorHere(set.status().message());
    }
    // The 2019 layout has no Grid/Block columns; its Launch Statistics rows say them.
    if (l.grid.empty() && f[metric] == "Grid Size") l.grid = f[value];
    if (l.block.empty() && f[metric] == "Block Size") l.block = f[value];
  }
  for (auto& [n, l] : launches) DeriveLimiter(&l);
  return GroupByKernel(launches, Proto(opt, "ncu-details", LayoutName(h, "details page")));
}

Result<std::vector<KernelProfile>> ReadRaw(CsvReader& csv, const std::vector<std::string>& h,
                                           const ImportOptions& opt) {
  const int id = FindColumn(h, "ID"), name = FindColumn(h, "Kernel Name"),
            grid = FindColumn(h, "Grid Size"), block = FindColumn(h, "Block Size");
  if (name < 0) {
    return InvalidInput(opt.shown + ":" + std::to_string(csv.line()) +
                        ": the ncu raw header has no \"Kernel Name\" column");
  }
  std::vector<std::pair<size_t, const char*>> columns;  // metric column -> figure
  for (size_t i = 0; i < h.size(); ++i) {
    if (const char* figure = FigureForMetric(h[i])) columns.emplace_back(i, figure);
  }
  std::vector<std::string> units(h.size()), f;
  std::vector<std::pair<std::string, Launch>> launches;
  bool first = true;
  while (true) {
    AV_ASSIGN_OR_RETURN(bool more, csv.Next(&f));
    if (!more) break;
    if (IsBlankRecord(f)) continue;
    if (f.size() != h.size()) {
      return csv.ErrorHere(std::to_string(f.size()) + " fields, the header has " +
                           std::to_string(h.size()) +
                           (f.size() < h.size() ? " (a truncated file?)" : ""));
    }
    // The units row: no ID, no kernel name, units under the metric columns.
    if (first && f[id].empty() && f[name].empty()) {
      units = f;
      first = false;
      continue;
    }
    first = false;
    Launch l;
    l.id = f[id];
    if (grid >= 0) l.grid = f[grid];
    if (block >= 0) l.block = f[block];
    for (auto [col, figure] : columns) {
      Result<bool> set = SetFigure(&l, figure, h[col], f[col], units[col]);
      if (!set.ok()) return csv.ErrorHere(set.status().message());
    }
    DeriveLimiter(&l);
    launches.emplace_back(f[name], std::move(l));
  }
  return GroupByKernel(launches, Proto(opt, "ncu-raw", LayoutName(h, "raw page")));
}

}  // namespace

Result<std::vector<KernelProfile>> ImportNcu(std::istream& in, const ImportOptions& opt) {
  CsvReader csv(in, opt.shown);
  std::vector<std::string> header;
  AV_RETURN_IF_ERROR(ReadHeader(csv, &header));
  if (FindColumn(header, "Metric Name") >= 0) return ReadDetails(csv, header, opt);
  return ReadRaw(csv, header, opt);
}

Result<std::vector<KernelProfile>> ImportNcuDetails(std::istream& in, const ImportOptions& opt) {
  CsvReader csv(in, opt.shown);
  std::vector<std::string> header;
  AV_RETURN_IF_ERROR(ReadHeader(csv, &header));
  return ReadDetails(csv, header, opt);
}

Result<std::vector<KernelProfile>> ImportNcuRaw(std::istream& in, const ImportOptions& opt) {
  CsvReader csv(in, opt.shown);
  std::vector<std::string> header;
  AV_RETURN_IF_ERROR(ReadHeader(csv, &header));
  if (FindColumn(header, "Metric Name") >= 0) {
    return InvalidInput(opt.shown +
                        ": this is ncu's details page (it has \"Metric Name\"), "
                        "not the raw page");
  }
  return ReadRaw(csv, header, opt);
}

}  // namespace av::profile
