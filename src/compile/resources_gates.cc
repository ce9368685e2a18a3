// The pairing of base and head kernels and the gates of the ResourcesReport. Every gate
// ends "pass" only when it judged at least one kernel and nothing it should have judged
// was left out; otherwise it is "missing" with the reason, or "fail".
#include <algorithm>
#include <cstddef>
#include <map>

#include "compile/demangle.h"
#include "compile/occupancy.h"
#include "compile/resources.h"

namespace av::resources_internal {
namespace {

std::string Bytes(int64_t n) { return std::to_string(n) + " bytes"; }
std::string Name(const KernelResources& k) { return k.demangled + " on " + k.arch; }

// Longest common subsequence of two argument lists (pairing score).
int CommonArguments(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<int> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Parameters(const std::string& demangled) {
  std::string shortname = KernelShortName(demangled);
  size_t at = demangled.find(shortname);
  return at == std::string::npos ? "" : demangled.substr(at + shortname.size());
}

int Score(const KernelResources& h, const KernelResources& b) {
  return CommonArguments(KernelTemplateArguments(h.demangled),
                         KernelTemplateArguments(b.demangled)) +
         (Parameters(h.demangled) == Parameters(b.demangled) ? 1 : 0);
}

// Pairs the kernels of one (qualified name, arch) group that exact names left unpaired:
// one each is a pair; with more, only mutual unique best matches by shared template
// arguments are, so that an ambiguous group stays one-sided rather than mispaired.
void PairGroup(const std::vector<KernelResources>& head, const std::vector<KernelResources>& base,
               std::vector<size_t> hs, std::vector<size_t> bs, std::vector<int>* head_to_base) {
  if (hs.size() == 1 && bs.size() == 1) {
    (*head_to_base)[hs[0]] = static_cast<int>(bs[0]);
    return;
  }
  bool progress = true;
  while (progress && !hs.empty() && !bs.empty()) {
    progress = false;
    auto best_of = [&](size_t hi, const std::vector<size_t>& pool, bool head_side) {
      int best = -1, best_score = 0, ties = 0;
      for (size_t x : pool) {
        int s = head_side ? Score(head[hi], base[x]) : Score(head[x], base[hi]);
        if (s > best_score)
          best = static_cast<int>(x), best_score = s, ties = 1;
        else if (s == best_score && best >= 0)
          ++ties;
      }
      return ties == 1 ? best : -1;
    };
    for (size_t i = 0; i < hs.size(); ++i) {
      int b = best_of(hs[i], bs, true);
      if (b < 0 || best_of(static_cast<size_t>(b), hs, false) != static_cast<int>(hs[i])) continue;
      (*head_to_base)[hs[i]] = b;
      bs.erase(std::find(bs.begin(), bs.end(), static_cast<size_t>(b)));
      hs.erase(hs.begin() + static_cast<std::ptrdiff_t>(i));
      progress = true;
      break;
    }
  }
}

// "a, b, c and 4 more".
std::string List(const std::vector<std::string>& items, size_t shown = 4) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < shown; ++i) out += (i ? "; " : "") + items[i];
  if (items.size() > shown) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

// What one gate collected: failures, rows it could not judge, rows it judged.
struct Tally {
  std::vector<std::string> failures, unjudged;
  int judged = 0;

  GateResult Finish(GateResult g, const std::string& nothing_reason) const {
    g.failures = failures;
    g.judged = judged;
    if (!failures.empty()) {
      g.status = CheckStatus::kFail;
      g.reason = std::to_string(failures.size()) + " of " +
                 std::to_string(judged + static_cast<int>(unjudged.size())) + " kernels fail";
      if (!unjudged.empty()) g.reason += "; not judged: " + List(unjudged);
    } else if (!unjudged.empty()) {
      g.status = CheckStatus::kMissing;
      g.reason = "not judged: " + List(unjudged);
    } else if (judged == 0) {
      g.status = CheckStatus::kMissing;
      g.reason = nothing_reason;
    } else {
      g.status = CheckStatus::kPass;
      g.reason = "judged " + std::to_string(judged) + (judged == 1 ? " kernel" : " kernels");
    }
    return g;
  }
};

GateResult Missing(GateResult g, const std::string& reason) {
  g.status = CheckStatus::kMissing;
  g.reason = reason;
  return g;
}

// What every gate reads.
struct GateContext {
  const ResourcesInput& in;
  const ResourcesReport& r;
  const BuildGates& cfg;
  const PtxasReport& head_log;
  std::vector<const KernelRow*> head_rows, base_rows;
  std::string no_head;      // why a gate without head kernels is missing
  std::string base_broken;  // "the base revision did not build: ...", or empty
};

GateResult HeadBuildsGate(const GateContext& c) {
  GateResult g{"head_builds",
               true,
               CheckStatus::kPass,
               "no compile errors (shared-memory overflows are judged by smem_within_cap)",
               "",
               {},
               0};
  g.failures = BuildFailures(c.head_log, c.in.head_build_failed, c.in.head_failed_calls,
                             c.r.head.log_path.empty() ? "the head log" : c.r.head.log_path);
  g.judged = static_cast<int>(c.head_rows.size());
  if (!g.failures.empty()) {
    g.status = CheckStatus::kFail;
    g.reason = std::to_string(g.failures.size()) + " errors";
  } else if (c.head_rows.empty()) {
    g = Missing(g, c.no_head);
  } else if (c.head_log.truncated) {
    g = Missing(g, "the head log is truncated: the end of the build is not in it");
  } else {
    g.reason = "judged " + std::to_string(c.head_rows.size()) + " kernels";
  }
  return g;
}

GateResult RegistersGate(const GateContext& c) {
  Tally t;
  for (const KernelRow* row : c.head_rows) {
    const KernelResources& k = *row->head;
    if (k.ptxas_overflow && k.registers < 0) continue;  // refused: smem_within_cap's
    if (k.registers < 0) {
      t.unjudged.push_back(Name(k) + ": registers unknown");
      continue;
    }
    ++t.judged;
    if (k.registers > c.cfg.max_registers)
      t.failures.push_back(Name(k) + ": " + std::to_string(k.registers) + " registers");
  }
  return t.Finish({"registers_max",
                   true,
                   CheckStatus::kMissing,
                   "registers per thread <= " + std::to_string(c.cfg.max_registers),
                   "",
                   {},
                   0},
                  c.no_head);
}

GateResult SpillsGate(const GateContext& c) {
  Tally t;
  for (const KernelRow* row : c.head_rows) {
    const KernelResources& k = *row->head;
    if (k.ptxas_overflow && k.registers < 0) continue;
    if (k.spill_store_bytes < 0 || k.spill_load_bytes < 0) {
      t.unjudged.push_back(Name(k) + ": spills unknown");
      continue;
    }
    std::string spill = Name(k) + ": " + std::to_string(k.spill_store_bytes) +
                        " bytes spill stores, " + std::to_string(k.spill_load_bytes) +
                        " bytes spill loads";
    if (k.SpillBytes() == 0 || !c.in.base) {
      ++t.judged;
      if (k.SpillBytes() > 0) t.failures.push_back(spill);
    } else if (!c.base_broken.empty()) {
      t.unjudged.push_back(Name(k) + " spills, and " + c.base_broken);
    } else if (!row->base) {
      ++t.judged;
      t.failures.push_back(spill + " (new kernel)");
    } else if (row->base->spill_store_bytes < 0 || row->base->spill_load_bytes < 0) {
      t.unjudged.push_back(Name(k) + ": the base kernel's spills are unknown");
    } else {
      ++t.judged;
      if (row->base->SpillBytes() == 0) t.failures.push_back(spill + " (base: none)");
    }
  }
  return t.Finish({"no_new_spills",
                   c.cfg.no_new_spills,
                   CheckStatus::kMissing,
                   c.in.base ? "no kernel spills where the base did not"
                             : "no kernel spills (no base to compare)",
                   "",
                   {},
                   0},
                  c.no_head);
}

GateResult SmemGate(const GateContext& c) {
  Tally t;
  for (const KernelRow* row : c.head_rows) {
    const KernelResources& k = *row->head;
    if (k.ptxas_overflow) {
      ++t.judged;
      t.failures.push_back(Name(k) + ": ptxas: " + Bytes(k.overflow_bytes) +
                           " of static shared memory, " + Bytes(k.overflow_max_bytes) +
                           " max: over by " + Bytes(k.overflow_bytes - k.overflow_max_bytes));
    } else if (k.smem_cap_bytes < 0) {
      t.unjudged.push_back(Name(k) + ": no limits known for " + k.arch);
    } else if (!k.dynamic_smem_unknown.empty()) {
      // An undeclared constant that is over the cap already is a failure, whatever else.
      const int64_t with = k.static_smem_bytes + k.source_dynamic_smem.value_or(0);
      if (k.source_dynamic_smem && k.static_smem_bytes >= 0 && with > k.smem_cap_bytes) {
        ++t.judged;
        t.failures.push_back(Name(k) + ": " + Bytes(k.static_smem_bytes) + " static + " +
                             Bytes(*k.source_dynamic_smem) + " dynamic = " + Bytes(with) +
                             ", over the " + Bytes(k.smem_cap_bytes) + " cap by " +
                             Bytes(with - k.smem_cap_bytes) + " (" + k.dynamic_smem_unknown +
                             ")");
      } else {
        t.unjudged.push_back(Name(k) + ": " + k.dynamic_smem_unknown);
      }
    } else if (k.total_smem_bytes < 0) {
      t.unjudged.push_back(Name(k) + ": shared memory unknown");
    } else {
      ++t.judged;
      if (k.total_smem_bytes > k.smem_cap_bytes) {
        t.failures.push_back(Name(k) + ": " + Bytes(k.static_smem_bytes) + " static + " +
                             Bytes(std::max<int64_t>(k.dynamic_smem_bytes, 0)) + " dynamic = " +
                             Bytes(k.total_smem_bytes) + ", over the " + Bytes(k.smem_cap_bytes) +
                             " cap by " + Bytes(k.total_smem_bytes - k.smem_cap_bytes));
      }
    }
  }
  for (const UnmatchedKernelEntry& u : c.r.unmatched_kernel_entries) {
    t.unjudged.push_back("[[build.kernel]] \"" + u.name + "\" (line " + std::to_string(u.line) +
                         ") names no kernel of the head log");
  }
  return (t.Finish({"smem_within_cap",
                    c.cfg.smem_within_cap,
                    CheckStatus::kMissing,
                    "static + dynamic shared memory <= the opt-in cap on every target arch",
                    "",
                    {},
                    0},
                   c.no_head));
}

GateResult OccupancyGate(const GateContext& c) {
  GateResult g{"occupancy_not_lower",
               c.cfg.occupancy_not_lower,
               CheckStatus::kMissing,
               "warps per SM not lower than the base",
               "",
               {},
               0};
  if (!c.in.base) {
    return Missing(g,
                   "needs a base: pass --base REF (or --import-base LOG), or set "
                   "[build.gates] occupancy_not_lower = false");
  } else if (!c.base_broken.empty()) {
    return Missing(g, c.base_broken);
  } else if (c.head_rows.empty()) {
    return Missing(g, c.no_head);
  } else if (c.base_rows.empty()) {
    return Missing(g, "no kernel in the base log");
  } else {
    Tally t;
    int compared = 0;
    for (const KernelRow& row : c.r.kernels) {
      if (!row.head || !row.base) {
        t.unjudged.push_back(row.demangled + " on " + row.arch + " is in the " +
                             (row.head ? "head" : "base") + " only");
        continue;
      }
      ++compared;
      const KernelResources &h = *row.head, &b = *row.base;
      // A kernel ptxas refused cannot launch: 0 warps per SM, a drop from any base that
      // ran. Skipping it let the gate pass on the other kernels while the refused one went
      // 8 -> 0 (the splitk_decode demo).
      if (h.ptxas_overflow && !h.occupancy && b.occupancy) {
        ++t.judged;
        if (b.occupancy->warps_per_sm > 0) {
          t.failures.push_back(Name(h) + ": " + std::to_string(b.occupancy->warps_per_sm) +
                               " -> 0 warps per SM (ptxas refused it: " +
                               Bytes(h.overflow_bytes) + " of shared memory, " +
                               Bytes(h.overflow_max_bytes) + " max)");
        }
        continue;
      }
      if (!h.occupancy || !b.occupancy) {
        const std::string& note = !h.occupancy ? h.occupancy_note : b.occupancy_note;
        t.unjudged.push_back(Name(h) + ": no occupancy (" + note + ")");
        continue;
      }
      ++t.judged;
      if (h.occupancy->warps_per_sm < b.occupancy->warps_per_sm) {
        t.failures.push_back(Name(h) + ": " + std::to_string(b.occupancy->warps_per_sm) + " -> " +
                             std::to_string(h.occupancy->warps_per_sm) +
                             " warps per SM (limited by " +
                             OccupancyLimiterName(h.occupancy->limiter) +
                             (h.ptxas_overflow ? "; ptxas refused it" : "") + ")");
      }
    }
    GateResult done = t.Finish(g, "no kernel was compared between base and head");
    if (compared == 0 && done.status != CheckStatus::kFail) {
      done.status = CheckStatus::kMissing;
      done.reason = "no kernel was compared between base and head: " + List(t.unjudged);
    }
    return done;
  }
}

}  // namespace

std::vector<KernelRow> PairKernels(const std::vector<KernelResources>& head,
                                   const std::vector<KernelResources>* base) {
  std::vector<KernelRow> rows;
  rows.reserve(head.size() + (base ? base->size() : 0));  // no regrowth of ~1 KB rows
  std::vector<int> head_to_base(head.size(), -1);
  std::vector<bool> base_used(base ? base->size() : 0, false);
  if (base) {
    std::map<std::pair<std::string, std::string>, size_t> exact;
    for (size_t i = 0; i < base->size(); ++i) exact[{(*base)[i].demangled, (*base)[i].arch}] = i;
    for (size_t i = 0; i < head.size(); ++i) {
      auto it = exact.find({head[i].demangled, head[i].arch});
      if (it != exact.end()) head_to_base[i] = static_cast<int>(it->second);
    }
    for (int b : head_to_base) {
      if (b >= 0) base_used[b] = true;
    }
    // The rest by qualified name on the same arch (a template parameter added or changed).
    std::map<std::pair<std::string, std::string>,
             std::pair<std::vector<size_t>, std::vector<size_t>>>
        groups;
    for (size_t i = 0; i < head.size(); ++i) {
      if (head_to_base[i] < 0)
        groups[{KernelQualifiedName(head[i].demangled), head[i].arch}].first.push_back(i);
    }
    for (size_t i = 0; i < base->size(); ++i) {
      if (!base_used[i])
        groups[{KernelQualifiedName((*base)[i].demangled), (*base)[i].arch}].second.push_back(i);
    }
    std::vector<int> by_name(head.size(), -1);
    for (auto& [key, g] : groups) {
      if (!g.first.empty() && !g.second.empty())
        PairGroup(head, *base, g.first, g.second, &by_name);
    }
    for (size_t i = 0; i < head.size(); ++i) {
      if (by_name[i] >= 0) {
        head_to_base[i] = by_name[i];
        base_used[by_name[i]] = true;
      }
    }
  }
  for (size_t i = 0; i < head.size(); ++i) {
    KernelRow row;
    row.demangled = head[i].demangled;
    row.arch = head[i].arch;
    row.head = head[i];
    if (!base) {
      row.change = KernelChange::kHeadOnly;
      row.pairing = KernelPairing::kNoBase;
    } else if (head_to_base[i] < 0) {
      row.change = KernelChange::kNew;
      row.pairing = KernelPairing::kHeadOnly;
    } else {
      const KernelResources& b = (*base)[head_to_base[i]];
      row.base = b;
      row.change = KernelChange::kChanged;  // same/changed is decided by the caller
      row.pairing = b.demangled == head[i].demangled ? KernelPairing::kSame
                                                     : KernelPairing::kSignatureChanged;
    }
    rows.push_back(std::move(row));
  }
  for (size_t i = 0; i < base_used.size(); ++i) {
    if (base_used[i]) continue;
    KernelRow row;
    row.demangled = (*base)[i].demangled;
    row.arch = (*base)[i].arch;
    row.base = (*base)[i];
    row.change = KernelChange::kVanished;
    row.pairing = KernelPairing::kBaseOnly;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> BuildFailures(const PtxasReport& log, bool nvcc_failed,
                                       const std::vector<std::string>& failed_calls,
                                       const std::string& log_name) {
  std::vector<std::string> failures;
  for (const PtxasDiagnostic& d : log.diagnostics) {
    if (d.severity != Severity::kError) continue;
    if (d.kind == "smem_overflow" || d.kind == "resource_overflow") continue;
    std::string where =
        d.source_file.empty() ? "" : d.source_file + ":" + std::to_string(d.source_line) + ": ";
    failures.push_back(where + d.message);
  }
  if (log.suppressed_errors > 0) {
    failures.push_back(std::to_string(log.suppressed_errors) + " more error lines in " + log_name);
  }
  if (nvcc_failed && failures.empty()) {
    bool any_overflow = false;
    for (const PtxasDiagnostic& d : log.diagnostics) {
      any_overflow |= d.kind == "smem_overflow" || d.kind == "resource_overflow";
    }
    if (!any_overflow) {
      for (const std::string& call : failed_calls) failures.push_back(call);
      if (failures.empty())
        failures.push_back("nvcc failed without an error line in the log (see " + log_name + ")");
    }
  }
  return failures;
}

std::vector<GateResult> ComputeGates(const ResourcesInput& in, const ResourcesReport& r) {
  GateContext c{in, r, in.config->gates, *in.head, {}, {}, "", ""};
  for (const KernelRow& row : r.kernels) {
    if (row.head) c.head_rows.push_back(&row);
    if (row.base) c.base_rows.push_back(&row);
  }
  c.no_head = "no kernel in the head log (" + std::to_string(c.head_log.total_lines) + " lines, " +
              std::to_string(c.head_log.recognized_lines) +
              " from the compiler): is it the output of nvcc -Xptxas -v for the configured "
              "sources?";
  if (in.base) {
    std::vector<std::string> failures =
        BuildFailures(*in.base, in.base_build_failed, in.base_failed_calls,
                      r.base ? r.base->log_path : "the base log");
    if (!failures.empty()) c.base_broken = "the base revision did not build: " + failures.front();
  }
  return {HeadBuildsGate(c), RegistersGate(c), SpillsGate(c), SmemGate(c), OccupancyGate(c)};
}

}  // namespace av::resources_internal
