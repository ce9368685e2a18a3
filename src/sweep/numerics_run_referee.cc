#include "sweep/numerics_run_referee.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "numerics/element_rule.h"

namespace av {
namespace {

std::vector<double> Doubles(const Tensor& t) {
  Tensor c = t.Contiguous();
  std::vector<double> v(static_cast<size_t>(c.numel()));
  LoadAsDouble(c.dtype(), c.data(), static_cast<int64_t>(c.element_size()), c.numel(), v.data());
  return v;
}

const Tensor* Find(const NamedTensors& ts, const std::string& name) {
  for (const auto& [n, t] : ts) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

bool SameNonFinite(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;
}

}  // namespace

bool FastReferenceJudges(const std::string& op) { return op != "sparse_attention"; }

bool OracleSampled(const std::string& case_id, int n) {
  if (n <= 0) return false;
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : case_id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h % static_cast<uint64_t>(n) == 0;
}

double WorstToleranceRatio(const Tensor& candidate, const Tensor& reference,
                           const CompareReport& report) {
  const ElementTolerance t = ElementToleranceFor(report);
  double worst = t.cos_tol > 0 ? report.rule_cos_diff / t.cos_tol : 0;
  const ElementRule rule(t);
  if (!rule.per_element() || candidate.shape() != reference.shape()) return worst;
  const std::vector<double> a = Doubles(candidate), r = Doubles(reference);
  for (size_t i = 0; i < a.size(); ++i) {
    const bool mismatch = rule.Mismatch(a[i], r[i], a[i] != r[i]);
    if (!mismatch && t.allow_nan && !(std::isfinite(a[i]) && std::isfinite(r[i]))) continue;
    worst = std::max(worst, rule.Ratio(a[i], r[i], mismatch));
  }
  return worst;
}

double AgreementBound(const std::string& op) {
  const bool f64 =
      op == "attention" || op == "mla_decode" || op == "attention_splitk" || op == "combine";
  return f64 ? 2.5e-7 : 1e-5;
}

Status CheckReferencesAgree(const std::string& case_id, const std::string& op,
                            const NamedTensors& fast, const NamedTensors& oracle,
                            const std::vector<std::string>& names) {
  const double rel = AgreementBound(op);
  for (const std::string& name : names) {
    const Tensor* f = Find(fast, name);
    const Tensor* o = Find(oracle, name);
    const std::string where = "case " + case_id + ", output " + name + ": ";
    if (f == nullptr || o == nullptr || f->shape() != o->shape()) {
      return Internal(where + "the fast reference and the oracle do not give the same outputs");
    }
    const std::vector<double> a = Doubles(*f), r = Doubles(*o);
    double max_ref = 0;
    for (double x : r) {
      if (std::isfinite(x)) max_ref = std::max(max_ref, std::fabs(x));
    }
    const double bound = rel * std::max(1.0, max_ref);
    size_t worst = a.size();
    double worst_err = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const bool finite = std::isfinite(a[i]) && std::isfinite(r[i]);
      const double e = finite                      ? std::fabs(a[i] - r[i])
                       : SameNonFinite(a[i], r[i]) ? 0
                                                   : std::numeric_limits<double>::infinity();
      if (e > worst_err) worst_err = e, worst = i;
    }
    if (worst_err > bound) {
      return Internal(where + "the fast reference disagrees with the oracle: |fast - oracle| = " +
                      Num(worst_err) + " at flat element " + std::to_string(worst) + " (fast " +
                      Num(a[worst]) + ", oracle " + Num(r[worst]) + "), bound " + Num(bound) +
                      " (" + Num(rel) +
                      " x max(1, max|oracle|)); no verdict: the reference is wrong, not the "
                      "candidate");
    }
  }
  return Status::Ok();
}

}  // namespace av
