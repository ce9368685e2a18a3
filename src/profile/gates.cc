// The perf gates, one function each, over the matched pairs.
#include "profile/gates.h"

#include <cmath>
#include <cstdio>

#include "profile/peaks.h"

namespace av::profile {
namespace {

std::string Fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string Us(double ns) { return Fmt("%.3f us", ns / 1000); }

GateResult Make(const char* gate, const PerfPair& p, CheckStatus s, std::string summary,
                std::string command = "") {
  return {gate, p.kernel, p.shape, s, std::move(summary), std::move(command)};
}

const double* MedianOf(const PerfSide& s, const char* figure) {
  auto it = s.medians.find(figure);
  return it == s.medians.end() ? nullptr : &it->second;
}

GateResult TimeGate(const PerfPair& p, const ProfileConfig& cfg, const std::string& cmd) {
  const PerfSide &b = *p.base, &h = *p.head;
  if (b.time.n < cfg.min_launches || h.time.n < cfg.min_launches) {
    return Make("time", p, CheckStatus::kMissing,
                "base has " + std::to_string(b.time.n) + " launch(es) with a duration, head " +
                    std::to_string(h.time.n) + "; the time gate needs " +
                    std::to_string(cfg.min_launches) + " per side",
                cmd);
  }
  const RatioInterval& r = *p.ratio;
  std::string s = "median " + Us(b.time.median) + " -> " + Us(h.time.median) +
                  Fmt(" (x%.4f", r.ratio) + Fmt(", 95%% interval %.4f", r.lo) +
                  Fmt("..%.4f", r.hi) + (r.bootstrap ? ", bootstrap" : ", normal approx.") +
                  "; n " + std::to_string(b.time.n) + "/" + std::to_string(h.time.n) + ")";
  const double limit = 1 + cfg.max_slowdown;
  if (r.hi <= limit) {
    return Make("time", p, CheckStatus::kPass,
                s + Fmt("; slowdown within %.1f%%", cfg.max_slowdown * 100));
  }
  if (r.lo > limit) {
    return Make("time", p, CheckStatus::kFail,
                s + Fmt("; the head is slower than the %.1f%% budget", cfg.max_slowdown * 100));
  }
  return Make("time", p, CheckStatus::kFail,
              s + Fmt("; a slowdown past %.1f%% is not excluded: collect more launches",
                      cfg.max_slowdown * 100),
              cmd);
}

std::optional<GateResult> OccupancyGate(const PerfPair& p, const ProfileConfig& cfg) {
  const double* b = MedianOf(*p.base, fig::kAchievedOcc);
  const double* h = MedianOf(*p.head, fig::kAchievedOcc);
  if (!b || !h) return std::nullopt;
  std::string s = Fmt("achieved occupancy %.2f%%", *b) + Fmt(" -> %.2f%%", *h);
  if (!p.head->occupancy_limiter.empty()) s += " (limited by " + p.head->occupancy_limiter + ")";
  bool ok = *h >= *b - cfg.occupancy_tolerance_pct;
  return Make("occupancy", p, ok ? CheckStatus::kPass : CheckStatus::kFail,
              s + (ok ? "" : Fmt("; lower by more than %.1f points", cfg.occupancy_tolerance_pct)));
}

std::optional<GateResult> RegistersGate(const PerfPair& p) {
  const double* b = MedianOf(*p.base, fig::kRegisters);
  const double* h = MedianOf(*p.head, fig::kRegisters);
  if (!b || !h) return std::nullopt;
  std::string s = Fmt("registers/thread %.0f", *b) + Fmt(" -> %.0f", *h);
  if (*h <= *b) return Make("registers", p, CheckStatus::kPass, s);
  const double* tb = MedianOf(*p.base, fig::kTheoreticalOcc);
  const double* th = MedianOf(*p.head, fig::kTheoreticalOcc);
  if (!tb || !th) {
    return Make("registers", p, CheckStatus::kMissing,
                s + "; higher, and the profile has no theoretical occupancy to show whether it "
                    "crossed an occupancy cliff (profile with --section Occupancy)");
  }
  std::string t = Fmt("; theoretical occupancy %.2f%%", *tb) + Fmt(" -> %.2f%%", *th);
  if (*th < *tb)
    return Make("registers", p, CheckStatus::kFail, s + t + ": past the occupancy cliff");
  return Make("registers", p, CheckStatus::kPass, s + t + ": higher, but below the cliff");
}

std::optional<GateResult> BankGate(const PerfPair& p, const ProfileConfig& cfg,
                                   const std::string& cmd) {
  auto total = [](const PerfSide& s) -> std::optional<double> {
    const double* ld = MedianOf(s, fig::kBankLd);
    const double* st = MedianOf(s, fig::kBankSt);
    if (!ld && !st) return std::nullopt;
    return (ld ? *ld : 0) + (st ? *st : 0);
  };
  std::optional<double> b = total(*p.base), h = total(*p.head);
  if (!b && !h) return std::nullopt;
  if (!b || !h) {
    return Make("bank_conflicts", p, CheckStatus::kMissing,
                std::string("bank conflicts measured on the ") + (b ? "base" : "head") + " only",
                cmd);
  }
  std::string s = Fmt("shared-memory bank conflicts (ld+st) %.0f", *b) + Fmt(" -> %.0f", *h);
  if (const double* w = MedianOf(*p.head, fig::kWavefronts)) s += Fmt(", head wavefronts %.0f", *w);
  bool ok = *h <= *b * (1 + cfg.max_bank_conflict_increase);
  return Make("bank_conflicts", p, ok ? CheckStatus::kPass : CheckStatus::kFail,
              s + (ok ? "" : "; higher than the base"));
}

std::optional<GateResult> SmemGate(const PerfPair& p, const CompileSmem& smem) {
  std::string notes;
  bool any = false, bad = false;
  for (const auto& [label, side] : {std::pair{"base", &*p.base}, std::pair{"head", &*p.head}}) {
    auto l = smem.find(label);
    const double* prof = MedianOf(*side, fig::kSmemStatic);
    if (l == smem.end() || !prof) continue;
    auto k = l->second.find(side->name.short_name);
    if (k == l->second.end()) continue;
    any = true;
    notes += std::string(notes.empty() ? "" : "; ") + label +
             Fmt(" static smem %.0f B profiled", *prof) + ", " + std::to_string(k->second) +
             " B compiled";
    bad |= static_cast<int64_t>(std::llround(*prof)) != k->second;
  }
  if (!any) return std::nullopt;
  return Make(
      "smem", p, bad ? CheckStatus::kFail : CheckStatus::kPass,
      notes + (bad ? ": the profile is of a different build than the compile evidence" : ""));
}

GateResult PlausibleGate(const PerfPair& p, const ProfileConfig& cfg) {
  double bw = cfg.peak_bw_gbs, tf = cfg.peak_tflops;
  if (std::optional<GpuPeak> g = FindGpuPeak(cfg.gpu)) {
    if (bw == 0) bw = g->bw_gbs;
    if (tf == 0) tf = g->tflops;
  }
  const PerfSide& h = *p.head;
  const double* dur = MedianOf(h, fig::kDuration);
  if (bw == 0 && tf == 0) {
    return Make(
        "plausible", p, CheckStatus::kMissing,
        "no peak figures: set [profile] gpu (" + KnownGpus() + ") or peak_bw_gbs/peak_tflops");
  }
  double bytes = -1;
  if (const double* all = MedianOf(h, fig::kDramBytes)) bytes = *all;
  const double *rd = MedianOf(h, fig::kDramRead), *wr = MedianOf(h, fig::kDramWrite);
  if (bytes < 0 && (rd || wr)) bytes = (rd ? *rd : 0) + (wr ? *wr : 0);
  const double* flops = MedianOf(h, fig::kFlops);
  if (!dur || *dur <= 0 || (bytes < 0 && !flops)) {
    return Make("plausible", p, CheckStatus::kMissing,
                "the head's profile has no duration with DRAM bytes or flops "
                "(add dram__bytes_read.sum,dram__bytes_write.sum to ncu --metrics)");
  }
  std::string s;
  bool bad = false;
  if (bytes >= 0 && bw > 0) {
    double gbs = bytes / *dur;  // byte/ns == GB/s
    s += Fmt("%.1f GB/s", gbs) + Fmt(" of a %.0f GB/s peak", bw);
    bad |= gbs > bw;
  }
  if (flops && tf > 0) {
    double t = *flops / *dur / 1000;  // flop/ns = GFLOP/s
    s += (s.empty() ? "" : ", ") + Fmt("%.1f TFLOP/s", t) + Fmt(" of %.0f", tf);
    bad |= t > tf;
  }
  return Make("plausible", p, bad ? CheckStatus::kFail : CheckStatus::kPass,
              s + (bad ? ": faster than the GPU allows — did the kernel skip work?" : ""));
}

}  // namespace

PerfVerdict JudgePerfDoc(const PerfDoc& doc, const ProfileConfig& cfg, const CompileSmem& smem,
                         const std::string& collect_cmd) {
  PerfVerdict v;
  v.pairs = MatchKernels(doc, cfg);
  for (const PerfPair& p : v.pairs) {
    if (!p.base || !p.head) {
      v.gates.push_back(
          Make("matched", p, CheckStatus::kMissing,
               std::string("kernel profiled on the ") + (p.base ? "base" : "head") +
                   " only; if it was renamed, add a row to [profile] match (\"old.*\" = \"new.*\")",
               collect_cmd));
      continue;
    }
    v.gates.push_back(TimeGate(p, cfg, collect_cmd));
    for (std::optional<GateResult> g : {OccupancyGate(p, cfg), RegistersGate(p),
                                        BankGate(p, cfg, collect_cmd), SmemGate(p, smem)}) {
      if (g) v.gates.push_back(std::move(*g));
    }
    v.gates.push_back(PlausibleGate(p, cfg));
  }
  return v;
}

}  // namespace av::profile
