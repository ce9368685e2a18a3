// Renderers of a NumericsRun: evidence/numerics.json (fields: doc/formats/numerics-json.md),
// a JUnit XML file (one <testcase> per case, for CI dashboards) and the console summary
// table. Writers only format what the run holds. Pure functions; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sweep/numerics_run.h"

namespace av {

inline constexpr const char* kNumericsJsonSchema = "attnverify.numerics/1";

// `command` is the attnverify command line that produced the run.
nlohmann::json NumericsRunToJson(const NumericsRun& run, const NumericsConfig& config,
                                 const std::string& command);
std::string NumericsRunToJUnit(const NumericsRun& run);
// The same JUnit XML from a numerics.json document (attnverify merge writes it).
std::string NumericsJsonToJUnit(const nlohmann::json& numerics);
// summary.time_ms of numerics.json from its "cases": the sum of each duration over the
// cases, "other" (total less the named parts: bookkeeping) and "overhead_fraction" =
// (generate + compare + check + other) / total, attnverify's own share of the case time
// (the candidate and the reference are the rest). attnverify merge recomputes it.
nlohmann::json NumericsTimeSummary(const nlohmann::json& cases);
// Per sweep: cases, passed, failed, slowest; then up to `max_failures` failing cases.
std::string FormatNumericsSummary(const NumericsRun& run, size_t max_failures = 20);

}  // namespace av
