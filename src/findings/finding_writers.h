// Writers for findings, whoever raised them (the built-in rules, the agent reviewer, the
// agent config audit): the count, the table and one section per finding in Markdown, as
// reports/review_01.md shows them, and the findings as a SARIF 2.1.0 log. One finding as
// JSON is schema/review_json.h's FindingToJson (review.json's shape, used by every JSON
// writer). Writers format; they compute nothing. Pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "findings/finding.h"

namespace av {

// The count line and the findings' table and sections.
std::string FindingsToMarkdown(const std::vector<Finding>& findings);
// "N findings (a error, b warning)." after a blank line.
std::string FindingsCount(const std::vector<Finding>& findings);
// The table of findings, then one section per finding ("" when there are none).
std::string FindingsDetail(const std::vector<Finding>& findings);
// Text for a Markdown table cell or inline code span: newlines as " / ", pipes escaped,
// backticks as quotes.
std::string MarkdownInline(const std::string& s);

// The findings as a SARIF 2.1.0 log: one rule per rule id (in first-seen order), one
// result per finding.
nlohmann::json FindingsToSarif(const std::vector<Finding>& findings,
                               const std::string& tool_version);

// The pieces, for a SARIF log that holds more than findings (the acceptance report's
// checks): a rule (id, short description, its checklist item); one finding as a result
// pointing at rule `rule_index` (level from severity, file and line region when it has a
// place); the log around one attnverify run, with `run_properties` unless null.
nlohmann::json SarifRule(const std::string& id, const std::string& title, int checklist_item);
nlohmann::json FindingToSarifResult(const Finding& f, size_t rule_index);
nlohmann::json SarifLog(const std::string& tool_version, nlohmann::json rules,
                        nlohmann::json results, nlohmann::json run_properties);

}  // namespace av
