#include "numerics/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "numerics/element_stream.h"

namespace av {
namespace {

constexpr int64_t kChunk = 4096;
// FlashMLA's relative error denominator: |ref| + 1e-6.
constexpr double kRelEps = 1e-6;
// FlashMLA returns cos_diff = 0 when sum(ref^2) < 1e-12.
constexpr double kFlashMlaTinyRef = 1e-12;

enum class ValueClass { kFinite, kNan, kPosInf, kNegInf };

ValueClass Classify(double v) {
  if (std::isnan(v)) return ValueClass::kNan;
  if (std::isinf(v)) return v > 0 ? ValueClass::kPosInf : ValueClass::kNegInf;
  return ValueClass::kFinite;
}

void Count(ValueClass c, NonFiniteCounts* counts) {
  if (c == ValueClass::kNan) ++counts->nan;
  if (c == ValueClass::kPosInf) ++counts->pos_inf;
  if (c == ValueClass::kNegInf) ++counts->neg_inf;
}

// Compensated (Neumaier) accumulation of per-chunk partial sums: the result does not
// drift with tensor size, so metrics agree with numpy's pairwise sums to ~1e-15.
class Accumulator {
 public:
  void Add(double x) {
    double t = sum_ + x;
    if (std::fabs(sum_) >= std::fabs(x)) {
      carry_ += (sum_ - t) + x;
    } else {
      carry_ += (x - t) + sum_;
    }
    sum_ = t;
  }
  double value() const { return sum_ + carry_; }

 private:
  double sum_ = 0;
  double carry_ = 0;
};

// Keeps the kWorstElements largest keys; ties keep the earlier (lower) index because
// elements arrive in index order and only a strictly larger key displaces one.
class TopK {
 public:
  bool Wants(double key) const {
    return static_cast<int>(items_.size()) < kWorstElements || key > items_.back().first;
  }
  void Offer(double key, const ElementDiff& diff) {
    if (!Wants(key)) return;
    auto pos = std::upper_bound(items_.begin(), items_.end(), key,
                                [](double k, const auto& item) { return k > item.first; });
    items_.insert(pos, {key, diff});
    if (static_cast<int>(items_.size()) > kWorstElements) items_.pop_back();
  }
  std::vector<ElementDiff> Take() {
    std::vector<ElementDiff> out;
    for (auto& item : items_) out.push_back(std::move(item.second));
    return out;
  }

 private:
  std::vector<std::pair<double, ElementDiff>> items_;  // sorted by key, descending
};

// Per-axis amounts, bucketed so that memory stays O(sum of dims) even for long axes.
class AxisTally {
 public:
  explicit AxisTally(const Shape& shape) : shape_(shape) {
    for (int64_t size : shape) {
      int64_t bucket = std::max<int64_t>(1, (size + kMaxAxisBuckets - 1) / kMaxAxisBuckets);
      buckets_.push_back(bucket);
      amounts_.emplace_back(static_cast<size_t>((size + bucket - 1) / bucket), 0.0);
    }
  }
  void Add(const std::vector<int64_t>& index, double amount) {
    for (size_t d = 0; d < index.size(); ++d) {
      amounts_[d][static_cast<size_t>(index[d] / buckets_[d])] += amount;
    }
    total_ += amount;
  }
  std::vector<AxisBreakdown> Summarize() const {
    std::vector<AxisBreakdown> out;
    if (total_ <= 0) return out;
    for (size_t d = 0; d < amounts_.size(); ++d) {
      AxisBreakdown axis;
      axis.axis = static_cast<int>(d);
      axis.size = shape_[d];
      axis.bucket = buckets_[d];
      std::vector<size_t> order;
      for (size_t b = 0; b < amounts_[d].size(); ++b) {
        if (amounts_[d][b] > 0) order.push_back(b);
      }
      axis.indices_touched = static_cast<int64_t>(order.size());
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t x, size_t y) { return amounts_[d][x] > amounts_[d][y]; });
      for (size_t i = 0; i < order.size() && i < 3; ++i) {
        AxisShare share;
        share.begin = static_cast<int64_t>(order[i]) * buckets_[d];
        share.end = std::min(share.begin + buckets_[d], shape_[d]);
        share.amount = amounts_[d][order[i]];
        share.fraction = share.amount / total_;
        axis.top.push_back(share);
      }
      out.push_back(std::move(axis));
    }
    return out;
  }

 private:
  Shape shape_;
  std::vector<int64_t> buckets_;
  std::vector<std::vector<double>> amounts_;
  double total_ = 0;
};

void Increment(const Shape& shape, std::vector<int64_t>* index) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++(*index)[d] < shape[d]) return;
    (*index)[d] = 0;
  }
}

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string IndexString(const std::vector<int64_t>& index) { return ShapeToString(index); }

// max |lowprec - ref| over positions where both are finite; counts disagreements in
// non-finite positions (a broken low-precision reference must not pass silently).
struct LowprecScan {
  double max_abs = 0;
  int64_t nonfinite_mismatches = 0;
};

LowprecScan ScanLowprec(const Tensor& lowprec, const Tensor& reference) {
  LowprecScan scan;
  ElementStream ls(lowprec), rs(reference);
  std::vector<double> l(kChunk), r(kChunk);
  for (;;) {
    int64_t n = ls.Fill(l.data(), kChunk);
    if (n == 0) break;
    rs.Fill(r.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      ValueClass lc = Classify(l[i]), rc = Classify(r[i]);
      if (lc != ValueClass::kFinite || rc != ValueClass::kFinite) {
        if (lc != rc) ++scan.nonfinite_mismatches;
        continue;
      }
      scan.max_abs = std::max(scan.max_abs, std::fabs(l[i] - r[i]));
    }
  }
  return scan;
}

}  // namespace

Result<CompareReport> CompareTensors(const Tensor& candidate, const Tensor& reference,
                                     const Tensor* lowprec, const RuleRequest& request) {
  if (candidate.shape() != reference.shape()) {
    return InvalidInput("shape mismatch: candidate " + ShapeToString(candidate.shape()) +
                        " vs reference " + ShapeToString(reference.shape()));
  }
  if (lowprec != nullptr && lowprec->shape() != reference.shape()) {
    return InvalidInput("shape mismatch: low-precision reference " +
                        ShapeToString(lowprec->shape()) + " vs reference " +
                        ShapeToString(reference.shape()));
  }
  if (lowprec != nullptr && request.kind != RuleKind::kLowprecMultiple) {
    return InvalidInput("a low-precision reference is only used by rule lowprec_multiple");
  }
  AV_ASSIGN_OR_RETURN(Rule rule, ResolveRule(request, candidate.dtype(), reference.dtype(),
                                              lowprec != nullptr));
  CompareReport report;
  report.rule = rule;
  report.shape = reference.shape();
  report.candidate_dtype = candidate.dtype();
  report.reference_dtype = reference.dtype();
  report.numel = reference.numel();
  report.mismatch_defined = rule.kind != RuleKind::kCosDiff;
  report.breakdown_of = report.mismatch_defined ? "mismatches" : "squared error";

  if (rule.kind == RuleKind::kLowprecMultiple) {
    LowprecScan scan = ScanLowprec(*lowprec, reference);
    report.lowprec_max_abs = scan.max_abs;
    report.threshold = rule.k * scan.max_abs + rule.atol;
    if (scan.nonfinite_mismatches > 0 && !rule.allow_nan) {
      report.failures.push_back("the low-precision reference disagrees with the reference on " +
                                std::to_string(scan.nonfinite_mismatches) +
                                " non-finite positions");
    }
  }

  // Exact compares element bytes; a contiguous copy keeps that loop simple.
  Tensor cand_bytes, ref_bytes;
  if (rule.kind == RuleKind::kExact) {
    cand_bytes = candidate.is_contiguous() ? candidate : candidate.Contiguous();
    ref_bytes = reference.is_contiguous() ? reference : reference.Contiguous();
  }
  const size_t elem_size = candidate.element_size();

  const float f_atol = static_cast<float>(rule.atol);
  const float f_rtol = static_cast<float>(rule.rtol);
  Accumulator sum_abs, sum_sq, sum_aa, sum_rr, f_sum_sq, f_sum_aa, f_sum_rr;
  TopK top_abs, top_rel;
  AxisTally tally(report.shape);
  std::vector<int64_t> index(report.shape.size(), 0);
  NonFiniteReport& nf = report.nonfinite;
  Metrics& m = report.metrics;

  ElementStream cs(candidate), rs(reference);
  std::vector<double> a(kChunk), r(kChunk);
  int64_t linear = 0;
  for (;;) {
    const int64_t n = cs.Fill(a.data(), kChunk);
    if (n == 0) break;
    rs.Fill(r.data(), n);
    double c_abs = 0, c_sq = 0, c_aa = 0, c_rr = 0, cf_sq = 0, cf_aa = 0, cf_rr = 0;
    for (int64_t i = 0; i < n; ++i, ++linear, Increment(report.shape, &index)) {
      const double av = a[i], rv = r[i];
      const ValueClass ac = Classify(av), rc = Classify(rv);
      bool mismatch = false;
      if (ac != ValueClass::kFinite || rc != ValueClass::kFinite) {
        Count(ac, &nf.candidate);
        Count(rc, &nf.reference);
        if (rule.allow_nan) {
          ++nf.excluded;
          continue;
        }
        if (ac != rc) {
          ++nf.position_mismatches;
          if (nf.first_mismatches.size() < kWorstElements) {
            nf.first_mismatches.push_back({linear, index, av, rv, std::fabs(av - rv), 0});
          }
          mismatch = true;
        } else if (rule.kind == RuleKind::kAllclose) {
          // torch.isclose: equal infinities are close; NaN only with equal_nan.
          mismatch = ac == ValueClass::kNan && !rule.equal_nan;
        } else if (rule.kind == RuleKind::kExact) {
          mismatch = std::memcmp(cand_bytes.data() + linear * elem_size,
                                 ref_bytes.data() + linear * elem_size, elem_size) != 0;
        }
        if (mismatch && report.mismatch_defined) {
          ++report.mismatches;
          ++report.nonfinite_mismatches;
          tally.Add(index, 1.0);
        }
        continue;
      }

      const double d = av - rv;
      const double abs_err = std::fabs(d);
      const double rel_err = abs_err / (std::fabs(rv) + kRelEps);
      ++m.compared;
      c_abs += abs_err;
      c_sq += d * d;
      c_aa += av * av;
      c_rr += rv * rv;
      m.max_abs = std::max(m.max_abs, abs_err);
      m.max_rel = std::max(m.max_rel, rel_err);
      if (top_abs.Wants(abs_err) || top_rel.Wants(rel_err)) {
        ElementDiff diff{linear, index, av, rv, abs_err, rel_err};
        top_abs.Offer(abs_err, diff);
        top_rel.Offer(rel_err, diff);
      }

      switch (rule.kind) {
        case RuleKind::kAllclose:
          // torch.isclose in float64: equal, or |a-e| <= atol + |rtol*e|.
          mismatch = !(av == rv || abs_err <= rule.atol + std::fabs(rule.rtol * rv));
          break;
        case RuleKind::kFlashMla: {
          // FlashMLA casts both tensors to float32 and compares in float32; its cos_diff
          // is taken in float64 over those float32 values.
          const float fa = static_cast<float>(av), fr = static_cast<float>(rv);
          const float f_abs = std::fabs(fa - fr);
          const float f_rel = f_abs / (std::fabs(fr) + static_cast<float>(kRelEps));
          mismatch = !(f_abs < f_atol || f_rel < f_rtol);
          const double fd = double{fa} - double{fr};
          cf_sq += fd * fd;
          cf_aa += double{fa} * double{fa};
          cf_rr += double{fr} * double{fr};
          break;
        }
        case RuleKind::kLowprecMultiple:
          mismatch = abs_err > report.threshold;
          break;
        case RuleKind::kExact:
          mismatch = std::memcmp(cand_bytes.data() + linear * elem_size,
                                 ref_bytes.data() + linear * elem_size, elem_size) != 0;
          break;
        case RuleKind::kCosDiff:
          if (d != 0) tally.Add(index, d * d);
          break;
      }
      if (mismatch) {
        ++report.mismatches;
        tally.Add(index, 1.0);
      }
    }
    sum_abs.Add(c_abs);
    sum_sq.Add(c_sq);
    sum_aa.Add(c_aa);
    sum_rr.Add(c_rr);
    f_sum_sq.Add(cf_sq);
    f_sum_aa.Add(cf_aa);
    f_sum_rr.Add(cf_rr);
  }

  // Metrics.
  if (m.compared > 0) {
    m.mean_abs = sum_abs.value() / static_cast<double>(m.compared);
    m.rmse = std::sqrt(sum_sq.value() / static_cast<double>(m.compared));
  }
  const double denom = sum_aa.value() + sum_rr.value();
  m.cos_diff = denom > 0 ? sum_sq.value() / denom : 0.0;
  m.nmse = sum_rr.value() > 0 ? sum_sq.value() / sum_rr.value()
           : sum_sq.value() > 0 ? std::numeric_limits<double>::infinity()
                                : 0.0;
  report.worst_abs = top_abs.Take();
  report.worst_rel = top_rel.Take();
  report.breakdown = tally.Summarize();
  if (report.numel > 0) {
    report.mismatch_fraction =
        static_cast<double>(report.mismatches) / static_cast<double>(report.numel);
  }

  // Verdict: every failed condition gets its own line.
  std::vector<std::string>& fail = report.failures;
  if (nf.position_mismatches > 0) {
    const ElementDiff& e = nf.first_mismatches.front();
    fail.push_back("NaN/inf positions differ at " + std::to_string(nf.position_mismatches) +
                   " elements (first at " + IndexString(e.index) + ": candidate " +
                   Fmt(e.candidate) + ", reference " + Fmt(e.reference) +
                   "); --allow-nan leaves such positions out");
  }
  const std::string over = std::to_string(report.mismatches) + " of " +
                           std::to_string(report.numel) + " elements (" +
                           Fmt(100.0 * report.mismatch_fraction) + "%)";
  switch (rule.kind) {
    case RuleKind::kAllclose:
      if (report.mismatches > 0) {
        fail.push_back(over + " exceed atol + rtol*|ref| (atol " + Fmt(rule.atol) + ", rtol " +
                       Fmt(rule.rtol) + ")");
      }
      break;
    case RuleKind::kFlashMla: {
      const double f_denom = f_sum_aa.value() + f_sum_rr.value();
      report.rule_cos_diff = (f_sum_rr.value() < kFlashMlaTinyRef || f_denom == 0)
                                 ? 0.0
                                 : f_sum_sq.value() / f_denom;
      if (report.mismatches - report.nonfinite_mismatches > 0) {
        fail.push_back(std::to_string(report.mismatches - report.nonfinite_mismatches) + " of " +
                       std::to_string(report.numel) +
                       " elements fail abs < atol or rel < rtol (atol " + Fmt(rule.atol) +
                       ", rtol " + Fmt(rule.rtol) + ")");
      }
      if (std::fabs(report.rule_cos_diff) > rule.cos_tol) {
        fail.push_back("cos_diff " + Fmt(report.rule_cos_diff) + " > " + Fmt(rule.cos_tol));
      }
      break;
    }
    case RuleKind::kCosDiff:
      report.rule_cos_diff = m.cos_diff;
      if (denom == 0) {
        fail.push_back(
            "both tensors are all zero: cos_diff is 0/0 (DeepGEMM's calc_diff returns NaN and "
            "its assertion fails); such a reference checks nothing");
      } else if (!(m.cos_diff < rule.cos_tol)) {
        fail.push_back("cos_diff " + Fmt(m.cos_diff) + " >= " + Fmt(rule.cos_tol));
      }
      break;
    case RuleKind::kLowprecMultiple:
      if (m.max_abs > report.threshold) {
        fail.push_back("max |cand - ref| " + Fmt(m.max_abs) + " > k * max |lowprec - ref| + atol = " +
                       Fmt(rule.k) + " * " + Fmt(report.lowprec_max_abs) + " + " +
                       Fmt(rule.atol) + " = " + Fmt(report.threshold) + "; " + over +
                       " are over that bound");
      }
      break;
    case RuleKind::kExact:
      if (report.mismatches > 0) fail.push_back(over + " differ bitwise");
      break;
  }
  report.passed = fail.empty();
  return report;
}

}  // namespace av
