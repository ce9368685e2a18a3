#include "compile/resources_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "compile/demangle.h"

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
  s.bad_count = k.bad_count;
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

ResourcesRevision RevisionRecord(const RevisionInfo& r) {
  ResourcesRevision x;
  x.ref = r.ref;
  x.commit = r.commit;
  x.log = r.log_path;  // package-relative already (build_evidence.cc)
  x.commands = r.commands;
  x.exit_codes.assign(r.exit_codes.begin(), r.exit_codes.end());
  x.errors = r.errors;
  x.truncated = r.truncated;
  return x;
}

// The demangled name without its return type: "tile_copy<128>(float const*, float*, int)".
std::string WithoutReturnType(const std::string& demangled) {
  std::string shortname = KernelShortName(demangled);
  size_t at = shortname.empty() ? std::string::npos : demangled.find(shortname);
  return at == std::string::npos ? demangled : demangled.substr(at);
}

// `s` without namespace qualifiers ("cutlass::bfloat16_t" -> "bfloat16_t").
std::string DropQualifiers(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    if (j > i && s.compare(j, 2, "::") == 0) {
      i = j + 2;  // a qualifier: dropped
    } else if (j > i) {
      out.append(s, i, j - i);
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// "a...z": `s` cut in the middle to `width` characters.
std::string ElideMiddle(const std::string& s, size_t width) {
  if (s.size() <= width || width < 5) return s;
  const size_t keep = width - 3;
  return s.substr(0, (keep + 1) / 2) + "..." + s.substr(s.size() - keep / 2);
}

// "name<a, b<c, d>, e>(params)" -> "name" and {"a", "b<c, d>", "e"}; false when `s` has no
// template argument list before its parameters.
bool SplitTemplateArgs(const std::string& s, std::string* name, std::vector<std::string>* args) {
  const size_t lt = s.find('<');
  if (lt == std::string::npos || s.find('(') < lt) return false;
  *name = s.substr(0, lt);
  args->clear();
  int depth = 0;
  size_t start = lt + 1;
  for (size_t i = lt; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '<' || ch == '(' || ch == '[') {
      ++depth;
    } else if (ch == '>' || ch == ')' || ch == ']') {
      if (--depth == 0) {
        std::string arg = s.substr(start, i - start);
        while (!arg.empty() && arg.front() == ' ') arg.erase(0, 1);
        args->push_back(arg);
        return true;
      }
    } else if (ch == ',' && depth == 1) {
      std::string arg = s.substr(start, i - start);
      while (!arg.empty() && arg.front() == ' ') arg.erase(0, 1);
      args->push_back(arg);
      start = i + 1;
    }
  }
  return false;
}

// Names for the table's kernel column, at most kWidth (+ " #n") characters whatever the
// template: a name that does not fit keeps the kernel's name and the template arguments
// that tell its instantiations apart ("..." for the ones every instantiation of that
// kernel shares, each kept one cut to 20 characters), drops the parameter list, and is cut
// in the middle if still too long. Names that still coincide get " #1", " #2", ... in row
// order (resources.json holds every full name). A 400-character CUTLASS name no longer
// widens every row of the table.
std::vector<std::string> DisplayNames(const std::vector<KernelRow>& rows) {
  constexpr size_t kWidth = 72, kArg = 20;
  std::vector<std::string> full, shown(rows.size());
  std::vector<std::string> names(rows.size());
  std::vector<std::vector<std::string>> args(rows.size());
  std::vector<bool> split(rows.size(), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    full.push_back(WithoutReturnType(rows[i].demangled));
    std::string s = full.back();
    if (s.size() > kWidth) s = DropQualifiers(s);
    shown[i] = s;
    if (s.size() > kWidth) split[i] = SplitTemplateArgs(s, &names[i], &args[i]);
  }
  // Per kernel name, the argument positions in which its instantiations differ.
  std::map<std::string, std::vector<bool>> differs;
  std::map<std::string, const std::vector<std::string>*> first;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!split[i]) continue;
    auto it = first.emplace(names[i], &args[i]).first;
    std::vector<bool>& d = differs[names[i]];
    const std::vector<std::string>& f = *it->second;
    d.resize(std::max({d.size(), f.size(), args[i].size()}), false);
    for (size_t p = 0; p < d.size(); ++p) {
      if (p >= f.size() || p >= args[i].size() || f[p] != args[i][p]) d[p] = true;
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (shown[i].size() <= kWidth) continue;
    if (split[i]) {
      const std::vector<bool>& d = differs[names[i]];
      std::string list;
      bool dots = false;
      for (size_t p = 0; p < args[i].size(); ++p) {
        if (p < d.size() && d[p]) {
          list += (list.empty() ? "" : ", ") + ElideMiddle(args[i][p], kArg);
          dots = false;
        } else if (!dots) {
          list += (list.empty() ? "" : ", ") + std::string("...");
          dots = true;
        }
      }
      shown[i] = names[i] + "<" + list + ">";
    }
    shown[i] = ElideMiddle(shown[i], kWidth);
  }
  std::map<std::string, std::set<std::string>> fulls_of;  // shown name -> the names it stands for
  for (size_t i = 0; i < rows.size(); ++i) fulls_of[shown[i]].insert(full[i]);
  std::map<std::string, std::vector<std::string>> numbered;  // shown -> fulls in row order
  for (size_t i = 0; i < rows.size(); ++i) {
    if (fulls_of[shown[i]].size() <= 1) continue;
    std::vector<std::string>& seen = numbered[shown[i]];
    auto at = std::find(seen.begin(), seen.end(), full[i]);
    if (at == seen.end()) at = seen.insert(seen.end(), full[i]);
    shown[i] += " #" + std::to_string(at - seen.begin() + 1);
  }
  return shown;
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
  if (!k.dynamic_smem_unknown.empty()) s += "+?";
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
  out.head = RevisionRecord(r.head);
  if (r.base) out.base = RevisionRecord(*r.base);
  out.kernels.reserve(r.kernels.size());  // no regrowth: 300,000 rows are ~250 MB
  for (const KernelRow& row : r.kernels) {
    ResourcesKernelRow k;
    k.kernel = row.demangled;
    k.arch = row.arch;
    k.change = KernelChangeName(row.change);
    k.pairing = KernelPairingName(row.pairing);
    if (row.base) k.base = SideRecord(*row.base);
    if (row.head) k.head = SideRecord(*row.head);
    out.kernels.push_back(std::move(k));
  }
  for (const GateResult& g : r.gates) {
    ResourcesGate x;
    x.gate = g.name;
    x.enabled = g.enabled;
    x.status = g.status;
    x.reason = g.reason;
    x.judged = g.judged;
    x.skipped = g.missing();
    x.passed = g.passed();
    x.rule = g.rule;
    x.failures = g.failures;
    out.gates.push_back(std::move(x));
  }
  out.warnings = r.warnings;
  for (const UnmatchedKernelEntry& u : r.unmatched_kernel_entries) {
    out.unmatched_kernel_entries.push_back({u.name, u.line, u.dynamic_smem_bytes, u.matches_base});
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
      (void)AddInputFile(&provenance, package_dir, ResolveInPackage(package_dir, rev->log_path));
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

std::string ResourcesReportToJsonText(const ResourcesReport& report, Provenance provenance,
                                      const std::string& package_dir) {
  return ResourcesToJsonText(ResourcesReportToRecord(report, std::move(provenance), package_dir));
}

std::string FormatResourcesTable(const ResourcesReport& r) {
  std::string out;
  if (r.status == ResourcesStatus::kMissing) {
    return "compile evidence missing: " + r.missing_reason + "\n";
  }
  out += "compile evidence for " + (r.head.ref.empty() ? std::string("head") : r.head.ref);
  if (r.base)
    out += " vs base " + r.base->ref +
           (r.base->commit.empty() ? "" : " (" + r.base->commit.substr(0, 12) + ")");
  if (!r.nvcc_version.empty()) out += ", nvcc " + r.nvcc_version;
  out += "\n\n";
  std::vector<std::vector<std::string>> rows = {{"kernel", "arch", "regs", "barriers", "spill B",
                                                 "stack B", "smem B (static+dyn)", "cap B",
                                                 "headroom B", "warps/SM", "change"}};
  const std::vector<std::string> names = DisplayNames(r.kernels);
  std::vector<std::string> renamed;
  // 200 rows: a console is read, resources.json is the record. A 300,000-kernel log printed
  // 300,000 lines (and held them twice over in memory) (reliability turn 3, L2).
  constexpr size_t kMaxRows = 200;
  const size_t shown = std::min(r.kernels.size(), kMaxRows);
  for (size_t i = 0; i < shown; ++i) {
    const KernelRow& row = r.kernels[i];
    const KernelResources& any = row.head ? *row.head : *row.base;
    std::string change = KernelChangeName(row.change);
    if (row.pairing == KernelPairing::kSignatureChanged) {
      change += " (signature)";
      renamed.push_back(WithoutReturnType(row.base->demangled) + " -> " +
                        WithoutReturnType(row.head->demangled) + " on " + row.arch);
    }
    rows.push_back(
        {names[i], row.arch,
         Pair(row.base, row.head, [](const KernelResources& k) { return Num(k.registers); }),
         Pair(row.base, row.head, [](const KernelResources& k) { return Num(k.barriers); }),
         Pair(row.base, row.head,
              [](const KernelResources& k) { return std::to_string(k.SpillBytes()); }),
         Pair(row.base, row.head,
              [](const KernelResources& k) { return Num(k.stack_frame_bytes); }),
         Pair(row.base, row.head, SmemCell), Num(any.smem_cap_bytes),
         row.head ? HeadroomCell(*row.head) : "", Pair(row.base, row.head, OccupancyCell), change});
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
  if (shown < r.kernels.size()) {
    out += "... and " + std::to_string(r.kernels.size() - shown) +
           " more kernel rows (every row is in evidence/resources.json)\n";
  }
  if (!renamed.empty()) {
    out += "\npaired across a signature change (same name, other template arguments):\n";
    for (const std::string& p : renamed) out += "  " + p + "\n";
  }
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
  if (!r.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const std::string& w : r.warnings) out += "  " + w + "\n";
  }
  out += "\ngates:\n";
  int failed = 0;
  std::vector<std::string> missing;
  for (const GateResult& g : r.gates) {
    std::string verdict = !g.enabled                         ? "off "
                          : g.status == CheckStatus::kMissing ? "MISS"
                          : g.passed()                       ? "PASS"
                                                             : "FAIL";
    failed += g.enabled && g.status == CheckStatus::kFail;
    if (g.enabled && g.missing()) missing.push_back(g.name);
    out += fmt::format("  {} {:<20} {}\n", verdict, g.name, g.rule);
    if (g.enabled && g.missing()) out += "         missing: " + g.reason + "\n";
    for (const std::string& f : g.failures) out += "         " + f + "\n";
  }
  out += "\nverdict: " + std::string(ResourcesStatusName(r.status));
  if (failed > 0) {
    out += " (" + std::to_string(failed) + (failed == 1 ? " gate" : " gates") + " failed)";
  } else if (!missing.empty()) {
    std::string names;
    for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
    out += " (nothing to judge for " + names + ")";
  }
  out += "\n";
  return out;
}

}  // namespace av
