// Renderers of a ChecklistReport, one per format; none computes anything — the engine
// (checklist.h) decided every status, reason and citation. acceptance.md is for a PR
// comment, acceptance.json is the machine-readable report (doc/formats/acceptance-json.md),
// acceptance.html is self-contained (inline CSS and SVG, no external resources) and
// acceptance.sarif carries the review findings for code scanning (SARIF 2.1.0).
// Pure functions; any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "report/checklist.h"

namespace av {

std::string WriteAcceptanceMarkdown(const ChecklistReport& report);
nlohmann::json AcceptanceToJson(const ChecklistReport& report);
std::string WriteAcceptanceHtml(const ChecklistReport& report);
nlohmann::json AcceptanceToSarif(const ChecklistReport& report);

// One report format: its name (the file is reports/acceptance.<format>) and the text of
// that file (JSON formats as core's JsonFileText writes them).
struct ReportWriter {
  std::string_view format;
  std::string (*write)(const ChecklistReport& report);
};
// One writer per format of kReportFormats (report_config.h), in that order.
const std::vector<ReportWriter>& ReportWriters();
// The writer of `format`; null for a format no writer has.
const ReportWriter* FindReportWriter(std::string_view format);

// Item 4's time table (markdown) and bar chart (inline SVG) from report.perf; empty when
// there is no perf.json (perf_view.cc).
std::string PerfTableMarkdown(const ChecklistReport& report);
std::string PerfSvg(const ChecklistReport& report);

// An agent finding's label for every writer (md_writer.cc): "agent stage diff_review
// (flashmla), model m, ledger row evidence/token_ledger.csv:3 (request r, answer file)", and
// its command with the policy's decision and whether it ran ("`cmd` (policy: allow; not
// run)"; `quote` wraps the command: "`" for Markdown, "" for HTML).
std::string AgentSource(const AgentQuestion& q);
std::string AgentVerify(const AgentQuestion& q, const std::string& quote);

// The console summary `attnverify report` prints: verdict line and the item table.
std::string FormatVerdictTable(const ChecklistReport& report);

}  // namespace av
