#include "findings/finding_writers.h"

#include <map>
#include <nlohmann/json.hpp>

namespace av {

namespace {

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

}  // namespace

std::string MarkdownInline(const std::string& s) {
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

std::string FindingsDetail(const std::vector<Finding>& findings) {
  std::string md;
  if (findings.empty()) return md;
  md += "\n| id | severity | item | rule | where |\n|---|---|---|---|---|\n";
  for (const Finding& f : findings) {
    md += "| " + f.id + " | " + SeverityName(f.severity) + " | " +
          std::to_string(f.checklist_item) + " | `" + f.rule + "` | `" + MarkdownInline(f.file) +
          ":" + std::to_string(f.line) + "` |\n";
  }
  for (const Finding& f : findings) {
    md += "\n## " + f.id + " " + f.title + " — `" + MarkdownInline(f.file) + ":" +
          std::to_string(f.line);
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
    // No command, no line (an empty `Verify:` reads as a command that is empty); the
    // message says why there is none when a reviewer removed one.
    if (f.has_verify()) md += "Verify: `" + MarkdownInline(f.VerifyLine()) + "`\n";
  }
  return md;
}

nlohmann::json SarifRule(const std::string& id, const std::string& title, int checklist_item) {
  return {{"id", id},
          {"shortDescription", {{"text", title.empty() ? id : title}}},
          {"properties", {{"checklist_item", checklist_item}}}};
}

nlohmann::json FindingToSarifResult(const Finding& f, size_t rule_index) {
  using nlohmann::json;
  std::string text = (f.title.empty() ? "" : f.title + ": ") + f.message;
  if (f.has_verify()) text += " Verify: " + f.VerifyLine();
  json result = {{"ruleId", f.rule},
                 {"ruleIndex", rule_index},
                 {"level", SeverityName(f.severity)},
                 {"message", {{"text", text.empty() ? f.rule : text}}},
                 {"properties",
                  {{"finding_id", f.id},
                   {"checklist_item", f.checklist_item},
                   {"component", f.component},
                   {"verify", f.VerifyLine()}}}};
  if (!f.file.empty()) {
    json physical = {{"artifactLocation", {{"uri", f.file}}}};
    if (f.line > 0) {
      physical["region"] = {{"startLine", f.line},
                            {"endLine", f.end_line >= f.line ? f.end_line : f.line}};
    }
    result["locations"] = json::array({{{"physicalLocation", physical}}});
  }
  return result;
}

nlohmann::json SarifLog(const std::string& tool_version, nlohmann::json rules,
                        nlohmann::json results, nlohmann::json run_properties) {
  using nlohmann::json;
  json run = {
      {"tool",
       {{"driver",
         {{"name", "attnverify"}, {"version", tool_version}, {"rules", std::move(rules)}}}}},
      {"results", std::move(results)}};
  if (!run_properties.is_null()) run["properties"] = std::move(run_properties);
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

nlohmann::json FindingsToSarif(const std::vector<Finding>& findings,
                               const std::string& tool_version) {
  using nlohmann::json;
  json rules = json::array();
  std::map<std::string, size_t> index;
  json results = json::array();
  for (const Finding& f : findings) {
    auto [it, fresh] = index.emplace(f.rule, rules.size());
    if (fresh) rules.push_back(SarifRule(f.rule, f.title, f.checklist_item));
    results.push_back(FindingToSarifResult(f, it->second));
  }
  return SarifLog(tool_version, std::move(rules), std::move(results), nullptr);
}

std::string FindingsToMarkdown(const std::vector<Finding>& findings) {
  return FindingsCount(findings) + FindingsDetail(findings);
}

}  // namespace av
