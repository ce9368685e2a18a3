// Helpers for the report module's tests only: numerics evidence from case JSON snippets,
// a report config from TOML text, the checklist computed from them, a check by id.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "report/checklist.h"
#include "report/report_config.h"

namespace av::report_testing {

inline constexpr const char* kConfig = "attention-verify/attnverify.toml";

inline std::string Case(const std::string& id, const std::string& op, const std::string& params,
                        bool pass, const std::string& extra = "") {
  return R"({"id": ")" + id + R"(", "sweep": "s", "op": ")" + op +
         R"(", "dtype": "bf16", "params": )" + params + R"(, "verdict": ")" +
         (pass ? "pass" : "fail") + R"(", "reason": ")" + (pass ? "" : "o: not within tolerance") +
         R"(", "outputs": [{"name": "o", "passed": )" + (pass ? "true" : "false") +
         R"(, "compare": {"metrics": {"max_abs": )" + (pass ? "0.0" : "1.5") + "}}}]" + extra + "}";
}

inline NumericsEvidence Numerics(const std::vector<std::string>& cases,
                                 const std::string& invariance = "[]") {
  std::string text =
      R"({"schema": "attnverify.numerics/1", "command": "attnverify numerics --config )" +
      std::string(kConfig) + R"(", "cases": [)";
  for (size_t i = 0; i < cases.size(); ++i) text += (i ? "," : "") + cases[i];
  text += "], \"invariance\": " + invariance + "}";
  Result<NumericsEvidence> n = ParseNumericsEvidence(text, "evidence/numerics.json");
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? *n : NumericsEvidence{};
}

inline ReportConfig Config(const std::string& toml = "") {
  Result<ReportConfig> c = ParseReportConfig(toml, kConfig);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

inline const Check* FindCheck(const ChecklistReport& r, const std::string& id) {
  for (const ItemResult& item : r.items) {
    for (const Check& c : item.checks) {
      if (c.id == id) return &c;
    }
  }
  return nullptr;
}

// The evidence as `attnverify run` would have left it: every file carries the run id
// "test-run" (unless it has one) and evidence/run.json records it as its stage's output.
// Stages the test recorded itself in ev.run are left as they are.
inline Evidence Bound(Evidence ev) {
  if (!ev.numerics && !ev.resources && !ev.review && !ev.slice) return ev;
  if (!ev.run) {
    ev.run.emplace();
    ev.run->file.path = "evidence/run.json";
  }
  RunLedger& ledger = ev.run->ledger;
  auto bind = [&](EvidenceFile* f, const char* stage) {
    if (f->run_id.empty()) f->run_id = "test-run";
    if (ledger.Stage(stage) != nullptr) return;
    StageEntry e;
    e.name = stage;
    e.run_id = f->run_id;
    e.status = StageStatus::kOk;
    e.exit_code = 0;
    e.argv = {"attnverify", stage, "--config", kConfig};
    e.outputs.push_back({f->path, f->sha256});
    ledger.Put(e);
  };
  if (ev.numerics) bind(&ev.numerics->file, "numerics");
  if (ev.resources) bind(&ev.resources->file, "build");
  if (ev.review) bind(&ev.review->file, "review");
  if (ev.slice) bind(&*ev.slice, "slice");
  ev.run->file.sha256 = Sha256Hex(RunLedgerToJson(ledger).dump());
  return ev;
}

// The checklist over `ev` bound to its run (Bound); ComputeChecklist for unbound evidence.
inline ChecklistReport Compute(const Evidence& ev, const std::string& toml = "") {
  return ComputeChecklist(Bound(ev), Config(toml), "0.1.0");
}
}  // namespace av::report_testing
