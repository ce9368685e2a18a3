#include "evidence/resources_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "evidence/ptxas_log_json.h"

namespace av {
namespace {

using nlohmann::json;

json OrNull(int64_t v) { return v < 0 ? json() : json(v); }

json KernelJson(const KernelResources& k) {
  json j = {{"mangled", k.mangled},
            {"registers", OrNull(k.registers)},
            {"barriers", OrNull(k.barriers)},
            {"stack_frame_bytes", OrNull(k.stack_frame_bytes)},
            {"cumulative_stack_bytes", OrNull(k.cumulative_stack_bytes)},
            {"spill_store_bytes", OrNull(k.spill_store_bytes)},
            {"spill_load_bytes", OrNull(k.spill_load_bytes)},
            {"static_smem_bytes", OrNull(k.static_smem_bytes)},
            {"dynamic_smem_bytes", OrNull(k.dynamic_smem_bytes)},
            {"total_smem_bytes", OrNull(k.total_smem_bytes)},
            {"smem_cap_bytes", OrNull(k.smem_cap_bytes)},
            {"block_size", k.block_size > 0 ? json(k.block_size) : json()}};
  if (k.smem_cap_bytes >= 0 && k.total_smem_bytes >= 0) {
    j["smem_headroom_bytes"] = k.smem_headroom_bytes;
    j["smem_headroom_pct"] = std::round(k.smem_headroom_pct * 100) / 100;
  }
  if (k.ptxas_overflow) {
    j["ptxas_overflow"] = {{"bytes", k.overflow_bytes},
                           {"max_bytes", k.overflow_max_bytes},
                           {"over_by_bytes", k.overflow_bytes - k.overflow_max_bytes}};
  }
  if (k.occupancy) {
    const Occupancy& o = *k.occupancy;
    j["occupancy"] = {{"blocks_per_sm", o.blocks_per_sm},
                      {"warps_per_sm", o.warps_per_sm},
                      {"occupancy", std::round(o.occupancy * 10000) / 10000},
                      {"limited_by", OccupancyLimiterName(o.limiter)},
                      {"smem_allocated_per_block", o.smem_allocated_per_block},
                      {"registers_allocated_per_block", o.registers_allocated_per_block}};
    if (!o.reason.empty()) j["occupancy"]["reason"] = o.reason;
  } else {
    j["occupancy"] = nullptr;
    j["occupancy_note"] = k.occupancy_note;
  }
  return j;
}

json RevisionJson(const RevisionInfo& r) {
  return {{"ref", r.ref},
          {"commit", r.commit.empty() ? json() : json(r.commit)},
          {"log", r.log_path},
          {"commands", r.commands},
          {"exit_codes", r.exit_codes},
          {"errors", r.errors},
          {"truncated", r.truncated}};
}

std::string Cut(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

std::string Num(int64_t v) { return v < 0 ? "?" : std::to_string(v); }

// "a" when equal or one side is missing, else "a -> b".
std::string Pair(const std::optional<KernelResources>& b, const std::optional<KernelResources>& h,
                 const std::function<std::string(const KernelResources&)>& f) {
  if (!h) return b ? f(*b) + " -> -" : "";
  if (!b) return f(*h);
  std::string x = f(*b), y = f(*h);
  return x == y ? y : x + " -> " + y;
}

std::string SmemCell(const KernelResources& k) {
  std::string s = Num(k.static_smem_bytes);
  if (k.dynamic_smem_bytes >= 0) s += "+" + std::to_string(k.dynamic_smem_bytes);
  return s;
}

std::string HeadroomCell(const KernelResources& k) {
  if (k.ptxas_overflow)
    return "over by " + std::to_string(k.overflow_bytes - k.overflow_max_bytes) + " (ptxas)";
  if (k.smem_cap_bytes < 0 || k.total_smem_bytes < 0) return "?";
  if (k.smem_headroom_bytes < 0) return "over by " + std::to_string(-k.smem_headroom_bytes);
  return fmt::format("{} ({:.1f}%)", k.smem_headroom_bytes, k.smem_headroom_pct);
}

std::string OccupancyCell(const KernelResources& k) {
  if (!k.occupancy) return "-";
  return fmt::format("{} ({})", k.occupancy->warps_per_sm,
                     OccupancyLimiterName(k.occupancy->limiter));
}

}  // namespace

json ResourcesReportToJson(const ResourcesReport& r, const std::string& tool_version) {
  json kernels = json::array();
  for (const KernelRow& row : r.kernels) {
    kernels.push_back({{"kernel", row.demangled},
                       {"arch", row.arch},
                       {"change", KernelChangeName(row.change)},
                       {"base", row.base ? KernelJson(*row.base) : json()},
                       {"head", row.head ? KernelJson(*row.head) : json()}});
  }
  json gates = json::array();
  for (const GateResult& g : r.gates) {
    gates.push_back({{"gate", g.name},
                     {"enabled", g.enabled},
                     {"skipped", g.skipped},
                     {"passed", g.passed},
                     {"rule", g.reason},
                     {"failures", g.failures}});
  }
  json findings = json::array();
  for (const BuildFinding& f : r.findings) {
    json j = {{"severity", SeverityName(f.severity)}, {"kind", f.kind}, {"message", f.message}};
    if (!f.file.empty()) j["file"] = f.file, j["line"] = f.line;
    if (!f.kernel.empty()) j["kernel"] = f.kernel;
    findings.push_back(j);
  }
  json diags = json::array();
  for (const PtxasDiagnostic& d : r.diagnostics) diags.push_back(PtxasDiagnosticToJson(d));
  return {{"schema", kResourcesJsonSchema},
          {"tool", {{"name", "attnverify"}, {"version", tool_version}}},
          {"status", r.status},
          {"missing_reason", r.missing_reason.empty() ? json() : json(r.missing_reason)},
          {"nvcc",
           {{"path", r.nvcc_path.empty() ? json() : json(r.nvcc_path)},
            {"version", r.nvcc_version.empty() ? json() : json(r.nvcc_version)}}},
          {"archs", r.archs},
          {"head", RevisionJson(r.head)},
          {"base", r.base ? RevisionJson(*r.base) : json()},
          {"kernels", kernels},
          {"findings", findings},
          {"gates", gates},
          {"diagnostics", diags}};
}

std::string FormatResourcesTable(const ResourcesReport& r) {
  std::string out;
  if (r.status == "missing") {
    return "compile evidence missing: " + r.missing_reason + "\n";
  }
  out += "compile evidence for " + (r.head.ref.empty() ? std::string("head") : r.head.ref);
  if (r.base)
    out += " vs base " + r.base->ref +
           (r.base->commit.empty() ? "" : " (" + r.base->commit.substr(0, 12) + ")");
  if (!r.nvcc_version.empty()) out += ", nvcc " + r.nvcc_version;
  out += "\n\n";
  std::vector<std::vector<std::string>> rows = {{"kernel", "arch", "regs", "spill B", "stack B",
                                                 "smem B (static+dyn)", "cap B", "headroom B",
                                                 "warps/SM", "change"}};
  for (const KernelRow& row : r.kernels) {
    const KernelResources& any = row.head ? *row.head : *row.base;
    rows.push_back(
        {Cut(row.demangled, 60), row.arch,
         Pair(row.base, row.head, [](const KernelResources& k) { return Num(k.registers); }),
         Pair(row.base, row.head,
              [](const KernelResources& k) { return std::to_string(k.SpillBytes()); }),
         Pair(row.base, row.head,
              [](const KernelResources& k) { return Num(k.stack_frame_bytes); }),
         Pair(row.base, row.head, SmemCell), Num(any.smem_cap_bytes),
         row.head ? HeadroomCell(*row.head) : "", Pair(row.base, row.head, OccupancyCell),
         KernelChangeName(row.change)});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i] + std::string(width[i] - row[i].size() + (i + 1 < row.size() ? 2 : 0), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (r.kernels.empty()) out += "(no kernels in the log)\n";
  if (!r.findings.empty()) {
    out += "\nfindings:\n";
    for (const BuildFinding& f : r.findings) {
      out += std::string("  ") + SeverityName(f.severity) + ": " +
             (f.file.empty() ? "" : f.file + ":" + std::to_string(f.line) + ": ") + f.message +
             "\n";
    }
  }
  int errors = 0;
  for (const PtxasDiagnostic& d : r.diagnostics) errors += d.severity == Severity::kError;
  if (errors > 0) {
    out += "\nerrors in the log:\n";
    for (const PtxasDiagnostic& d : r.diagnostics) {
      if (d.severity != Severity::kError) continue;
      out += "  " +
             (d.source_file.empty() ? ""
                                    : d.source_file + ":" + std::to_string(d.source_line) + ": ") +
             d.tool + ": " + d.message + "\n";
    }
  }
  out += "\ngates:\n";
  int failed = 0;
  for (const GateResult& g : r.gates) {
    std::string verdict = !g.enabled ? "off " : g.skipped ? "skip" : g.passed ? "PASS" : "FAIL";
    failed += g.enabled && !g.skipped && !g.passed;
    out += fmt::format("  {} {:<20} {}\n", verdict, g.name, g.reason);
    for (const std::string& f : g.failures) out += "         " + f + "\n";
  }
  out += "\nverdict: " + r.status;
  if (failed > 0)
    out += " (" + std::to_string(failed) + (failed == 1 ? " gate" : " gates") + " failed)";
  out += "\n";
  return out;
}

}  // namespace av
