// tolerances.json: for each op, each output (o, lse, d) and each input dtype (or "*"),
// the comparison rule of numerics/rules.h with its parameters. Unknown keys, outputs an
// op does not produce and unknown rules are InvalidInput "FILE: JSON.PATH: problem".
// Format: doc/formats/tolerances-json.md. Pure functions; any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "numerics/rules.h"
#include "sweep/shapes_config.h"

namespace av {

struct ToleranceEntry {
  RuleRequest request;
  std::string json_path;  // "$.ops.mla_decode.o.bf16", for reports
};

struct TolerancesConfig {
  std::string path;
  // op -> output -> dtype name or "*" -> rule
  std::map<std::string, std::map<std::string, std::map<std::string, ToleranceEntry>>> ops;
};

Result<TolerancesConfig> ParseTolerancesConfig(std::string_view text, const std::string& path);
Result<TolerancesConfig> LoadTolerancesConfig(const std::string& path);

// The entry for (op, output, dtype): the dtype's own, else "*"; nullptr when neither.
const ToleranceEntry* FindTolerance(const TolerancesConfig& config, const std::string& op,
                                    const std::string& output, DType dtype);

// Every case's every output has a rule, and lowprec_multiple is only asked of ops and
// dtypes the low-precision reference covers (attention, mla_decode in bf16/f16).
Status CheckTolerancesCover(const TolerancesConfig& config, const std::vector<CaseSpec>& cases);

}  // namespace av
