#include "agent/perf_context.h"

#include <cstdio>

#include "profile/gates.h"
#include "profile/perf_model.h"
#include "profile/profile_config.h"

namespace av {

Result<std::string> PerfGateSummary(const std::string& perf_text, const PackageConfig* package) {
  AV_ASSIGN_OR_RETURN(profile::PerfDoc doc,
                      profile::ParsePerfJson(perf_text, "evidence/perf.json"));
  Result<profile::ProfileConfig> cfg =
      package != nullptr ? profile::ParseProfileConfig(*package) : profile::ProfileConfig{};
  const profile::ProfileConfig config = cfg.ok() ? *cfg : profile::ProfileConfig{};
  profile::PerfVerdict v =
      profile::JudgePerfDoc(doc, config, {}, "attnverify profile --run");
  std::string out;
  for (const profile::PerfPair& p : v.pairs) {
    out += "- " + p.kernel + (p.shape.empty() ? "" : " @ " + p.shape) + ": ";
    out += p.base ? "base n " + std::to_string(p.base->time.n) : std::string("no base");
    out += p.head ? ", head n " + std::to_string(p.head->time.n) : std::string(", no head");
    if (p.ratio) {
      char buf[160];
      const double pct = (p.ratio->ratio - 1.0) * 100.0;
      std::snprintf(buf, sizeof(buf),
                    "; head/base median ratio %.4f (95%% interval %.4f..%.4f): the head is "
                    "%.1f%% %s",
                    p.ratio->ratio, p.ratio->lo, p.ratio->hi, pct < 0 ? -pct : pct,
                    pct < 0 ? "faster" : "slower");
      out += buf;
    }
    out += "\n";
    for (const profile::GateResult& g : v.gates) {
      if (g.kernel != p.kernel || g.shape != p.shape) continue;
      out += "    " + g.gate + " gate " + GateStatusName(g.status) + ": " + g.summary +
             "\n";
    }
  }
  if (out.empty()) out = "- no kernel profiled on both sides\n";
  return out;
}

}  // namespace av
