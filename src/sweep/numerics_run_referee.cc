#include "sweep/numerics_run_referee.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "numerics/element_rule.h"
#include "numerics/element_stream.h"

namespace av {
namespace {

// Calls fn(i, x_i, y_i) for every element of two streams of one shape (ElementStream,
// SpilledTensors::Reader), as doubles in row-major order, a chunk at a time: no whole
// float64 copies (a 4096 x 32768 GEMM result is 1 GiB of doubles).
template <typename StreamX, typename StreamY, typename Fn>
void ForEachPairOf(StreamX& sx, StreamY& sy, Fn&& fn) {
  constexpr int64_t kChunk = 4096;
  std::vector<double> a(kChunk), b(kChunk);
  for (int64_t at = 0;;) {
    const int64_t n = sx.Fill(a.data(), kChunk);
    if (n == 0 || sy.Fill(b.data(), kChunk) != n) return;
    for (int64_t i = 0; i < n; ++i)
      fn(at + i, a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
    at += n;
  }
}

template <typename Fn>
void ForEachPair(const Tensor& x, const Tensor& y, Fn&& fn) {
  ElementStream sx(x), sy(y);
  ForEachPairOf(sx, sy, fn);
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
  ForEachPair(candidate, reference, [&](int64_t, double a, double r) {
    const bool mismatch = rule.Mismatch(a, r, a != r);
    if (!mismatch && t.allow_nan && !(std::isfinite(a) && std::isfinite(r))) return;
    worst = std::max(worst, rule.Ratio(a, r, mismatch));
  });
  return worst;
}

double AgreementBound(const std::string& op) {
  const bool f64 =
      op == "attention" || op == "mla_decode" || op == "attention_splitk" || op == "combine";
  return f64 ? 2.5e-7 : 1e-5;
}

Status CheckReferencesAgree(const std::string& case_id, const std::string& op,
                            const FastResults& fast, const NamedTensors& oracle,
                            const std::vector<std::string>& names) {
  const double rel = AgreementBound(op);
  for (const std::string& name : names) {
    const Tensor* f = fast.held != nullptr ? Find(*fast.held, name) : nullptr;
    const SpilledTensors::Entry* fs = fast.spilled != nullptr ? fast.spilled->Find(name) : nullptr;
    const Tensor* o = Find(oracle, name);
    const std::string where = "case " + case_id + ", output " + name + ": ";
    if ((f == nullptr && fs == nullptr) || o == nullptr ||
        (f != nullptr ? f->shape() : fs->shape) != o->shape()) {
      return Internal(where + "the fast reference and the oracle do not give the same outputs");
    }
    double max_ref = 0;
    ForEachPair(*o, *o, [&](int64_t, double x, double) {
      if (std::isfinite(x)) max_ref = std::max(max_ref, std::fabs(x));
    });
    const double bound = rel * std::max(1.0, max_ref);
    int64_t worst = -1;
    double worst_err = 0, worst_fast = 0, worst_oracle = 0;
    auto measure = [&](int64_t i, double a, double r) {
      const bool finite = std::isfinite(a) && std::isfinite(r);
      const double e = finite                ? std::fabs(a - r)
                       : SameNonFinite(a, r) ? 0
                                             : std::numeric_limits<double>::infinity();
      if (e > worst_err) worst_err = e, worst = i, worst_fast = a, worst_oracle = r;
    };
    ElementStream so(*o);
    if (f != nullptr) {
      ElementStream sf(*f);
      ForEachPairOf(sf, so, measure);
    } else {
      SpilledTensors::Reader sf = fast.spilled->Open(*fs);
      ForEachPairOf(sf, so, measure);
      if (!sf.status().ok()) {
        return Internal(where + "the fast reference's results, spilled while the oracle ran, " +
                        "could not be read back: " + sf.status().message());
      }
    }
    if (worst_err > bound) {
      return Internal(where + "the fast reference disagrees with the oracle: |fast - oracle| = " +
                      Num(worst_err) + " at flat element " + std::to_string(worst) + " (fast " +
                      Num(worst_fast) + ", oracle " + Num(worst_oracle) + "), bound " + Num(bound) +
                      " (" + Num(rel) +
                      " x max(1, max|oracle|)); no verdict: the reference is wrong, not the "
                      "candidate");
    }
  }
  return Status::Ok();
}

Status CheckReferencesAgree(const std::string& case_id, const std::string& op,
                            const NamedTensors& fast, const NamedTensors& oracle,
                            const std::vector<std::string>& names) {
  return CheckReferencesAgree(case_id, op, FastResults{&fast, nullptr}, oracle, names);
}

}  // namespace av
