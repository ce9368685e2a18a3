#include "evidence/resources_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

namespace av {
namespace {

ResourcesKernelSide SideRecord(const KernelResources& k) {
  ResourcesKernelSide s;
  s.mangled = k.mangled;
  s.registers = k.registers;
  s.barriers = k.barriers;
  s.stack_frame_bytes = k.stack_frame_bytes;
  s.cumulative_stack_bytes = k.cumulative_stack_bytes;
  s.spill_store_bytes = k.spill_store_bytes;
  s.spill_load_bytes = k.spill_load_bytes;
  s.static_smem_bytes = k.static_smem_bytes;
  s.dynamic_smem_bytes = k.dynamic_smem_bytes;
  s.total_smem_bytes = k.total_smem_bytes;
  s.smem_cap_bytes = k.smem_cap_bytes;
  s.block_size = k.block_size > 0 ? k.block_size : -1;
  if (k.smem_cap_bytes >= 0 && k.total_smem_bytes >= 0) {
    s.smem_headroom_bytes = k.smem_headroom_bytes;
    s.smem_headroom_pct = std::round(k.smem_headroom_pct * 100) / 100;
  }
  s.ptxas_overflow = k.ptxas_overflow;
  s.overflow_bytes = k.overflow_bytes;
  s.overflow_max_bytes = k.overflow_max_bytes;
  if (k.occupancy) {
    const Occupancy& o = *k.occupancy;
    s.occupancy = ResourcesOccupancy{o.blocks_per_sm,
                                     o.warps_per_sm,
                                     std::round(o.occupancy * 10000) / 10000,
                                     OccupancyLimiterName(o.limiter),
                                     o.smem_allocated_per_block,
                                     o.registers_allocated_per_block,
                                     o.reason};
  } else {
    s.occupancy_note = k.occupancy_note;
  }
  return s;
}

ResourcesRevision RevisionRecord(const RevisionInfo& r, const std::string& package_dir) {
  ResourcesRevision x;
  x.ref = r.ref;
  x.commit = r.commit;
  x.log = PackageRelative(package_dir, r.log_path);
  x.commands = r.commands;
  x.exit_codes.assign(r.exit_codes.begin(), r.exit_codes.end());
  x.errors = r.errors;
  x.truncated = r.truncated;
  return x;
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

ResourcesRecord ResourcesReportToRecord(const ResourcesReport& r, Provenance provenance,
                                        const std::string& package_dir) {
  ResourcesRecord out;
  out.status = r.status;
  out.missing_reason = r.missing_reason;
  out.nvcc_path = r.nvcc_path;
  out.nvcc_version = r.nvcc_version;
  out.archs = r.archs;
  out.head = RevisionRecord(r.head, package_dir);
  if (r.base) out.base = RevisionRecord(*r.base, package_dir);
  for (const KernelRow& row : r.kernels) {
    ResourcesKernelRow k;
    k.kernel = row.demangled;
    k.arch = row.arch;
    k.change = KernelChangeName(row.change);
    if (row.base) k.base = SideRecord(*row.base);
    if (row.head) k.head = SideRecord(*row.head);
    out.kernels.push_back(std::move(k));
  }
  for (const GateResult& g : r.gates) {
    ResourcesGate x;
    x.gate = g.name;
    x.enabled = g.enabled;
    x.skipped = g.skipped;
    x.passed = g.passed;
    x.rule = g.reason;
    x.failures = g.failures;
    out.gates.push_back(std::move(x));
  }
  for (const BuildFinding& f : r.findings) {
    out.findings.push_back({f.severity, f.kind, f.message, f.file, f.kernel, f.line});
  }
  for (const PtxasDiagnostic& d : r.diagnostics) {
    out.diagnostics.push_back({d.severity, d.kind, d.tool, d.message, d.function, d.arch,
                               d.source_file, d.source_line, d.log_line, d.bytes, d.max_bytes});
  }
  // The logs this evidence was judged from; a log that cannot be read (the build never
  // wrote it) is left out rather than failing the stage.
  for (const RevisionInfo* rev : {&r.head, r.base ? &*r.base : nullptr}) {
    if (rev != nullptr && !rev->log_path.empty())
      (void)AddInputFile(&provenance, package_dir, rev->log_path);
  }
  if (provenance.head_commit.empty()) provenance.head_commit = r.head.commit;
  if (provenance.finished.empty()) provenance.finished = UtcNowRfc3339();
  out.tool_version = provenance.tool_version;
  out.provenance = std::move(provenance);
  out.has_provenance = true;
  return out;
}

nlohmann::json ResourcesReportToJson(const ResourcesReport& report, Provenance provenance,
                                     const std::string& package_dir) {
  return ResourcesToJson(ResourcesReportToRecord(report, std::move(provenance), package_dir));
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
