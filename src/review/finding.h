// Findings: what a reviewer (the built-in rules now, an LLM later) raises about a diff.
// A finding is a question with a place (file and new-side line), the checklist item it
// feeds and the attnverify command whose evidence answers it; it is never a verdict. The
// review report groups them with the diffs they came from. The types (Finding,
// ReviewedDiff, ReviewReport) are the review.json schema's, defined once in
// schema/review_json.h; the rules include this header. Writers (review_writers.h) only
// format them. Plain data.
#pragma once

#include "schema/review_json.h"
