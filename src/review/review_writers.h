// Writers for a ReviewReport: evidence/review.json (schema/review_json.h's ReviewToJson,
// attnverify.review/2, doc/formats/review-json.md) and reports/review_01.md (a list a
// kernel engineer reads, its findings in findings/finding_writers.h's Markdown). Writers
// format; they compute nothing. Pure functions.
#pragma once

#include <string>

#include "findings/finding.h"

namespace av {

std::string ReviewToMarkdown(const ReviewReport& report);

}  // namespace av
