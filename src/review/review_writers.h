// Writers for a ReviewReport: evidence/review.json (schema/review_json.h's ReviewToJson,
// attnverify.review/2, doc/formats/review-json.md) and reports/review_01.md (a list a
// kernel engineer reads). Writers format; they compute nothing. Pure functions.
#pragma once

#include <string>

#include "review/finding.h"
#include "schema/review_json.h"

namespace av {

std::string ReviewToMarkdown(const ReviewReport& report);

// The pieces the reviewer's writers are made of, for other reports of findings (the agent
// config audit): the count, the table and one section per finding as review_01.md writes
// them; the findings as SARIF 2.1.0 results. One finding as review.json writes it is
// schema/review_json.h's FindingToJson.
std::string FindingsToMarkdown(const std::vector<Finding>& findings);
nlohmann::json FindingsToSarif(const std::vector<Finding>& findings,
                               const std::string& tool_version);

}  // namespace av
