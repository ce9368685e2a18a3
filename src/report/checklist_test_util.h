// Helpers for the report module's tests only: numerics evidence from case JSON snippets,
// a report config from TOML text, the checklist computed from them, a check by id.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

inline ChecklistReport Compute(const Evidence& ev, const std::string& toml = "") {
  return ComputeChecklist(ev, Config(toml), "0.1.0");
}
}  // namespace av::report_testing
