// acceptance.html: one self-contained page (inline CSS and SVG, no scripts, no external
// resources): verdict, item table, numerics coverage grid, shared-memory deltas per kernel
// against the arch's cap, error heatmaps of failing cases, then every check.
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/markup.h"
#include "report/chart_labels.h"
#include "report/report_writers.h"

namespace av {
namespace {

std::string Base64(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kAlphabet[(v >> k) & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += kAlphabet[(v >> 18) & 63], out += kAlphabet[(v >> 12) & 63], out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63], out += kAlphabet[(v >> 12) & 63],
        out += kAlphabet[(v >> 6) & 63], out += '=';
  }
  return out;
}

const char* Css(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kMissing:
      return "missing";
    case CheckStatus::kNotApplicable:
      return "na";
  }
  return "missing";
}

constexpr const char* kStyle = R"(<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em} h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
.pass{color:#176f2c}.fail{color:#b3261e;font-weight:bold}.missing{color:#8a6100}.na{color:#5f6368}
.verdict{font-size:1.3em;padding:.5em 1em;border-radius:4px;display:inline-block}
.v-accepted{background:#e3f4e6}.v-rejected{background:#fbe4e2}.v-incomplete{background:#fdf3d8}
code,pre{font:12px ui-monospace,monospace;background:#f5f5f5} pre{padding:.5em;overflow-x:auto}
.cite{color:#555;font-size:12px} li{margin:.25em 0} svg text{font:11px system-ui,sans-serif}
figure.heatmap{margin:1em 0;padding:.4em;border:1px solid #ddd;border-radius:4px}
figure.heatmap figcaption{margin-bottom:.3em} figure.heatmap img{display:block;max-width:100%;height:auto}
</style>)";

std::string CoverageSvg(const ChecklistReport& r) {
  std::vector<std::string> ops, cats;
  std::map<std::pair<std::string, std::string>, const CoverageCell*> cell;
  for (const CoverageCell& c : r.coverage) {
    if (std::find(ops.begin(), ops.end(), c.op) == ops.end()) ops.push_back(c.op);
    if (std::find(cats.begin(), cats.end(), c.category) == cats.end()) cats.push_back(c.category);
    cell[{c.op, c.category}] = &c;
  }
  const int label_w = 140, col_w = 120, row_h = 22, top = 24;
  const int w = label_w + col_w * static_cast<int>(ops.size()) + 10,
            h = top + row_h * static_cast<int>(cats.size()) + 6;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) +
                  "\" height=\"" + std::to_string(h) +
                  "\" role=\"img\" aria-label=\"numerics coverage\">\n";
  for (size_t j = 0; j < ops.size(); ++j) {
    s += "<text x=\"" + std::to_string(label_w + col_w * j + 4) + "\" y=\"16\">" +
         EscapeMarkup(ops[j]) + "</text>\n";
  }
  for (size_t i = 0; i < cats.size(); ++i) {
    const int y = top + row_h * static_cast<int>(i);
    s +=
        "<text x=\"0\" y=\"" + std::to_string(y + 15) + "\">" + EscapeMarkup(cats[i]) + "</text>\n";
    for (size_t j = 0; j < ops.size(); ++j) {
      const int x = label_w + col_w * static_cast<int>(j);
      auto it = cell.find({ops[j], cats[i]});
      std::string fill = "#eeeeee", label = "n/a";
      if (it != cell.end()) {
        const CoverageCell& c = *it->second;
        fill = c.failed > 0 ? "#f4b4ae" : c.passed > 0 ? "#b5e0bd" : "#f8e1a0";
        label = c.failed > 0
                    ? std::to_string(c.failed) + " fail / " + std::to_string(c.passed + c.failed)
                : c.passed > 0 ? std::to_string(c.passed) + " pass"
                               : "no case";
      }
      s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           std::to_string(col_w - 4) + "\" height=\"" + std::to_string(row_h - 4) + "\" fill=\"" +
           fill + "\"/>";
      s += "<text x=\"" + std::to_string(x + 4) + "\" y=\"" + std::to_string(y + 13) + "\">" +
           EscapeMarkup(label) + "</text>\n";
    }
  }
  return s + "</svg>\n";
}

std::string ResourceSvg(const ChecklistReport& r) {
  int64_t scale = 1;
  for (const ResourceBar& b : r.resources)
    scale = std::max({scale, b.base_smem, b.head_smem, b.cap});
  const int label_w = 330, bar_w = 480, row_h = 34, top = 8;
  const int h = top + row_h * static_cast<int>(r.resources.size()) + 20;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  std::to_string(label_w + bar_w + 340) + "\" height=\"" + std::to_string(h) +
                  "\" role=\"img\" aria-label=\"shared memory per kernel\">\n";
  auto px = [&](int64_t v) {
    return std::to_string(label_w + static_cast<int>(static_cast<double>(v) / scale * bar_w));
  };
  auto width = [&](int64_t v) {
    return std::to_string(static_cast<int>(static_cast<double>(v) / scale * bar_w));
  };
  std::vector<std::string> kernels;
  for (const ResourceBar& b : r.resources) kernels.push_back(b.kernel);
  const std::vector<std::string> labels = ChartLabels(kernels, 48);
  for (size_t i = 0; i < r.resources.size(); ++i) {
    const ResourceBar& b = r.resources[i];
    const int y = top + row_h * static_cast<int>(i);
    const std::string& name = labels[i];
    s += "<text x=\"0\" y=\"" + std::to_string(y + 18) + "\">" +
         EscapeMarkup(name + " (" + b.arch + ")") + "</text>\n";
    if (b.base_smem >= 0) {
      s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 2) +
           "\" width=\"" + width(b.base_smem) + "\" height=\"10\" fill=\"#9e9e9e\"><title>base " +
           std::to_string(b.base_smem) + " B</title></rect>\n";
    }
    if (b.head_smem >= 0) {
      bool over = b.overflow || (b.cap >= 0 && b.head_smem > b.cap);
      s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 14) +
           "\" width=\"" + width(b.head_smem) + "\" height=\"10\" fill=\"" +
           (over ? "#d93025" : "#1a73e8") + "\"><title>head " + std::to_string(b.head_smem) +
           " B</title></rect>\n";
    }
    if (b.cap >= 0) {
      s += "<line x1=\"" + px(b.cap) + "\" x2=\"" + px(b.cap) + "\" y1=\"" + std::to_string(y) +
           "\" y2=\"" + std::to_string(y + 26) + "\" stroke=\"#000\" stroke-dasharray=\"3,2\"/>\n";
    }
    std::string label = (b.base_smem >= 0 ? std::to_string(b.base_smem) + " -> " : std::string()) +
                        (b.head_smem >= 0 ? std::to_string(b.head_smem) : std::string("-")) + " B" +
                        (b.cap >= 0 ? " / cap " + std::to_string(b.cap) : "") +
                        (b.overflow ? " (ptxas overflow)" : "");
    s += "<text x=\"" + std::to_string(label_w + bar_w + 6) + "\" y=\"" + std::to_string(y + 18) +
         "\">" + EscapeMarkup(label) + "</text>\n";
  }
  s += "<text x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(h - 4) +
       "\">grey: base, blue: head (red: over the cap), dashed: the arch's opt-in cap</text>\n";
  return s + "</svg>\n";
}

}  // namespace

std::string WriteAcceptanceHtml(const ChecklistReport& r) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                    EscapeMarkup(r.title) + "</title>\n" + kStyle + "</head><body>\n<h1>" +
                    EscapeMarkup(r.title) + "</h1>\n";
  out += "<p class=\"verdict v-" + std::string(ReportVerdictName(r.verdict)) + "\">Verdict: <b>" +
         ReportVerdictName(r.verdict) + "</b> — " + EscapeMarkup(r.verdict_reason) + "</p>\n";
  for (const std::string& w : r.warnings)
    out += "<p class=\"missing\">warning: " + EscapeMarkup(w) + "</p>\n";
  out += "<p class=\"cite\">config <code>" + EscapeMarkup(r.config) + "</code> · attnverify " +
         EscapeMarkup(r.tool_version) + "</p>\n";
  out += "<table><tr><th>#</th><th>item</th><th>status</th><th>reason</th></tr>\n";
  for (const ItemResult& item : r.items) {
    out += "<tr><td>" + std::to_string(item.number) + "</td><td><a href=\"#item" +
           std::to_string(item.number) + "\">" + EscapeMarkup(item.title) + "</a>" +
           (item.required ? "" : " <i>(not required)</i>") + "</td><td class=\"" +
           Css(item.status) + "\">" + CheckStatusName(item.status) + "</td><td>" +
           EscapeMarkup(item.reason) + "</td></tr>\n";
  }
  out += "</table>\n";
  if (!r.coverage.empty())
    out += "<h2>Numerics coverage (base cases per op and category)</h2>\n" + CoverageSvg(r);
  if (!r.resources.empty())
    out += "<h2>Shared memory per kernel, base → head</h2>\n" + ResourceSvg(r);
  if (!r.perf.empty())
    out += "<h2>Median time per kernel and shape, base → head</h2>\n" + PerfSvg(r);
  if (!r.heatmaps.empty()) {
    out += "<h2>Error heatmaps of failing cases</h2>\n";
    for (const HeatmapSvg& h : r.heatmaps) {
      // The caption heads its own plot, inside one framed figure, so no caption sits
      // nearer another heatmap than its own.
      out += "<figure class=\"heatmap\"><figcaption><code>" + EscapeMarkup(h.case_id) +
             "</code> — <code>" + EscapeMarkup(h.path) + "</code></figcaption><img alt=\"" +
             EscapeMarkup(h.path) + "\" src=\"data:image/svg+xml;base64," + Base64(h.svg) +
             "\"></figure>\n";
    }
  }
  for (const ItemResult& item : r.items) {
    out += "<h2 id=\"item" + std::to_string(item.number) + "\">" + std::to_string(item.number) +
           ". " + EscapeMarkup(item.title) + " — <span class=\"" + Css(item.status) + "\">" +
           CheckStatusName(item.status) + "</span></h2>\n";
    for (const std::string& run : item.evidence_runs)
      out += "<p class=\"cite\">evidence from " + EscapeMarkup(run) + "</p>\n";
    for (const std::string& note : item.notes)
      out += "<p class=\"missing\">" + EscapeMarkup(note) + "</p>\n";
    out += "<ul>\n";
    for (const Check& c : item.checks) {
      out += "<li><span class=\"" + std::string(Css(c.status)) + "\">" + CheckStatusName(c.status) +
             "</span> <code>" + EscapeMarkup(c.id) + "</code> " + EscapeMarkup(c.title) +
             (c.waiver.empty() ? (c.required ? "" : " <i>(optional)</i>")
                               : " <i>(waived: " + EscapeMarkup(c.waiver) + ")</i>") +
             ": " + EscapeMarkup(c.summary);
      if (!c.details.empty()) {
        out += "<ul>";
        for (const std::string& d : c.details)
          out += "<li><code>" + EscapeMarkup(d) + "</code></li>";
        out += "</ul>";
      }
      for (const Citation& x : c.citations) {
        out += "<div class=\"cite\">evidence: <code>" + EscapeMarkup(x.file) +
               "</code> sha256 <code>" + EscapeMarkup(x.sha256.substr(0, 12)) + "</code>" +
               (x.subject.empty() ? "" : " · <code>" + EscapeMarkup(x.subject) + "</code>") +
               (x.command.empty() ? "" : " · <code>" + EscapeMarkup(x.command) + "</code>") +
               "</div>";
      }
      if (!c.missing_command.empty()) out += "<pre>" + EscapeMarkup(c.missing_command) + "</pre>";
      out += "</li>\n";
    }
    out += "</ul>\n";
    if (!item.findings.empty()) {
      out += "<p>Review findings (questions this item answers):</p><ul>\n";
      for (const Finding& f : item.findings) {
        out += "<li><code>" + EscapeMarkup(f.id) + "</code> " + SeverityName(f.severity) +
               " <code>" + EscapeMarkup(f.rule) + "</code> <code>" + EscapeMarkup(f.file) + ":" +
               std::to_string(f.line) + "</code> — " +
               EscapeMarkup(f.title.empty() ? f.message : f.title + ": " + f.message) +
               "<div class=\"cite\">verify: <code>" +
               EscapeMarkup(f.has_verify() ? f.VerifyLine() : "(none given)") +
               "</code></div></li>\n";
      }
      out += "</ul>\n";
    }
    if (!item.agent_findings.empty()) {
      out +=
          "<p>Agent findings (the agent reviewer's questions on this item; they pass and fail "
          "nothing):</p><ul>\n";
      for (const AgentQuestion& q : item.agent_findings) {
        out += "<li><code>" + EscapeMarkup(q.id) + "</code> " + AgentSeverityWord(q.severity) +
               (q.open ? " <span class=\"missing\">open</span>" : "") + " <code>" +
               EscapeMarkup(q.place.empty() ? "(no place)" : q.place) + "</code> — " +
               EscapeMarkup(q.claim) + "<div class=\"cite\">from: " + EscapeMarkup(AgentSource(q)) +
               "</div><div class=\"cite\">verify: " + EscapeMarkup(AgentVerify(q, "")) + "</div>" +
               (q.resolution.empty()
                    ? ""
                    : "<div class=\"cite\">" + EscapeMarkup(q.resolution) + "</div>") +
               "</li>\n";
      }
      out += "</ul>\n";
    }
  }
  out +=
      "<h2>Evidence files</h2>\n<table><tr><th>file</th><th>sha256</th><th>run</th>"
      "<th>command</th></tr>\n";
  for (const EvidenceFile& f : r.evidence) {
    out += "<tr><td><code>" + EscapeMarkup(f.path) + "</code></td><td><code>" +
           EscapeMarkup(f.sha256) + "</code></td><td>" +
           (f.refused.empty()
                ? EscapeMarkup(f.run_id)
                : "<span class=\"missing\">not used: " + EscapeMarkup(f.refused) + "</span>") +
           "</td><td><code>" + EscapeMarkup(f.command) + "</code></td></tr>\n";
  }
  out += "</table>\n</body></html>\n";
  return out;
}

}  // namespace av
