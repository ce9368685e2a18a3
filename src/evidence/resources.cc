#include "evidence/resources.h"

#include <map>
#include <set>

#include "evidence/arch_limits.h"
#include "evidence/demangle.h"

namespace av {
namespace {

using Key = std::pair<std::string, std::string>;  // demangled, arch

std::string Bytes(int64_t n) { return std::to_string(n) + " bytes"; }

void FillBudget(const BuildConfig& config, KernelResources* k) {
  const KernelLaunchConfig* kc = FindKernelConfig(config, k->mangled, k->demangled);
  if (kc && kc->dynamic_smem_bytes) k->dynamic_smem_bytes = *kc->dynamic_smem_bytes;
  if (kc && kc->block_size)
    k->block_size = *kc->block_size;
  else if (config.block_size)
    k->block_size = *config.block_size;
  auto limits = FindArchLimits(k->arch);
  if (k->static_smem_bytes >= 0) {
    k->total_smem_bytes = k->static_smem_bytes + std::max<int64_t>(k->dynamic_smem_bytes, 0);
  }
  if (!limits) {
    k->occupancy_note = "no limits known for " + k->arch;
    return;
  }
  k->smem_cap_bytes = limits->max_smem_per_block_optin;
  if (k->total_smem_bytes >= 0) {
    k->smem_headroom_bytes = k->smem_cap_bytes - k->total_smem_bytes;
    k->smem_headroom_pct = 100.0 * static_cast<double>(k->smem_headroom_bytes) / k->smem_cap_bytes;
  }
  if (k->block_size <= 0) {
    k->occupancy_note = "block size not configured";
  } else if (k->registers < 0) {
    k->occupancy_note = "registers unknown";
  } else {
    OccupancyInput in{k->block_size, k->registers, std::max<int64_t>(k->static_smem_bytes, 0),
                      std::max<int64_t>(k->dynamic_smem_bytes, 0), std::max(k->barriers, 0)};
    auto occ = ComputeOccupancy(*limits, in);
    if (occ.ok())
      k->occupancy = *occ;
    else
      k->occupancy_note = occ.status().message();
  }
}

// Kernel resources of one revision, keyed by (demangled name, arch), in log order.
std::vector<KernelResources> Collect(const BuildConfig& config, const PtxasReport& log,
                                     const std::vector<std::string>& archs) {
  std::vector<KernelResources> out;
  std::map<Key, size_t> index;
  for (const PtxasKernel* pk : log.EntryKernels()) {
    if (pk->arch.empty()) continue;
    Key key{pk->demangled, NormalizeArch(pk->arch)};
    if (index.count(key)) continue;  // the same kernel from a second source: first wins
    KernelResources k;
    k.mangled = pk->mangled;
    k.demangled = pk->demangled;
    k.arch = key.second;
    k.registers = pk->registers;
    k.barriers = pk->barriers;
    k.stack_frame_bytes = pk->stack_frame_bytes;
    k.cumulative_stack_bytes = pk->cumulative_stack_bytes;
    k.spill_store_bytes = pk->spill_store_bytes;
    k.spill_load_bytes = pk->spill_load_bytes;
    k.static_smem_bytes = pk->smem_bytes;
    index[key] = out.size();
    out.push_back(std::move(k));
  }
  for (const PtxasDiagnostic& d : log.diagnostics) {
    if (d.kind != "smem_overflow") continue;
    std::string arch = d.arch.empty() && archs.size() == 1 ? archs[0] : NormalizeArch(d.arch);
    Key key{DemangleKernelName(d.function), arch};
    auto it = index.find(key);
    if (it == index.end()) {
      KernelResources k;
      k.mangled = d.function;
      k.demangled = key.first;
      k.arch = arch.empty() ? "unknown" : arch;
      k.static_smem_bytes = d.bytes;
      index[key] = out.size();
      out.push_back(std::move(k));
      it = index.find(key);
    }
    KernelResources& k = out[it->second];
    k.ptxas_overflow = true;
    k.overflow_bytes = d.bytes;
    k.overflow_max_bytes = d.max_bytes;
  }
  for (KernelResources& k : out) FillBudget(config, &k);
  return out;
}

bool SameResources(const KernelResources& a, const KernelResources& b) {
  return a.registers == b.registers && a.barriers == b.barriers &&
         a.static_smem_bytes == b.static_smem_bytes && a.SpillBytes() == b.SpillBytes() &&
         a.stack_frame_bytes == b.stack_frame_bytes && a.ptxas_overflow == b.ptxas_overflow;
}

std::string Name(const KernelResources& k) { return k.demangled + " on " + k.arch; }

void SourceFindings(const ResourcesInput& in, const std::vector<KernelResources>& head,
                    ResourcesReport* r) {
  for (const DynamicSmemSite& site : in.sites) {
    BuildFinding f;
    f.file = site.file;
    f.line = site.line;
    f.kernel = site.kernel_base;
    std::string where =
        site.via == "launch" ? "the launch of " + site.kernel : site.via + " for " + site.kernel;
    const KernelLaunchConfig* kc = nullptr;
    for (const KernelLaunchConfig& k : in.config->kernels) {
      if (k.name == site.kernel_base || KernelBaseName(k.name) == site.kernel_base) kc = &k;
    }
    if (!site.value) {
      f.severity = Severity::kNote;
      f.kind = "dynamic_smem_runtime";
      f.message = where + " sets dynamic shared memory from \"" + site.value_expr +
                  "\", not a compile-time constant of this file; the budget uses attnverify.toml's "
                  "dynamic_smem" +
                  (kc && kc->dynamic_smem_bytes ? " (" + Bytes(*kc->dynamic_smem_bytes) + ")"
                                                : " (not declared: counted as 0)");
      r->findings.push_back(std::move(f));
      continue;
    }
    int64_t v = *site.value;
    if (kc && kc->dynamic_smem_bytes) {
      if (*kc->dynamic_smem_bytes == v) continue;  // declared and consistent
      f.kind = "dynamic_smem_mismatch";
      f.message = where + " sets " + Bytes(v) + " of dynamic shared memory (" + site.value_expr +
                  "), but attnverify.toml declares " + Bytes(*kc->dynamic_smem_bytes) + " (line " +
                  std::to_string(kc->line) + "); the budget uses the declared value";
      r->findings.push_back(std::move(f));
      continue;
    }
    f.kind = "dynamic_smem_in_source";
    f.message =
        where + " sets " + Bytes(v) + " of dynamic shared memory (" + site.value_expr +
        "), which attnverify.toml does not declare: the budget counts 0 dynamic bytes for " +
        site.kernel_base + "; add [[build.kernel]] name = \"" + site.kernel_base +
        "\", dynamic_smem = " + std::to_string(v);
    for (const KernelResources& k : head) {
      if (KernelBaseName(k.demangled) != site.kernel_base || k.smem_cap_bytes < 0 ||
          k.static_smem_bytes < 0)
        continue;
      int64_t total = k.static_smem_bytes + v;
      if (total > k.smem_cap_bytes) {
        f.message += "; with it, " + k.arch + " would need " + Bytes(total) + ", over the " +
                     Bytes(k.smem_cap_bytes) + " cap by " + Bytes(total - k.smem_cap_bytes);
      }
    }
    r->findings.push_back(std::move(f));
  }
}

}  // namespace

int64_t KernelResources::SpillBytes() const {
  return std::max<int64_t>(spill_store_bytes, 0) + std::max<int64_t>(spill_load_bytes, 0);
}

const char* KernelChangeName(KernelChange c) {
  switch (c) {
    case KernelChange::kSame:
      return "same";
    case KernelChange::kChanged:
      return "changed";
    case KernelChange::kNew:
      return "new";
    case KernelChange::kVanished:
      return "vanished";
    case KernelChange::kHeadOnly:
      return "head";
  }
  return "head";
}

bool ResourcesReport::Passed() const {
  for (const GateResult& g : gates) {
    if (g.enabled && !g.skipped && !g.passed) return false;
  }
  return true;
}

ResourcesReport MissingResourcesReport(const std::string& reason,
                                       const std::vector<std::string>& archs) {
  ResourcesReport r;
  r.status = "missing";
  r.missing_reason = reason;
  r.archs = archs;
  r.head.label = "head";
  return r;
}

ResourcesReport ComputeResourcesReport(const ResourcesInput& in) {
  ResourcesReport r;
  r.archs = in.archs;
  const BuildConfig& config = *in.config;
  std::vector<KernelResources> head = Collect(config, *in.head, in.archs);
  std::vector<KernelResources> base;
  if (in.base) base = Collect(config, *in.base, in.archs);

  std::map<Key, const KernelResources*> base_by_key;
  for (const KernelResources& k : base) base_by_key[{k.demangled, k.arch}] = &k;
  std::set<Key> seen;
  for (const KernelResources& k : head) {
    KernelRow row;
    row.demangled = k.demangled;
    row.arch = k.arch;
    row.head = k;
    auto b = base_by_key.find({k.demangled, k.arch});
    if (!in.base)
      row.change = KernelChange::kHeadOnly;
    else if (b == base_by_key.end())
      row.change = KernelChange::kNew;
    else {
      row.base = *b->second;
      row.change = SameResources(*b->second, k) ? KernelChange::kSame : KernelChange::kChanged;
    }
    seen.insert({k.demangled, k.arch});
    r.kernels.push_back(std::move(row));
  }
  for (const KernelResources& k : base) {
    if (seen.count({k.demangled, k.arch})) continue;
    KernelRow row;
    row.demangled = k.demangled;
    row.arch = k.arch;
    row.base = k;
    row.change = KernelChange::kVanished;
    r.kernels.push_back(std::move(row));
  }

  for (const PtxasDiagnostic& d : in.head->diagnostics) {
    if (d.severity != Severity::kNote) r.diagnostics.push_back(d);
  }
  for (const std::string& arch : in.archs) {
    if (!FindArchLimits(arch)) {
      r.findings.push_back({Severity::kWarning, "unknown_arch",
                            arch +
                                ": no limits known (doc/arch-limits.md); its shared-memory cap and "
                                "occupancy are not checked",
                            "", 0, ""});
    }
  }
  if (in.head->truncated) {
    r.findings.push_back({Severity::kWarning, "truncated_log",
                          "the head log is truncated: kernels after the cut are missing", "", 0,
                          ""});
  }
  if (in.base && (in.base_build_failed || in.base->CountErrors() > 0)) {
    r.findings.push_back({Severity::kWarning, "base_build_failed",
                          "the base revision did not build cleanly (" +
                              std::to_string(in.base->CountErrors()) +
                              " error lines in its log); kernels missing from it show as new",
                          "", 0, ""});
  }
  SourceFindings(in, head, &r);

  // Gates.
  const BuildGates& gates = config.gates;
  GateResult builds{"head_builds",
                    true,
                    false,
                    true,
                    "no compile errors (shared-memory overflows are judged by smem_within_cap)",
                    {}};
  bool overflow_only = true;
  for (const PtxasDiagnostic& d : in.head->diagnostics) {
    if (d.severity != Severity::kError) continue;
    if (d.kind == "smem_overflow" || d.kind == "resource_overflow") continue;
    overflow_only = false;
    std::string where =
        d.source_file.empty() ? "" : d.source_file + ":" + std::to_string(d.source_line) + ": ";
    builds.failures.push_back(where + d.message);
  }
  if (in.head_build_failed && overflow_only && builds.failures.empty()) {
    bool any_overflow = false;
    for (const KernelResources& k : head) any_overflow |= k.ptxas_overflow;
    if (!any_overflow) {
      for (const std::string& call : in.head_failed_calls)
        builds.failures.push_back("nvcc " + call);
      if (builds.failures.empty()) {
        builds.failures.push_back(
            "nvcc failed without an error line in the log (see logs/build.log)");
      }
    }
  }
  builds.passed = builds.failures.empty();
  r.gates.push_back(builds);

  GateResult regs{"registers_max",
                  true,
                  false,
                  true,
                  "registers per thread <= " + std::to_string(gates.max_registers),
                  {}};
  GateResult spills{
      "no_new_spills",
      gates.no_new_spills,
      false,
      true,
      in.base ? "no kernel spills where the base did not" : "no kernel spills (no base to compare)",
      {}};
  GateResult smem{"smem_within_cap",
                  gates.smem_within_cap,
                  false,
                  true,
                  "static + dynamic shared memory <= the opt-in cap on every target arch",
                  {}};
  GateResult occ{"occupancy_not_lower",
                 gates.occupancy_not_lower,
                 !in.base,
                 true,
                 in.base ? "warps per SM not lower than the base" : "needs --base",
                 {}};
  for (const KernelRow& row : r.kernels) {
    if (!row.head) continue;
    const KernelResources& k = *row.head;
    if (k.registers > gates.max_registers) {
      regs.failures.push_back(Name(k) + ": " + std::to_string(k.registers) + " registers");
    }
    if (k.SpillBytes() > 0) {
      int64_t before = row.base ? row.base->SpillBytes() : 0;
      if (!in.base || !row.base || before == 0) {
        spills.failures.push_back(Name(k) + ": " + std::to_string(k.spill_store_bytes) +
                                  " bytes spill stores, " + std::to_string(k.spill_load_bytes) +
                                  " bytes spill loads" +
                                  (in.base ? (row.base ? " (base: none)" : " (new kernel)") : ""));
      } else if (k.SpillBytes() > before) {
        r.findings.push_back(
            {Severity::kWarning, "spills_increased",
             Name(k) + ": spills grew from " + Bytes(before) + " to " + Bytes(k.SpillBytes()), "",
             0, k.demangled});
      }
    }
    if (k.ptxas_overflow) {
      smem.failures.push_back(Name(k) + ": ptxas: " + Bytes(k.overflow_bytes) +
                              " of static shared memory, " + Bytes(k.overflow_max_bytes) +
                              " max: over by " + Bytes(k.overflow_bytes - k.overflow_max_bytes));
    } else if (k.smem_cap_bytes >= 0 && k.total_smem_bytes > k.smem_cap_bytes) {
      smem.failures.push_back(Name(k) + ": " + Bytes(k.static_smem_bytes) + " static + " +
                              Bytes(std::max<int64_t>(k.dynamic_smem_bytes, 0)) + " dynamic = " +
                              Bytes(k.total_smem_bytes) + ", over the " + Bytes(k.smem_cap_bytes) +
                              " cap by " + Bytes(k.total_smem_bytes - k.smem_cap_bytes));
    }
    if (in.base && row.base && row.base->occupancy && k.occupancy &&
        k.occupancy->warps_per_sm < row.base->occupancy->warps_per_sm) {
      occ.failures.push_back(Name(k) + ": " + std::to_string(row.base->occupancy->warps_per_sm) +
                             " -> " + std::to_string(k.occupancy->warps_per_sm) +
                             " warps per SM (limited by " +
                             OccupancyLimiterName(k.occupancy->limiter) + ")");
    }
  }
  for (GateResult* g : {&regs, &spills, &smem, &occ}) {
    g->passed = g->failures.empty();
    r.gates.push_back(*g);
  }
  r.status = r.Passed() ? "ok" : "rejected";
  return r;
}

}  // namespace av
