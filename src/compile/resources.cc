#include "compile/resources.h"

#include <algorithm>
#include <map>
#include <set>

#include "compile/arch_limits.h"
#include "compile/demangle.h"

namespace av {
namespace {

using Key = std::pair<std::string, std::string>;  // demangled, arch

std::string Bytes(int64_t n) { return std::to_string(n) + " bytes"; }

std::string At(const DynamicSmemSite& site) { return site.file + ":" + std::to_string(site.line); }

// Sets why a head kernel's dynamic shared memory is unknown (KernelResources), from its
// launches in the scanned files, when attnverify.toml does not declare it. Counting an
// unknown dynamic part as 0 made smem_within_cap pass every kernel of a flash-attention
// TU (all shared memory dynamic, launched from a header) on "0 B, headroom 100 %".
void FindDynamicSmem(const ResourcesInput& in, KernelResources* k) {
  if (k->dynamic_smem_bytes >= 0) return;  // declared
  const std::string base = KernelBaseName(k->demangled);
  std::vector<const DynamicSmemSite*> sites;
  for (const DynamicSmemSite& site : in.sites) {
    if (site.kernel_base == base) sites.push_back(&site);
  }
  const std::string declare =
      "; declare it: [[build.kernel]] name = \"" + base + "\", dynamic_smem = ";
  for (const DynamicSmemSite* site : sites) {
    if (site->value) continue;
    k->dynamic_smem_unknown = "dynamic shared memory set at run time (" + At(*site) + ", " +
                              site->via + ": " + site->value_expr.substr(0, 80) + ")" + declare +
                              "BYTES";
    return;
  }
  const DynamicSmemSite* most = nullptr;
  for (const DynamicSmemSite* site : sites) {
    if (*site->value > 0 && (most == nullptr || *site->value > *most->value)) most = site;
  }
  if (most != nullptr) {
    k->source_dynamic_smem = *most->value;
    k->dynamic_smem_unknown = At(*most) + " passes " + std::to_string(*most->value) +
                              " bytes of dynamic shared memory (" + most->value_expr.substr(0, 80) +
                              "), which attnverify.toml does not declare" + declare +
                              std::to_string(*most->value);
    return;
  }
  if (!sites.empty() || k->static_smem_bytes != 0) return;  // launches pass 0; or static known
  k->dynamic_smem_unknown =
      "0 bytes of static shared memory and no launch of " + base + " found in " +
      (in.scanned_files == 0
           ? std::string("the sources (none was read)")
           : std::to_string(in.scanned_files) +
                 " files (the [build] sources and the headers they include)") +
      ", so its dynamic shared memory is unknown" + declare + "BYTES (0 if it uses none)";
}

void FillBudget(const BuildConfig& config, bool base_side, const ResourcesInput* head_in,
                KernelResources* k) {
  const KernelLaunchConfig* kc = FindKernelConfig(config, k->mangled, k->demangled);
  if (kc && kc->DynamicSmem(base_side)) k->dynamic_smem_bytes = *kc->DynamicSmem(base_side);
  if (kc && kc->block_size)
    k->block_size = *kc->block_size;
  else if (config.block_size)
    k->block_size = *config.block_size;
  if (head_in != nullptr) FindDynamicSmem(*head_in, k);
  auto limits = FindArchLimits(k->arch);
  if (k->static_smem_bytes >= 0 && k->dynamic_smem_unknown.empty()) {
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
    k->occupancy_note = k->bad_count ? "the log's counts for it are invalid" : "registers unknown";
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
// Blocks the log left open (no Used line: truncated) have no resources and no row.
// `head_in`: the head's input, whose launch sites say what dynamic shared memory is
// unknown; null for the base (the sites are the head's sources).
std::vector<KernelResources> Collect(const BuildConfig& config, const PtxasReport& log,
                                     const std::vector<std::string>& archs, bool base_side,
                                     const ResourcesInput* head_in) {
  std::vector<KernelResources> out;
  std::map<Key, size_t> index;
  for (const PtxasKernel* pk : log.EntryKernels()) {
    if (pk->arch.empty() || !pk->complete) continue;
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
    k.bad_count = pk->bad_count;
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
  for (KernelResources& k : out) FillBudget(config, base_side, head_in, &k);
  return out;
}

// The head kernels a source site's kernel expression names (by base name).
std::vector<const KernelResources*> SiteKernels(const DynamicSmemSite& site,
                                                const std::vector<KernelResources>& head) {
  std::vector<const KernelResources*> out;
  for (const KernelResources& k : head) {
    if (KernelBaseName(k.demangled) == site.kernel_base) out.push_back(&k);
  }
  return out;
}

void SourceFindings(const ResourcesInput& in, const std::vector<KernelResources>& head,
                    ResourcesReport* r) {
  for (const DynamicSmemSite& site : in.sites) {
    if (site.value && *site.value == 0) continue;  // no dynamic shared memory: nothing to say
    // A header's launches of kernels this build did not compile say nothing about it.
    if (site.included && SiteKernels(site, head).empty()) continue;
    BuildFinding f;
    f.file = site.file;
    f.line = site.line;
    f.kernel = site.kernel_base;
    std::string what = site.kernel + (site.alias.empty() ? "" : " (" + site.alias + ")");
    std::string where = site.via == "launch" ? "the launch of " + what : site.via + " for " + what;
    // The entry the budget uses for that kernel: the same matching as for the budget.
    std::vector<const KernelResources*> kernels = SiteKernels(site, head);
    const KernelLaunchConfig* kc = nullptr;
    for (const KernelResources* k : kernels) {
      kc = FindKernelConfig(*in.config, k->mangled, k->demangled);
      if (kc && kc->dynamic_smem_bytes) break;
    }
    if (kc == nullptr) {
      for (const KernelLaunchConfig& k : in.config->kernels) {
        if (k.name == site.kernel_base || KernelBaseName(k.name) == site.kernel_base) kc = &k;
      }
    }
    const bool declared = kc && kc->dynamic_smem_bytes;
    if (!site.value) {
      f.severity = Severity::kNote;
      f.kind = "dynamic_smem_runtime";
      std::string from =
          site.value_constexpr.empty()
              ? "\"" + site.value_expr + "\", not a compile-time constant of this file"
              : "\"" + site.value_expr + "\", a compile-time constant (" + site.value_constexpr +
                    ") that attnverify cannot evaluate";
      f.message = where + " sets dynamic shared memory from " + from +
                  "; the budget uses attnverify.toml's dynamic_smem" +
                  (declared ? " (" + Bytes(*kc->dynamic_smem_bytes) + ", line " +
                                  std::to_string(kc->line) + ")"
                            : " (not declared for " + site.kernel_base +
                                  ": smem_within_cap cannot judge it)");
      r->findings.push_back(std::move(f));
      continue;
    }
    int64_t v = *site.value;
    if (declared) {
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
        "), which attnverify.toml does not declare: smem_within_cap cannot judge " +
        site.kernel_base + " without it; add [[build.kernel]] name = \"" + site.kernel_base +
        "\", dynamic_smem = " + std::to_string(v);
    for (const KernelResources* k : kernels) {
      if (k->smem_cap_bytes < 0 || k->static_smem_bytes < 0) continue;
      int64_t total = k->static_smem_bytes + v;
      if (total > k->smem_cap_bytes) {
        f.message += "; with it, " + k->arch + " would need " + Bytes(total) + ", over the " +
                     Bytes(k->smem_cap_bytes) + " cap by " + Bytes(total - k->smem_cap_bytes);
      }
    }
    r->findings.push_back(std::move(f));
  }
}

// [[build.kernel]] entries that name no head kernel: their numbers reach nothing.
void UnmatchedEntries(const BuildConfig& config, const std::vector<KernelResources>& head,
                      const std::vector<KernelResources>& base, ResourcesReport* r) {
  auto names_any = [](const KernelLaunchConfig& e, const std::vector<KernelResources>& ks) {
    for (const KernelResources& k : ks) {
      if (KernelEntryNames(e, k.mangled, k.demangled)) return true;
    }
    return false;
  };
  for (const KernelLaunchConfig& e : config.kernels) {
    if (names_any(e, head)) continue;
    UnmatchedKernelEntry u{e.name, e.line, e.dynamic_smem_bytes, names_any(e, base)};
    r->unmatched_kernel_entries.push_back(u);
    std::string where = (config.path.empty() ? std::string("attnverify.toml") : config.path) + ":" +
                        std::to_string(e.line);
    r->warnings.push_back(
        "[[build.kernel]] \"" + e.name + "\" (" + where + ") names no kernel of the head log" +
        (u.matches_base ? " (only base kernels)" : "") +
        (e.dynamic_smem_bytes ? ": its " + Bytes(*e.dynamic_smem_bytes) +
                                    " of dynamic shared memory are counted nowhere"
                              : "") +
        " (names match the mangled, demangled, name<args>, ns::name or name)");
  }
}

bool SameResources(const KernelResources& a, const KernelResources& b) {
  return a.registers == b.registers && a.barriers == b.barriers &&
         a.static_smem_bytes == b.static_smem_bytes && a.SpillBytes() == b.SpillBytes() &&
         a.stack_frame_bytes == b.stack_frame_bytes && a.ptxas_overflow == b.ptxas_overflow &&
         a.dynamic_smem_bytes == b.dynamic_smem_bytes;
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

const char* KernelPairingName(KernelPairing p) {
  switch (p) {
    case KernelPairing::kNoBase:
      return "";
    case KernelPairing::kSame:
      return "same";
    case KernelPairing::kSignatureChanged:
      return "signature_changed";
    case KernelPairing::kHeadOnly:
      return "head_only";
    case KernelPairing::kBaseOnly:
      return "base_only";
  }
  return "";
}

bool ResourcesReport::Passed() const { return status == ResourcesStatus::kOk; }

ResourcesReport MissingResourcesReport(const std::string& reason,
                                       const std::vector<std::string>& archs) {
  ResourcesReport r;
  r.status = ResourcesStatus::kMissing;
  r.missing_reason = reason;
  r.archs = archs;
  r.head.label = "head";
  return r;
}

ResourcesReport ComputeResourcesReport(const ResourcesInput& in) {
  ResourcesReport r;
  r.archs = in.archs;
  const BuildConfig& config = *in.config;
  std::vector<KernelResources> head = Collect(config, *in.head, in.archs, false, &in);
  std::vector<KernelResources> base;
  if (in.base) base = Collect(config, *in.base, in.archs, true, nullptr);
  r.kernels = resources_internal::PairKernels(head, in.base ? &base : nullptr);
  for (KernelRow& row : r.kernels) {
    if (row.base && row.head) {
      row.change =
          SameResources(*row.base, *row.head) ? KernelChange::kSame : KernelChange::kChanged;
    }
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
  for (const auto& [log, name] : {std::pair{in.head, "head"}, {in.base, "base"}}) {
    if (log == nullptr || !log->truncated) continue;
    std::string msg =
        std::string("the ") + name + " log is truncated: kernels after the cut are missing from it";
    r.findings.push_back({Severity::kWarning, "truncated_log", msg, "", 0, ""});
    r.warnings.push_back(msg);
  }
  for (const std::string& w : in.base_warnings) r.warnings.push_back("base: " + w);
  for (const std::string& w : in.scan_warnings) r.warnings.push_back(w);
  if (in.base) {
    std::vector<std::string> failures = resources_internal::BuildFailures(
        *in.base, in.base_build_failed, in.base_failed_calls, "the base log");
    if (!failures.empty()) {
      std::string msg =
          "the base revision did not build: " + failures.front() +
          (failures.size() > 1 ? " (and " + std::to_string(failures.size() - 1) + " more errors)"
                               : "") +
          "; every comparison with the base is missing";
      r.findings.push_back({Severity::kWarning, "base_build_failed", msg, "", 0, ""});
      r.warnings.push_back(msg);
    }
  }
  if (head.empty())
    r.warnings.push_back("no kernel in the head log: no gate has anything to judge");
  // Instantiations of one kernel that could not be paired one to one.
  std::map<Key, std::pair<int, int>> one_sided;
  for (const KernelRow& row : r.kernels) {
    if (row.pairing == KernelPairing::kHeadOnly)
      ++one_sided[{KernelQualifiedName(row.demangled), row.arch}].first;
    if (row.pairing == KernelPairing::kBaseOnly)
      ++one_sided[{KernelQualifiedName(row.demangled), row.arch}].second;
  }
  for (const auto& [key, n] : one_sided) {
    if (n.first == 0 || n.second == 0) continue;
    r.warnings.push_back(key.first + " on " + key.second + ": " + std::to_string(n.first) +
                         " head and " + std::to_string(n.second) +
                         " base instantiations could not be paired one to one");
  }
  SourceFindings(in, head, &r);
  UnmatchedEntries(config, head, base, &r);
  r.gates = resources_internal::ComputeGates(in, r);
  bool failed = false, missing = false;
  for (const GateResult& g : r.gates) {
    if (!g.enabled) continue;
    failed |= g.status == CheckStatus::kFail;
    missing |= g.status == CheckStatus::kMissing;
  }
  r.status = failed    ? ResourcesStatus::kRejected
             : missing ? ResourcesStatus::kIncomplete
                       : ResourcesStatus::kOk;
  return r;
}

}  // namespace av
