#include "profile/stats.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace av::profile {
namespace {

constexpr int kResamples = 2000;
constexpr double kZ95 = 1.959964;

double StdDev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double MedianInPlace(std::vector<double>& v) {
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

// The median's standard error, relative to the median (for the log-ratio approximation).
double RelativeSe(const SideStats& s) {
  if (s.median <= 0 || s.n < 1) return 0;
  return 1.2533 * s.stddev / std::sqrt(static_cast<double>(s.n)) / s.median;
}

}  // namespace

double Median(std::vector<double> v) { return v.empty() ? 0 : MedianInPlace(v); }

SideStats StatsOfSamples(std::vector<double> samples) {
  SideStats s;
  s.n = static_cast<int64_t>(samples.size());
  if (samples.empty()) return s;
  s.median = Median(samples);
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  s.stddev = StdDev(samples);
  s.samples = std::move(samples);
  return s;
}

SideStats StatsOfSummary(int64_t n, double median, double min, double max, double stddev) {
  SideStats s;
  s.n = n;
  s.median = median;
  s.min = min;
  s.max = max;
  s.stddev = stddev;
  s.spread = median > 0 ? stddev / median : 0;
  return s;
}

RatioInterval MedianRatioInterval(const SideStats& base, const SideStats& head) {
  RatioInterval r;
  if (base.median <= 0) return r;
  r.ratio = head.median / base.median;
  if (base.samples.empty() || head.samples.empty()) {
    double se =
        std::sqrt(RelativeSe(base) * RelativeSe(base) + RelativeSe(head) * RelativeSe(head));
    r.lo = r.ratio * std::exp(-kZ95 * se);
    r.hi = r.ratio * std::exp(kZ95 * se);
    return r;
  }
  r.bootstrap = true;
  std::mt19937_64 rng(0x5eed'a77e'0f16ULL);  // fixed: the same files give the same report
  std::vector<double> ratios(kResamples), bs(base.samples.size()), hs(head.samples.size());
  for (int i = 0; i < kResamples; ++i) {
    for (double& x : bs) x = base.samples[rng() % base.samples.size()];
    for (double& x : hs) x = head.samples[rng() % head.samples.size()];
    double bm = MedianInPlace(bs);
    ratios[i] = bm > 0 ? MedianInPlace(hs) / bm : r.ratio;
  }
  std::sort(ratios.begin(), ratios.end());
  r.lo = ratios[static_cast<size_t>(0.025 * kResamples)];
  r.hi = ratios[static_cast<size_t>(0.975 * kResamples) - 1];
  return r;
}

}  // namespace av::profile
