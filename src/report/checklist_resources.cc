// Item 3 (shared memory and registers) of the checklist, from evidence/resources.json:
// the compile evidence itself (3.build), one check per gate the build stage judged, and
// bank conflicts (a GPU measurement; optional).
#include <algorithm>
#include <climits>

#include "core/format.h"
#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

// The gate of resources.json a "3.<gate>" row judges; nullptr when the file has none of
// that name (the build stage did not judge it).
const ResourcesGate* FindGate(const ResourcesEvidence& r, const CheckDef& def) {
  for (const ResourcesGate& g : r.gates) {
    if (def.id.substr(def.id.find('.') + 1) == g.gate) return &g;
  }
  return nullptr;
}

// The build's gates are judged one by one only when resources.json holds compile evidence.
const ResourcesEvidence* Judgeable(const Context& ctx) {
  const auto& r = ctx.ev.resources;
  return r && r->status != ResourcesStatus::kMissing ? &*r : nullptr;
}

void AddSmemOverflows(const ResourcesEvidence& r, Check* c) {
  for (const ResourcesKernelRow& k : r.kernels) {
    if (!k.head) continue;
    const ResourcesKernelSide& h = *k.head;
    if (h.ptxas_overflow) {
      c->details.push_back(k.kernel + " (" + k.arch + "): ptxas: uses too much shared data (" +
                           std::to_string(h.overflow_bytes) + " bytes, " +
                           std::to_string(h.overflow_max_bytes) + " max)");
      c->citations.push_back(Cite(r.file, k.kernel + " @ " + k.arch));
    } else if (h.smem_cap_bytes >= 0 && h.total_smem_bytes > h.smem_cap_bytes) {
      c->details.push_back(k.kernel + " (" + k.arch + "): " + std::to_string(h.total_smem_bytes) +
                           " bytes of shared memory > cap " + std::to_string(h.smem_cap_bytes));
      c->citations.push_back(Cite(r.file, k.kernel + " @ " + k.arch));
    }
  }
}

std::string Num(int64_t v) { return v < 0 ? "?" : std::to_string(v); }

// "128 -> 168" (base -> head), or the head's alone when there is no base side.
std::string BaseToHead(const ResourcesKernelRow& k, int64_t ResourcesKernelSide::*field) {
  const std::string head = k.head ? Num((*k.head).*field) : "-";
  return k.base ? Num((*k.base).*field) + " -> " + head : head;
}

// The numbers a gate judged, one line per kernel (at most kMaxKernels, then a count):
// registers and barriers, shared memory against the cap with the headroom, warps per SM.
std::vector<std::string> KernelNumbers(const ResourcesEvidence& r, const std::string& gate) {
  constexpr size_t kMaxKernels = 8;
  std::vector<std::string> out;
  size_t shown = 0, total = 0;
  for (const ResourcesKernelRow& k : r.kernels) {
    if (!k.head) continue;
    const ResourcesKernelSide& h = *k.head;
    std::string line = k.kernel + " (" + k.arch + "): ";
    if (gate == "registers_max") {
      line += BaseToHead(k, &ResourcesKernelSide::registers) + " registers";
      if (h.barriers >= 0)
        line += ", " + BaseToHead(k, &ResourcesKernelSide::barriers) + " barriers";
    } else if (gate == "smem_within_cap") {
      const int64_t used = h.ptxas_overflow ? h.overflow_bytes : h.total_smem_bytes;
      const int64_t headroom = h.smem_headroom_bytes                ? *h.smem_headroom_bytes
                               : h.smem_cap_bytes >= 0 && used >= 0 ? h.smem_cap_bytes - used
                                                                    : INT64_MIN;
      line += Num(used) + " B shared memory of the " + Num(h.smem_cap_bytes) + " B cap";
      if (headroom != INT64_MIN) {
        line += ", headroom " + std::to_string(headroom) + " B";
        if (h.smem_cap_bytes > 0) {
          line +=
              " (" + FormatG(100.0 * static_cast<double>(headroom) / h.smem_cap_bytes, 3) + "%)";
        }
      }
      if (k.base) {
        const ResourcesKernelSide& b = *k.base;
        line += "; base " + Num(b.ptxas_overflow ? b.overflow_bytes : b.total_smem_bytes) + " B";
      }
    } else if (gate == "occupancy_not_lower") {
      auto warps = [](const std::optional<ResourcesKernelSide>& side) {
        return !side             ? std::string("-")
               : side->occupancy ? std::to_string(side->occupancy->warps_per_sm)
                                 : std::string("?");
      };
      line += (k.base ? warps(k.base) + " -> " : std::string()) + warps(k.head) + " warps per SM";
    } else if (gate == "no_new_spills") {
      if (h.spill_store_bytes <= 0 && h.spill_load_bytes <= 0) continue;
      line += BaseToHead(k, &ResourcesKernelSide::spill_store_bytes) + " B spill stores, " +
              BaseToHead(k, &ResourcesKernelSide::spill_load_bytes) + " B spill loads";
    } else {
      return out;  // head_builds: its failures are the numbers
    }
    if (k.pairing == "signature_changed")
      line += " (paired with the base across a signature change)";
    ++total;
    if (shown < kMaxKernels) out.push_back(std::move(line)), ++shown;
  }
  if (total > shown) {
    out.push_back("... and " + std::to_string(total - shown) + " more kernels in " + r.file.path);
  }
  return out;
}

}  // namespace

std::vector<std::string> BuildNotes(const Context& ctx) {
  std::vector<std::string> out;
  if (!ctx.ev.resources) return out;
  for (const std::string& w : ctx.ev.resources->warnings) out.push_back("build: " + w);
  for (const ResourcesUnmatchedEntry& u : ctx.ev.resources->unmatched_kernel_entries) {
    out.push_back("build: [[build.kernel]] " + u.name +
                  (u.line > 0 ? " (attnverify.toml line " + std::to_string(u.line) + ")" : "") +
                  " matched no kernel of the log");
  }
  return out;
}

std::optional<Check> JudgeBuild(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.resources) {
    return Missing(def, AbsentNote(ctx, "build", "evidence/resources.json"), ctx.build_cmd);
  }
  const ResourcesEvidence& r = *ctx.ev.resources;
  if (r.status == ResourcesStatus::kMissing) {
    return Missing(def,
                   "compile evidence missing: " + r.missing_reason +
                       " (run on a host with nvcc, or import a GPU box's log with --import)",
                   ctx.build_cmd);
  }
  if (r.gates.empty()) {
    return Missing(def, "evidence/resources.json holds no gate verdicts", ctx.build_cmd);
  }
  // A gate this report has no row for is never dropped silently when it failed.
  std::vector<std::string> unknown_failed;
  for (const ResourcesGate& g : r.gates) {
    if (g.enabled && !g.skipped && !g.passed && FindCheckDef("3." + g.gate) == nullptr) {
      unknown_failed.push_back(g.gate);
    }
  }
  if (!unknown_failed.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        "gate " + JoinList(unknown_failed) +
                            " of evidence/resources.json failed (a gate this report has no "
                            "check for)");
    for (const ResourcesGate& g : r.gates) {
      if (std::find(unknown_failed.begin(), unknown_failed.end(), g.gate) == unknown_failed.end())
        continue;
      for (const std::string& f : g.failures) c.details.push_back(g.gate + ": " + f);
    }
    c.citations.push_back(Cite(r.file));
    return c;
  }
  return std::nullopt;  // the gate rows judge it
}

std::optional<Check> JudgeGate(const Context& ctx, const CheckDef& def) {
  const ResourcesEvidence* r = Judgeable(ctx);
  if (r == nullptr) return std::nullopt;
  const ResourcesGate* g = FindGate(*r, def);
  if (g == nullptr || !g->enabled) return std::nullopt;
  // "missing": the gate had nothing to judge (no kernel, the base did not build, no kernel
  // paired); files of the first format say "skipped".
  if (g->status == CheckStatus::kMissing || (!g->status && g->skipped)) {
    const std::string why = !g->reason.empty() ? g->reason : g->rule;
    return Missing(def, why + (r->has_base() ? "" : " (no base build to compare with)"),
                   ctx.build_cmd);
  }
  const bool passed = !g->status ? g->passed : g->status == CheckStatus::kPass;
  // A failing row's one line is its first concrete failure ("... over by 120320 bytes"),
  // not the gate's rule: the item's reason is taken from it, and the rule alone does not
  // say what is wrong.
  std::string summary = g->rule;
  if (!passed && !g->failures.empty()) {
    summary = g->failures.front();
    if (g->failures.size() > 1)
      summary += " (and " + std::to_string(g->failures.size() - 1) + " more)";
  }
  Check c = MakeCheck(def, passed ? CheckStatus::kPass : CheckStatus::kFail, std::move(summary));
  c.citations.push_back(Cite(r->file));
  if (!passed) c.details = g->failures;
  for (std::string& line : KernelNumbers(*r, g->gate)) c.details.push_back(std::move(line));
  return c;
}

std::optional<Check> JudgeSmemGate(const Context& ctx, const CheckDef& def) {
  std::optional<Check> c = JudgeGate(ctx, def);
  if (c && c->status == CheckStatus::kFail) AddSmemOverflows(*ctx.ev.resources, &*c);
  return c;
}

}  // namespace av::checklist
