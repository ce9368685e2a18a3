#include "numerics/localise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "numerics/compare.h"
#include "numerics/localise_hints.h"
#include "numerics/localise_patterns.h"
#include "numerics/value_signature.h"

namespace av {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The per-element verdict and error / tolerance: the comparer's rule, or for cos_diff the
// element's own share of the budget (localise.h).
class Verdicts {
 public:
  Verdicts(const ElementTolerance& t, const Tensor& a, const Tensor& r)
      : rule_(t), a_(a), r_(r), exact_(t.kind == RuleKind::kExact) {
    if (t.kind != RuleKind::kCosDiff) return;
    double s = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < a.numel(); ++i) {
      const double x = A(i), y = R(i);
      if (std::isfinite(x) && std::isfinite(y)) s += x * x + y * y, ++m;
    }
    mean_sq_ = m ? s / static_cast<double>(m) : 0;
  }

  double A(int64_t i) const { return Load(a_, i); }
  double R(int64_t i) const { return Load(r_, i); }

  // Whether element i is out of tolerance, and its error / tolerance.
  bool Judge(int64_t i, double x, double y, double* ratio) const {
    if (rule_.per_element()) {
      const bool bad = rule_.Mismatch(x, y, exact_ && BytesDiffer(i));
      *ratio = rule_.Ratio(x, y, bad);
      return bad;
    }
    if (!std::isfinite(x) || !std::isfinite(y)) {
      const bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      const bool bad = !same && !rule_.tolerance().allow_nan;
      *ratio = bad ? kInf : 0;
      return bad;
    }
    const double e = std::fabs(x - y);
    const double budget = std::sqrt(rule_.tolerance().cos_tol * (x * x + y * y + mean_sq_));
    *ratio = e == 0 ? 0 : budget > 0 ? e / budget : kInf;
    return e > budget;
  }

 private:
  static double Load(const Tensor& t, int64_t i) {
    return LoadOneAsDouble(t.dtype(), t.data() + static_cast<size_t>(i) * t.element_size());
  }
  bool BytesDiffer(int64_t i) const {
    const size_t size = a_.element_size();
    return std::memcmp(a_.data() + static_cast<size_t>(i) * size,
                       r_.data() + static_cast<size_t>(i) * size, size) != 0;
  }

  ElementRule rule_;
  const Tensor& a_;
  const Tensor& r_;
  bool exact_;
  double mean_sq_ = 0;  // cos_diff: mean(a^2 + r^2) over the finite pairs
};

// The largest ratios seen, first come first kept among equals.
class WorstElements {
 public:
  void Offer(double ratio, int64_t linear) {
    if (static_cast<int>(top_.size()) == kWorstElements && !(ratio > top_.back().first)) return;
    auto at = std::upper_bound(top_.begin(), top_.end(), ratio,
                               [](double q, const auto& e) { return q > e.first; });
    top_.insert(at, {ratio, linear});
    if (static_cast<int>(top_.size()) > kWorstElements) top_.pop_back();
  }
  const std::vector<std::pair<double, int64_t>>& top() const { return top_; }

 private:
  std::vector<std::pair<double, int64_t>> top_;
};

Status CheckInputs(const std::string& output, const Tensor& candidate, const Tensor& reference,
                   const LocaliseLayout& layout) {
  if (candidate.shape() != reference.shape()) {
    return InvalidInput(output + ": candidate " + ShapeToString(candidate.shape()) +
                        " and reference " + ShapeToString(reference.shape()) + " differ in shape");
  }
  if (static_cast<int>(layout.axes.size()) != candidate.ndim()) {
    return InvalidInput(output + ": the layout names " + std::to_string(layout.axes.size()) +
                        " axes, the tensor has " + std::to_string(candidate.ndim()));
  }
  return Status::Ok();
}

}  // namespace

Result<Localisation> LocaliseErrors(const std::string& output, const Tensor& candidate,
                                    const Tensor& reference, const ElementTolerance& tolerance,
                                    const LocaliseLayout& layout) {
  AV_RETURN_IF_ERROR(CheckInputs(output, candidate, reference, layout));
  const Tensor a = candidate.Contiguous(), r = reference.Contiguous();
  const int64_t n = a.numel();
  const Shape& shape = a.shape();
  const CoordMap map(layout, shape);
  const Verdicts verdicts(tolerance, a, r);

  Localisation out;
  out.output = output;
  out.elements = n;
  out.heat = MakeHeatGrid(map);
  ErrorMap errors;
  errors.map = &map;
  errors.unit_errors.assign(static_cast<size_t>(map.units()), 0);
  errors.channel_errors.assign(static_cast<size_t>(map.channels()), 0);
  std::vector<AxisSpan> spans = NamedAxes(map);
  ValueSignature values;
  WorstElements worst;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const double x = verdicts.A(i), y = verdicts.R(i);
    double ratio = 0;
    const bool bad = verdicts.Judge(i, x, y, &ratio);
    const Coord c = map.At(idx);
    AddHeat(c, ratio, map, &out.heat);
    if (bad) {
      ++errors.errors;
      ++errors.unit_errors[static_cast<size_t>(map.UnitOf(i))];
      if (map.channels() > 0) ++errors.channel_errors[static_cast<size_t>(map.ChannelOf(i))];
      for (AxisSpan& s : spans) s.Add(AxisValue(s.axis, c, layout));
      values.Add(x, y);
      worst.Offer(ratio, i);
    }
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  out.errors = errors.errors;
  for (const auto& [q, i] : worst.top()) {
    LocatedElement e;
    e.output = output;
    e.coords = map.Named(a.Unravel(i));
    e.candidate = verdicts.A(i);
    e.reference = verdicts.R(i);
    e.abs_err = std::fabs(e.candidate - e.reference);
    e.ratio = q;
    out.worst.push_back(std::move(e));
  }
  if (out.errors < kMinHintErrors) return out;
  if (std::string v = values.Hint(out.errors, kMinHintErrors); !v.empty())
    out.hints.push_back(output + ": " + v);
  std::vector<Pattern> patterns = CataloguePatterns(map);
  for (Pattern& p : RangePatterns(spans, map)) patterns.push_back(std::move(p));
  for (std::string& h : SelectHints(output, errors, patterns, kMaxHints - out.hints.size()))
    out.hints.push_back(std::move(h));
  return out;
}

}  // namespace av
