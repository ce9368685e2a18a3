// Writers for a ReviewReport: evidence/review.json (schema attnverify.review/1,
// doc/formats/review-json.md) and reports/review_01.md (a list a kernel engineer reads).
// Writers format; they compute nothing. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "review/finding.h"

namespace av {

nlohmann::json ReviewToJson(const ReviewReport& report);
std::string ReviewToMarkdown(const ReviewReport& report);

// The pieces the reviewer's writers are made of, for other reports of findings (the agent
// config audit): one finding as review.json writes it; the count, the table and one
// section per finding as review_01.md writes them; the findings as SARIF 2.1.0 results.
nlohmann::json FindingToJson(const Finding& f);
std::string FindingsToMarkdown(const std::vector<Finding>& findings);
nlohmann::json FindingsToSarif(const std::vector<Finding>& findings,
                               const std::string& tool_version);

}  // namespace av
