#include "review/review_writers.h"

#include <map>
#include <nlohmann/json.hpp>

#include "core/shell_quote.h"

namespace av {

namespace {

// Code in a Markdown table cell or inline span: no pipes or backticks breaking it.
std::string Inline(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += " / ";
    } else if (c == '|') {
      out += "\\|";
    } else if (c == '`') {
      out += '\'';
    } else {
      out += c;
    }
  }
  return out;
}

void Fence(std::string* md, const std::string& text, char sign) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    *md += sign;
    *md += ' ';
    *md += text.substr(pos, nl - pos);
    *md += '\n';
    pos = nl + 1;
  }
}

// "N findings (a error, b warning)." after a blank line.
std::string FindingsCount(const std::vector<Finding>& findings) {
  std::string md;
  std::map<std::string, int> by_severity;
  for (const Finding& f : findings) ++by_severity[SeverityName(f.severity)];
  md += '\n';
  md += std::to_string(findings.size());
  md += " findings";
  if (!findings.empty()) {
    md += " (";
    bool first = true;
    for (const char* s : {"error", "warning", "note"}) {
      if (!by_severity.count(s)) continue;
      md += (first ? "" : ", ") + std::to_string(by_severity[s]) + " " + s;
      first = false;
    }
    md += ")";
  }
  md += ".\n";
  return md;
}

// The table of findings, then one section per finding ("" when there are none).
std::string FindingsDetail(const std::vector<Finding>& findings) {
  std::string md;
  if (findings.empty()) return md;
  md += "\n| id | severity | item | rule | where |\n|---|---|---|---|---|\n";
  for (const Finding& f : findings) {
    md += "| " + f.id + " | " + SeverityName(f.severity) + " | " +
          std::to_string(f.checklist_item) + " | `" + f.rule + "` | `" + Inline(f.file) + ":" +
          std::to_string(f.line) + "` |\n";
  }
  for (const Finding& f : findings) {
    md += "\n## " + f.id + " " + f.title + " — `" + Inline(f.file) + ":" + std::to_string(f.line);
    if (f.end_line > f.line) {
      md += '-';
      md += std::to_string(f.end_line);
    }
    md += "`";
    if (f.side == "base") md += " (base revision: the file is deleted)";
    md += "\n\n";
    md += "Rule `" + f.rule + "` (" + SeverityName(f.severity) + "), checklist item " +
          std::to_string(f.checklist_item);
    if (!f.related_items.empty()) {
      md += " (also";
      for (int i : f.related_items) {
        md += ' ';
        md += std::to_string(i);
      }
      md += ")";
    }
    md += ", component `" + f.component + "`.\n\n" + f.message + "\n\n";
    if (!f.old_text.empty() || !f.new_text.empty()) {
      md += "```diff\n";
      if (!f.old_text.empty()) Fence(&md, f.old_text, '-');
      if (!f.new_text.empty()) Fence(&md, f.new_text, '+');
      md += "```\n\n";
    }
    md += "Verify: `" + Inline(f.VerifyLine()) + "`\n";
  }
  return md;
}

}  // namespace

nlohmann::json FindingsToSarif(const std::vector<Finding>& findings,
                               const std::string& tool_version) {
  using nlohmann::json;
  json rules = json::array();
  std::map<std::string, size_t> index;
  for (const Finding& f : findings) {
    if (index.count(f.rule)) continue;
    index[f.rule] = rules.size();
    rules.push_back(
        {{"id", f.rule}, {"shortDescription", {{"text", f.title.empty() ? f.rule : f.title}}}});
  }
  json results = json::array();
  for (const Finding& f : findings) {
    std::string text = (f.title.empty() ? "" : f.title + ": ") + f.message;
    if (f.has_verify()) text += " Verify: " + f.VerifyLine();
    json result = {
        {"ruleId", f.rule},
        {"ruleIndex", index[f.rule]},
        {"level", SeverityName(f.severity)},
        {"message", {{"text", text.empty() ? f.rule : text}}},
        {"properties",
         {{"finding_id", f.id}, {"component", f.component}, {"verify", f.VerifyLine()}}}};
    if (!f.file.empty()) {
      json physical = {{"artifactLocation", {{"uri", f.file}}}};
      if (f.line > 0) {
        physical["region"] = {{"startLine", f.line},
                              {"endLine", f.end_line >= f.line ? f.end_line : f.line}};
      }
      result["locations"] = json::array({{{"physicalLocation", physical}}});
    }
    results.push_back(std::move(result));
  }
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       json::array(
           {{{"tool",
              {{"driver", {{"name", "attnverify"}, {"version", tool_version}, {"rules", rules}}}}},
             {"results", results}}})}};
}

std::string FindingsToMarkdown(const std::vector<Finding>& findings) {
  return FindingsCount(findings) + FindingsDetail(findings);
}

std::string ReviewToMarkdown(const ReviewReport& report) {
  std::string md = "# Review 01 (built-in rules)\n\n";
  md +=
      "Findings are questions for the author, each with the command whose evidence answers it; "
      "they are not verdicts.\n\n";
  if (!report.base.empty()) {
    md += "- base: `" + report.base + "` (" + report.base_commit + ")\n";
    md += "- head: " + report.head_commit + "\n";
  }
  md += "- command: `" +
        Inline(report.provenance.argv.empty() ? report.legacy_command
                                              : ShellJoin(report.provenance.argv)) +
        "`\n";
  md += "- diffs: ";
  for (size_t i = 0; i < report.diffs.size(); ++i) {
    const ReviewedDiff& d = report.diffs[i];
    md += (i ? ", " : "") + std::string("`") + d.path + "` (" + std::to_string(d.files) +
          (d.files == 1 ? " file)" : " files)");
  }
  if (report.diffs.empty()) md += "none";
  md += "\n- files reviewed: " + std::to_string(report.files_reviewed) +
        ", skipped (tests, docs, binaries, " +
        "other languages): " + std::to_string(report.files_skipped) + "\n";
  if (!report.disabled_rules.empty()) {
    md += "- disabled rules:";
    for (const std::string& r : report.disabled_rules) md += " `" + r + "`";
    md += "\n";
  }
  md += FindingsCount(report.findings);
  if (!report.config_changes.empty()) {
    md +=
        "\nThe package's own configuration changed since the base revision:\n\n"
        "| file | setting | base | head | effect |\n|---|---|---|---|---|\n";
    for (const ConfigChange& c : report.config_changes) {
      md += "| `" + Inline(c.file) + "` | `" + Inline(c.json_path) + "` | `" + Inline(c.old_json) +
            "` | `" + Inline(c.new_json) + "` | " + c.effect + " |\n";
    }
  } else if (!report.config_reviewed && !report.config_not_reviewed.empty()) {
    md +=
        "\nThe package's own configuration was not compared: " + report.config_not_reviewed + ".\n";
  }
  md += FindingsDetail(report.findings);
  return md;
}

}  // namespace av
