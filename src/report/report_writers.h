// Renderers of a ChecklistReport, one per format; none computes anything — the engine
// (checklist.h) decided every status, reason and citation. acceptance.md is for a PR
// comment, acceptance.json is the machine-readable report (doc/formats/acceptance-json.md),
// acceptance.html is self-contained (inline CSS and SVG, no external resources) and
// acceptance.sarif carries the review findings for code scanning (SARIF 2.1.0).
// Pure functions; any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "report/checklist.h"

namespace av {

std::string WriteAcceptanceMarkdown(const ChecklistReport& report);
nlohmann::json AcceptanceToJson(const ChecklistReport& report);
std::string WriteAcceptanceHtml(const ChecklistReport& report);
nlohmann::json AcceptanceToSarif(const ChecklistReport& report);

// Item 4's time table (markdown) and bar chart (inline SVG) from report.perf; empty when
// there is no perf.json (perf_view.cc).
std::string PerfTableMarkdown(const ChecklistReport& report);
std::string PerfSvg(const ChecklistReport& report);

// The console summary `attnverify report` prints: verdict line and the item table.
std::string FormatVerdictTable(const ChecklistReport& report);

}  // namespace av
