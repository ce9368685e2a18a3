#include "numerics/comparer.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "numerics/element_stream.h"

namespace av::internal {
namespace {

constexpr int64_t kChunk = 4096;

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

}  // namespace

LowprecScan ScanLowprec(const Tensor& lowprec, const Tensor& reference) {
  LowprecScan scan;
  ElementStream ls(lowprec), rs(reference);
  std::vector<double> l(kChunk), r(kChunk);
  for (;;) {
    const int64_t n = ls.Fill(l.data(), kChunk);
    if (n == 0) break;
    rs.Fill(r.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const ValueClass lc = Classify(l[i]), rc = Classify(r[i]);
      if (lc != ValueClass::kFinite || rc != ValueClass::kFinite) {
        if (lc != rc) ++scan.nonfinite_mismatches;
        continue;
      }
      scan.max_abs = std::max(scan.max_abs, std::fabs(l[i] - r[i]));
    }
  }
  return scan;
}

Comparer::Comparer(const Tensor& candidate, const Tensor& reference, CompareReport* report)
    : candidate_(candidate),
      reference_(reference),
      report_(report),
      rule_(report->rule),
      element_rule_(ElementToleranceFor(*report)),
      tally_(report->shape),
      row_(report->shape.empty() ? 0 : report->shape.size() - 1, 0),
      row_len_(report->shape.empty() ? 1 : report->shape.back()),
      flags_(kChunk) {
  report->row_errors.defined = rule_.row_rel_l2.has_value();
  if (rule_.kind == RuleKind::kExact) {
    // Exact compares element bytes; contiguous copies keep the addressing simple.
    cand_bytes_ = candidate.is_contiguous() ? candidate : candidate.Contiguous();
    ref_bytes_ = reference.is_contiguous() ? reference : reference.Contiguous();
  }
}

void Comparer::Run() {
  ElementStream cs(candidate_), rs(reference_);
  std::vector<double> a(kChunk), r(kChunk);
  int64_t column = 0;
  double row_amount = 0;
  for (;;) {
    const int64_t n = cs.Fill(a.data(), kChunk);
    if (n == 0) break;
    rs.Fill(r.data(), n);
    for (int64_t i = 0; i < n;) {
      const int64_t len = std::min(n - i, row_len_ - column);
      row_amount += Segment(a.data() + i, r.data() + i, len, column);
      linear_ += len;
      i += len;
      column += len;
      if (column == row_len_) {
        FinishRow();
        if (row_amount > 0) tally_.AddRow(row_, row_amount);
        row_amount = 0;
        column = 0;
        for (size_t d = row_.size(); d-- > 0;) {
          if (++row_[d] < report_->shape[d]) break;
          row_[d] = 0;
        }
      }
    }
  }
}

void Comparer::FinishRow() {
  if (!rule_.row_rel_l2) return;
  CompareReport::RowErrors& e = report_->row_errors;
  // Plain double sums: a row is at most kMaxDim long and the bound is a fraction of a
  // percent, far above their rounding.
  const double ratio = row_rr_ > 0   ? std::sqrt(row_sq_ / row_rr_)
                       : row_sq_ > 0 ? std::numeric_limits<double>::infinity()
                                     : 0.0;
  ++e.rows;
  if (ratio > *rule_.row_rel_l2) ++e.over;
  if (e.rows == 1 || ratio > e.worst) {
    e.worst = ratio;
    e.worst_row = row_;
  }
  row_sq_ = row_rr_ = 0;
}

void Comparer::Finish() {
  report_->worst_abs = top_abs_.Take();
  report_->worst_rel = top_rel_.Take();
  report_->breakdown = tally_.Summarize();
}

double Comparer::Segment(const double* a, const double* r, int64_t n, int64_t column) {
  // Branch-free pass: sums, maxima, finiteness, and the rule's per-element test.
  double s_abs = 0, s_sq = 0, s_aa = 0, s_rr = 0, mx_abs = 0, mx_rel = 0;
  bool finite = true;
  for (int64_t j = 0; j < n; ++j) {
    const double d = a[j] - r[j];
    const double ad = std::fabs(d);
    finite &= (std::fabs(a[j]) <= DBL_MAX) & (std::fabs(r[j]) <= DBL_MAX);
    s_abs += ad;
    s_sq += d * d;
    s_aa += a[j] * a[j];
    s_rr += r[j] * r[j];
    mx_abs = std::max(mx_abs, ad);
    mx_rel = std::max(mx_rel, ad / (std::fabs(r[j]) + kRelEps));
  }
  if (!finite) return SlowSegment(a, r, n, column);

  Metrics& m = report_->metrics;
  m.compared += n;
  row_sq_ += s_sq;
  row_rr_ += s_rr;
  sums_.abs.Add(s_abs);
  sums_.sq.Add(s_sq);
  sums_.aa.Add(s_aa);
  sums_.rr.Add(s_rr);
  m.max_abs = std::max(m.max_abs, mx_abs);
  m.max_rel = std::max(m.max_rel, mx_rel);

  int64_t mismatches = 0;
  unsigned char* flag = flags_.data();
  switch (rule_.kind) {
    case RuleKind::kAllclose:
      for (int64_t j = 0; j < n; ++j) {
        flag[j] = AllcloseMismatch(a[j], r[j], rule_.atol, rule_.rtol);
        mismatches += flag[j];
      }
      break;
    case RuleKind::kFlashMla: {
      // FlashMLA casts both tensors to float32 and tests in float32; its cos_diff is
      // taken in float64 over those float32 values.
      const float atol = static_cast<float>(rule_.atol), rtol = static_cast<float>(rule_.rtol);
      double f_sq = 0, f_aa = 0, f_rr = 0;
      for (int64_t j = 0; j < n; ++j) {
        const float fa = static_cast<float>(a[j]), fr = static_cast<float>(r[j]);
        flag[j] = FlashMlaMismatch(fa, fr, atol, rtol);
        mismatches += flag[j];
        const double fd = double{fa} - double{fr};
        f_sq += fd * fd;
        f_aa += double{fa} * double{fa};
        f_rr += double{fr} * double{fr};
      }
      sums_.f_sq.Add(f_sq);
      sums_.f_aa.Add(f_aa);
      sums_.f_rr.Add(f_rr);
      break;
    }
    case RuleKind::kLowprecMultiple:
      for (int64_t j = 0; j < n; ++j) {
        flag[j] = LowprecMismatch(a[j], r[j], report_->threshold);
        mismatches += flag[j];
      }
      break;
    case RuleKind::kExact: {
      // One memcmp clears the common case; only a differing segment is split up.
      const int64_t size = static_cast<int64_t>(cand_bytes_.element_size());
      if (std::memcmp(cand_bytes_.data() + linear_ * size, ref_bytes_.data() + linear_ * size,
                      static_cast<size_t>(n * size)) != 0) {
        for (int64_t j = 0; j < n; ++j) {
          flag[j] = BytesDiffer(linear_ + j);
          mismatches += flag[j];
        }
      }
      break;
    }
    case RuleKind::kCosDiff:
      break;
  }

  // Rare paths: top-k candidates and mismatches.
  const double abs_floor = top_abs_.floor(), rel_floor = top_rel_.floor();
  if (mx_abs > abs_floor || mx_rel > rel_floor) {
    for (int64_t j = 0; j < n; ++j) {
      const double ad = std::fabs(a[j] - r[j]);
      OfferTop(a[j], r[j], ad, ad / (std::fabs(r[j]) + kRelEps), linear_ + j);
    }
  }
  if (rule_.kind == RuleKind::kCosDiff) {
    // Whole-tensor rule: locate the squared error instead of mismatches.
    if (s_sq > 0) {
      for (int64_t j = 0; j < n; ++j) {
        const double d = a[j] - r[j];
        tally_.AddLast(column + j, d * d);
      }
    }
    return s_sq;
  }
  if (mismatches > 0) {
    for (int64_t j = 0; j < n; ++j) {
      if (flag[j]) RecordMismatch(column + j, false);
    }
  }
  return static_cast<double>(mismatches);
}

double Comparer::SlowSegment(const double* a, const double* r, int64_t n, int64_t column) {
  double amount = 0;
  NonFiniteReport& nf = report_->nonfinite;
  Metrics& m = report_->metrics;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t linear = linear_ + j;
    const double av = a[j], rv = r[j];
    const ValueClass ac = Classify(av), rc = Classify(rv);
    if (ac != ValueClass::kFinite || rc != ValueClass::kFinite) {
      Count(ac, &nf.candidate);
      Count(rc, &nf.reference);
      if (rule_.allow_nan) {
        ++nf.excluded;
        continue;
      }
      if (ac != rc) {
        ++nf.position_mismatches;
        if (nf.first_mismatches.size() < kWorstElements) {
          nf.first_mismatches.push_back(
              {linear, candidate_.Unravel(linear), av, rv, std::fabs(av - rv), 0});
        }
      }
      // torch.isclose: equal infinities are close; NaN only with equal_nan.
      const bool exact = rule_.kind == RuleKind::kExact;
      if (element_rule_.NonFiniteMismatch(av, rv, exact && BytesDiffer(linear))) {
        RecordMismatch(column + j, true);
        amount += 1;
      }
      continue;
    }
    const double d = av - rv;
    const double abs_err = std::fabs(d);
    const double rel_err = abs_err / (std::fabs(rv) + kRelEps);
    ++m.compared;
    row_sq_ += d * d;
    row_rr_ += rv * rv;
    sums_.abs.Add(abs_err);
    sums_.sq.Add(d * d);
    sums_.aa.Add(av * av);
    sums_.rr.Add(rv * rv);
    m.max_abs = std::max(m.max_abs, abs_err);
    m.max_rel = std::max(m.max_rel, rel_err);
    OfferTop(av, rv, abs_err, rel_err, linear);
    if (rule_.kind == RuleKind::kFlashMla) {
      const float fa = static_cast<float>(av), fr = static_cast<float>(rv);
      const double fd = double{fa} - double{fr};
      sums_.f_sq.Add(fd * fd);
      sums_.f_aa.Add(double{fa} * double{fa});
      sums_.f_rr.Add(double{fr} * double{fr});
    }
    if (rule_.kind == RuleKind::kCosDiff) {
      tally_.AddLast(column + j, d * d);
      amount += d * d;
    } else if (ElementMismatch(av, rv, linear)) {
      RecordMismatch(column + j, false);
      amount += 1;
    }
  }
  return amount;
}

bool Comparer::ElementMismatch(double a, double r, int64_t linear) const {
  return element_rule_.FiniteMismatch(a, r, rule_.kind == RuleKind::kExact && BytesDiffer(linear));
}

void Comparer::RecordMismatch(int64_t column, bool nonfinite) {
  ++report_->mismatches;
  if (nonfinite) ++report_->nonfinite_mismatches;
  tally_.AddLast(column, 1.0);
}

void Comparer::OfferTop(double a, double r, double abs_err, double rel_err, int64_t linear) {
  const bool by_abs = abs_err > top_abs_.floor(), by_rel = rel_err > top_rel_.floor();
  if (!by_abs && !by_rel) return;
  ElementDiff diff{linear, candidate_.Unravel(linear), a, r, abs_err, rel_err};
  if (by_abs) top_abs_.Offer(abs_err, diff);
  if (by_rel) top_rel_.Offer(rel_err, diff);
}

bool Comparer::BytesDiffer(int64_t linear) const {
  const size_t size = cand_bytes_.element_size();
  return std::memcmp(cand_bytes_.data() + linear * static_cast<int64_t>(size),
                     ref_bytes_.data() + linear * static_cast<int64_t>(size), size) != 0;
}

}  // namespace av::internal
