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

}  // namespace av
