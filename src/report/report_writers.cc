// The format -> writer table of report_writers.h.
#include "report/report_writers.h"

#include <nlohmann/json.hpp>

#include "core/json_dump.h"

namespace av {

const std::vector<ReportWriter>& ReportWriters() {
  static const std::vector<ReportWriter> kWriters = {
      {"md", WriteAcceptanceMarkdown},
      {"json", [](const ChecklistReport& r) { return JsonFileText(AcceptanceToJson(r)); }},
      {"html", WriteAcceptanceHtml},
      {"sarif", [](const ChecklistReport& r) { return JsonFileText(AcceptanceToSarif(r)); }},
  };
  return kWriters;
}

const ReportWriter* FindReportWriter(std::string_view format) {
  for (const ReportWriter& w : ReportWriters()) {
    if (w.format == format) return &w;
  }
  return nullptr;
}

}  // namespace av
