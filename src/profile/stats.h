// Statistics for the time gate: per-side median, min and spread, and a 95% interval for
// the ratio of the head's median to the base's. With launches on both sides the interval
// is a percentile bootstrap (2000 resamples of each side, a fixed seed, so a report is
// reproducible); when a side has only the tool's summary (nsys), a normal approximation on
// the log ratio with the median's standard error 1.2533*sd/sqrt(n). doc/profile.md says
// why. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <vector>

namespace av::profile {

struct SideStats {
  int64_t n = 0;
  double median = 0, min = 0, max = 0;
  double spread = 0;  // (max - min) / median; for a summary: stddev / median
  double stddev = 0;
  std::vector<double> samples;  // empty for a summary-only side
};

SideStats StatsOfSamples(std::vector<double> samples);
SideStats StatsOfSummary(int64_t n, double median, double min, double max, double stddev);

struct RatioInterval {
  double ratio = 0;       // head median / base median
  double lo = 0, hi = 0;  // 95% interval
  bool bootstrap = false;
};

RatioInterval MedianRatioInterval(const SideStats& base, const SideStats& head);

double Median(std::vector<double> v);

}  // namespace av::profile
