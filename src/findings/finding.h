// Findings: what a reviewer (the built-in rules, the agent reviewer) or the agent config
// audit raises. A finding is a question with a place (file and new-side line), the
// checklist item it feeds and the attnverify command whose evidence answers it; it is never
// a verdict. The types (Finding, ReviewedDiff, ReviewReport) are the review.json schema's,
// defined once in schema/review_json.h with the one JSON shape of a finding
// (FindingToJson); everything that raises or shows findings includes this header, and the
// writers (findings/finding_writers.h) only format them. Plain data.
#pragma once

#include "schema/review_json.h"
