// Items 3 and 4 from evidence/perf.json (doc/profile.md): 4.perf, the time gate per kernel
// and shape with the other perf gates, and 3.bank_conflicts, the bank-conflict gate with the
// profiled occupancy and registers beside it. Without perf.json, or without enough launches,
// both are MISSING with the command that collects them; never PASS on nothing.
#include <cstdio>
#include <filesystem>
#include <set>

#include "profile/gates.h"
#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

using profile::GateResult;

std::string Line(const GateResult& g) {
  return std::string(GateStatusName(g.status)) + " " + g.gate + " " + g.kernel +
         (g.shape.empty() ? "" : " [" + g.shape + "]") + ": " + g.summary;
}

// Static smem per side and kernel from the compile evidence, for kernels built for one
// arch only (with several, which one the profile ran is not known).
profile::CompileSmem SmemOf(const Evidence& ev) {
  profile::CompileSmem out;
  if (!ev.resources) return out;
  std::map<std::string, int> archs;
  for (const ResourcesKernelRow& k : ev.resources->kernels) ++archs[k.kernel];
  for (const ResourcesKernelRow& k : ev.resources->kernels) {
    if (archs[k.kernel] != 1) continue;
    std::string name = profile::NormaliseKernelName(k.kernel).short_name;
    if (k.base && k.base->static_smem_bytes >= 0) out["base"][name] = k.base->static_smem_bytes;
    if (k.head && k.head->static_smem_bytes >= 0) out["head"][name] = k.head->static_smem_bytes;
  }
  return out;
}
// Why there is no perf evidence: `absent`, or why the binding refused perf.json.
std::string NoPerf(const Context& ctx, const std::string& absent) {
  if (!ctx.ev.perf || ctx.ev.perf->refused.empty()) return absent;
  return ctx.ev.perf->path + " is not used: " + ctx.ev.perf->refused;
}


}  // namespace

profile::PerfVerdict PerfVerdictOf(const Context& ctx) {
  if (!ctx.ev.perf_doc) return {};
  return profile::JudgePerfDoc(*ctx.ev.perf_doc, ctx.cfg.profile, SmemOf(ctx.ev), ctx.profile_cmd);
}

std::vector<PerfBar> PerfBars(const Context& ctx) {
  std::vector<PerfBar> out;
  profile::PerfVerdict v = PerfVerdictOf(ctx);
  for (const profile::PerfPair& p : v.pairs) {
    if (!p.base || !p.head || !p.ratio) continue;
    PerfBar b;
    b.kernel = p.kernel;
    b.shape = p.shape;
    for (const GateResult& g : v.gates) {
      if (g.gate == "time" && g.kernel == p.kernel && g.shape == p.shape)
        b.status = g.status;
    }
    const profile::SideStats &bs = p.base->time, &hs = p.head->time;
    b.base_n = bs.n, b.head_n = hs.n;
    b.base_median_ns = bs.median, b.base_min_ns = bs.min, b.base_spread = bs.spread;
    b.head_median_ns = hs.median, b.head_min_ns = hs.min, b.head_spread = hs.spread;
    b.ratio = p.ratio->ratio, b.ratio_lo = p.ratio->lo, b.ratio_hi = p.ratio->hi;
    auto from = [](const profile::PerfSide& side) {
      return std::filesystem::path(side.source_file).filename().string() + " (" + side.tool + ")";
    };
    b.source = from(*p.base) + " -> " + from(*p.head);
    out.push_back(std::move(b));
  }
  return out;
}

std::optional<Check> JudgePerf(const Context& ctx, const CheckDef& def) {
  Check c = Missing(def, NoPerf(ctx, "no evidence/perf.json: GPU timing needs a GPU host"),
                    ctx.profile_cmd);
  c.required = ctx.cfg.gpu_evidence;  // GPU-only: required when a GPU host makes the evidence
  if (ctx.ev.perf_doc && ctx.ev.perf) {
    profile::PerfVerdict v = PerfVerdictOf(ctx);
    int timed = 0, failed = 0, missing = 0;
    std::string first_fail, first_missing;
    for (const GateResult& g : v.gates) {
      c.details.push_back(Line(g));
      if (g.gate == "time" && g.status == CheckStatus::kPass) ++timed;
      if (g.status == CheckStatus::kFail && (++failed == 1)) first_fail = Line(g);
      // Only the time and matched gates hold the item back; the others are listed.
      if ((g.gate == "time" || g.gate == "matched") && g.status == CheckStatus::kMissing &&
          (++missing == 1)) {
        first_missing = Line(g);
        c.missing_command = g.command;
      }
    }
    if (v.pairs.empty()) {
      c.summary = "evidence/perf.json has no kernel";
    } else if (failed > 0) {
      c = MakeCheck(def, CheckStatus::kFail,
                    std::to_string(failed) + " perf gate(s) fail: " + first_fail);
      c.details.clear();
      for (const GateResult& g : v.gates) c.details.push_back(Line(g));
    } else if (missing > 0 || timed == 0) {
      c.summary = missing > 0 ? first_missing : "no kernel has a time gate to judge";
    } else {
      std::vector<std::string> details = c.details;
      c = MakeCheck(def, CheckStatus::kPass,
                    std::to_string(timed) + " kernel/shape pair(s) within the " +
                        std::to_string(static_cast<int>(ctx.cfg.profile.max_slowdown * 100 + 0.5)) +
                        "% time budget at 95%, no perf gate failing");
      c.details = details;
    }
    c.required = ctx.cfg.gpu_evidence;
    if (c.status != CheckStatus::kMissing) c.citations.push_back(Cite(*ctx.ev.perf));
    // Where the figures came from: the imported exports, so a reader sees an EXAMPLE file.
    std::set<std::string> sources;
    for (const profile::KernelProfile& k : ctx.ev.perf_doc->kernels) {
      // A file outside the package is named by its name alone: its folder is the importing
      // machine's, and the sha256 identifies it.
      std::string source = k.source_file;
      const std::string package = ctx.cfg.package_dir + "/";
      if (std::filesystem::path(source).is_absolute() && source.rfind(package, 0) != 0)
        source = std::filesystem::path(source).filename().string() + ", outside the package";
      sources.insert(k.label + ": " + source + " (" + k.tool + ", " + k.tool_version +
                     ", sha256 " + k.source_sha256.substr(0, 12) + ")");
    }
    for (const std::string& src : sources) c.details.push_back("imported from " + src);
  }
  if (!c.required) c.summary += "; not required ([policy] gpu_evidence = false)";
  return c;
}

std::optional<Check> JudgeBankConflicts(const Context& ctx, const CheckDef& def) {
  Check bank = Missing(
      def, NoPerf(ctx, "not measured: bank conflicts need ncu on a GPU (no evidence/perf.json)"),
      ctx.bank_conflicts_cmd);
  bank.required = ctx.cfg.gpu_evidence;
  if (!ctx.ev.perf_doc || !ctx.ev.perf) return bank;
  profile::PerfVerdict v = PerfVerdictOf(ctx);
  std::vector<std::string> lines, fails;
  int measured = 0;
  for (const GateResult& g : v.gates) {
    if (g.gate != "bank_conflicts" && g.gate != "occupancy" && g.gate != "registers" &&
        g.gate != "smem")
      continue;
    lines.push_back(Line(g));
    if (g.status == CheckStatus::kFail) fails.push_back(Line(g));
    if (g.gate == "bank_conflicts" && g.status == CheckStatus::kPass) ++measured;
  }
  if (!fails.empty()) {
    bank = MakeCheck(def, CheckStatus::kFail, fails.front());
  } else if (measured > 0) {
    bank = MakeCheck(def, CheckStatus::kPass,
                     std::to_string(measured) +
                         " kernel/shape pair(s): bank conflicts not higher; "
                         "occupancy and registers as listed");
  } else {
    bank.summary = "evidence/perf.json has no bank-conflict metrics on both sides";
  }
  bank.details = lines;
  bank.required = ctx.cfg.gpu_evidence;
  if (bank.status != CheckStatus::kMissing) bank.citations.push_back(Cite(*ctx.ev.perf));
  return bank;
}

}  // namespace av::checklist
