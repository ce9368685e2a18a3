// Item 4's view of evidence/perf.json: a markdown table and an inline SVG bar chart of the
// median time per kernel and shape, base beside head. Writers only render report.perf.
#include <algorithm>
#include <cstdio>

#include "core/markup.h"
#include "report/chart_labels.h"
#include "report/report_writers.h"

namespace av {
namespace {

std::string Us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1000);
  return buf;
}

std::string Num(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string Pipe(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::string PerfTableMarkdown(const ChecklistReport& r) {
  if (r.perf.empty()) return "";
  std::string out =
      "\n## Time per kernel and shape, base → head (evidence/perf.json)\n\n"
      "Imported: every figure comes from a profiler export `attnverify profile` imported (the "
      "source column names it), not from a measurement the report made; an example or "
      "hand-made export reads as what it is.\n\n"
      "| kernel | shape | base median µs (min, spread, n) | head median µs (min, spread, n) | "
      "head/base (95% interval) | time gate | source (imported) |\n|---|---|---|---|---|---|---|\n";
  for (const PerfBar& b : r.perf) {
    out += "| `" + Pipe(b.kernel.substr(0, 120)) + "` | " + Pipe(b.shape) + " | " +
           Us(b.base_median_ns) + " (" + Us(b.base_min_ns) + Num(", %.1f%%", b.base_spread * 100) +
           ", " + std::to_string(b.base_n) + ") | " + Us(b.head_median_ns) + " (" +
           Us(b.head_min_ns) + Num(", %.1f%%", b.head_spread * 100) + ", " +
           std::to_string(b.head_n) + ") | " + Num("%.4f", b.ratio) + Num(" (%.4f", b.ratio_lo) +
           Num("..%.4f)", b.ratio_hi) + " | " + GateStatusName(b.status) + " | " + Pipe(b.source) + " |\n";
  }
  return out;
}

std::string PerfSvg(const ChecklistReport& r) {
  if (r.perf.empty()) return "";
  double scale = 1;
  for (const PerfBar& b : r.perf) scale = std::max({scale, b.base_median_ns, b.head_median_ns});
  const int label_w = 330, bar_w = 420, row_h = 34, top = 8;
  const int h = top + row_h * static_cast<int>(r.perf.size()) + 20;
  auto width = [&](double ns) {
    return std::to_string(std::max(1, static_cast<int>(ns / scale * bar_w)));
  };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  std::to_string(label_w + bar_w + 300) + "\" height=\"" + std::to_string(h) +
                  "\" role=\"img\" aria-label=\"median time per kernel, base and head\">\n";
  std::vector<std::string> kernels;
  for (const PerfBar& b : r.perf) kernels.push_back(b.kernel);
  const std::vector<std::string> labels = ChartLabels(kernels, 44);
  for (size_t i = 0; i < r.perf.size(); ++i) {
    const PerfBar& b = r.perf[i];
    const int y = top + row_h * static_cast<int>(i);
    std::string name = labels[i] + (b.shape.empty() ? "" : " [" + b.shape + "]") + " (imported)";
    s += "<text x=\"0\" y=\"" + std::to_string(y + 16) + "\">" + EscapeMarkup(name) + "<title>" +
         EscapeMarkup("imported from " + b.source) + "</title></text>\n";
    s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 2) +
         "\" width=\"" + width(b.base_median_ns) +
         "\" height=\"10\" fill=\"#9aa0a6\"><title>base " + Us(b.base_median_ns) +
         " us</title></rect>\n";
    s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 14) +
         "\" width=\"" + width(b.head_median_ns) + "\" height=\"10\" fill=\"" +
         (b.status == CheckStatus::kFail ? "#d93025" : "#1a73e8") + "\"><title>head " + Us(b.head_median_ns) +
         " us</title></rect>\n";
    s += "<text x=\"" + std::to_string(label_w + bar_w + 6) + "\" y=\"" + std::to_string(y + 18) +
         "\">" +
         EscapeMarkup(Us(b.base_median_ns) + " -> " + Us(b.head_median_ns) + " us (x" +
                      Num("%.3f", b.ratio) + ", " + GateStatusName(b.status) + ")") +
         "</text>\n";
  }
  s += "<text x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(h - 4) +
       "\">median time from imported profiler exports (not measured by the report); grey: "
       "base, blue: head (red: the time gate fails)</text>\n";
  return s + "</svg>\n";
}

}  // namespace av
