// The softmax of one query row over its visible keys, in float64, shared by every
// attention oracle: lse = m + log(sum exp(s - m)) with m the row maximum, and weights
// p = exp(s - lse). Also the one place that turns a natural-log LSE into the reported form
// (log2, empty-row sign). Pure functions, callable from any thread.
#pragma once

#include <span>
#include <vector>

#include "reference/attention.h"

namespace av {

struct RowSoftmax {
  double lse = 0;         // natural log; -inf when there are no scores
  std::vector<double> p;  // one weight per score, summing to 1
};

RowSoftmax SoftmaxOfRow(std::span<const double> scores);

// o *= 1 / (1 + exp(sink - lse)) (FlashMLA's attention sink); a row with lse = -inf is
// left alone (it is already 0).
void ApplySink(double sink, double lse, std::span<double> o);

// The LSE as reported: natural log or log2, and -inf or +inf for rows with no key.
double ReportedLse(double lse, bool log2, EmptyLse empty);

}  // namespace av
