#include "numerics/localise.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

namespace av {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A hint needs this many errors (fewer say nothing about a pattern), (nearly) all of
// them inside the pattern, and enough elements outside it that errors spread at random
// would have put at least kExpectedOutside of them there (so a pattern covering almost
// everything says nothing, while "all rows but the last" does when errors are dense).
constexpr int64_t kMinErrors = 4;
constexpr double kNearlyAll = 0.99;
constexpr double kExpectedOutside = 8;
constexpr size_t kMaxHints = 4;

// What one element is, whatever the output's layout.
struct Coord {
  int64_t seq = -1;  // batch entry or varlen sequence
  int64_t row = -1;  // query row within its sequence
  int64_t head = -1, channel = -1, m = -1, n = -1;
  int64_t s_q = -1, s_k = -1;  // of its sequence; -1 unknown
};

struct Pattern {
  std::string text;
  std::function<bool(const Coord&)> in;
  int64_t n_in = 0, e_in = 0;
};

const char* RoleName(AxisRole r, bool varlen) {
  switch (r) {
    case AxisRole::kBatch:
      return "batch";
    case AxisRole::kRow:
      return "row";
    case AxisRole::kHead:
      return "head";
    case AxisRole::kChannel:
      return "channel";
    case AxisRole::kToken:
      return varlen ? "token" : "row";
    case AxisRole::kM:
      return "m";
    case AxisRole::kN:
      return "n";
    case AxisRole::kOther:
      return "index";
  }
  return "index";
}

std::string Num(int64_t v) { return std::to_string(v); }

// Named axes for the generic "only X >= v" patterns.
struct NamedAxis {
  std::string plural;  // "heads", "query rows i", ...
  std::function<int64_t(const Coord&)> get;
  int64_t size = 0;
  int64_t err_min = INT64_MAX, err_max = -1;
};

}  // namespace

namespace {

// What the wrong values are, wherever they sit: a kernel that reports log2 as ln, or
// scales every value by the same wrong factor, or never writes a tile (zeros), or reads
// poisoned memory (NaN), leaves that signature in every error.
struct ValueStats {
  int64_t total = 0, nan_cand = 0, zero_cand = 0, ratio_log2 = 0, ratio_ln2 = 0, ratio_n = 0;
  double ratio_min = kInf, ratio_max = -kInf;

  void Add(double x, double y) {
    ++total;
    if (std::isnan(x) && !std::isnan(y)) ++nan_cand;
    if (x == 0 && y != 0 && std::isfinite(y)) ++zero_cand;
    // Ratios only where the reference is away from 0, so rounding cannot fake a factor.
    if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(y) < 1e-3) return;
    const double q = x / y;
    ++ratio_n;
    ratio_min = std::min(ratio_min, q);
    ratio_max = std::max(ratio_max, q);
    if (std::fabs(q * std::log(2.0) - 1) < 1e-3) ++ratio_log2;
    if (std::fabs(q / std::log(2.0) - 1) < 1e-3) ++ratio_ln2;
  }

  std::string Hint(int64_t errors) const {
    auto all = [&](int64_t k) {
      return k >= kMinErrors && static_cast<double>(k) >= kNearlyAll * errors;
    };
    auto lead = [&](int64_t k) {
      return k == errors ? "all " + Num(errors) + " errors"
                         : "nearly all errors (" + Num(k) + " of " + Num(errors) + ")";
    };
    if (all(ratio_log2)) {
      return lead(ratio_log2) +
             ": candidate = reference x 1.4427 (1 / ln 2): log2 values reported where the natural "
             "log is expected (e.g. an LSE kept in log2 for exp2)";
    }
    if (all(ratio_ln2)) {
      return lead(ratio_ln2) +
             ": candidate = reference x 0.6931 (ln 2): natural-log values where log2 is expected";
    }
    if (all(nan_cand)) {
      return lead(nan_cand) +
             ": the candidate is NaN where the reference is finite: it reads memory it must not "
             "(past a sequence length, a masked page) or divides 0 by 0";
    }
    if (all(zero_cand)) {
      return lead(zero_cand) +
             ": the candidate is exactly 0 where the reference is not: that part of the output was "
             "never computed or written";
    }
    if (all(ratio_n) && ratio_max - ratio_min <= 1e-3 * std::fabs(ratio_max) &&
        std::fabs(ratio_max - 1) > 1e-2) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", ratio_max);
      return lead(ratio_n) + ": candidate = reference x " + buf +
             " throughout: a scale factor is wrong";
    }
    return "";
  }
};

}  // namespace

ElementTolerance ElementToleranceFor(const CompareReport& report) {
  ElementTolerance t;
  t.kind = report.rule.kind;
  t.atol = report.rule.atol;
  t.rtol = report.rule.rtol;
  t.threshold = report.threshold;
  t.cos_tol = report.rule.cos_tol;
  return t;
}

Result<Localisation> LocaliseErrors(const std::string& output, const Tensor& candidate,
                                    const Tensor& reference, const ElementTolerance& tol,
                                    const LocaliseLayout& layout) {
  if (candidate.shape() != reference.shape()) {
    return InvalidInput(output + ": candidate " + ShapeToString(candidate.shape()) +
                        " and reference " + ShapeToString(reference.shape()) + " differ in shape");
  }
  if (static_cast<int>(layout.axes.size()) != candidate.ndim()) {
    return InvalidInput(output + ": the layout names " +
                        Num(static_cast<int64_t>(layout.axes.size())) + " axes, the tensor has " +
                        Num(candidate.ndim()));
  }
  const Tensor a = candidate.Contiguous(), r = reference.Contiguous();
  const int64_t n = a.numel();
  const Shape& shape = a.shape();
  const int nd = a.ndim();
  auto A = [&](int64_t i) {
    return LoadOneAsDouble(a.dtype(), a.data() + static_cast<size_t>(i) * a.element_size());
  };
  auto R = [&](int64_t i) {
    return LoadOneAsDouble(r.dtype(), r.data() + static_cast<size_t>(i) * r.element_size());
  };

  // cos_diff has no per-element test: an element over the RMS budget counts.
  double rms_budget = 0;
  if (tol.kind == RuleKind::kCosDiff) {
    double s = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
      double x = A(i), y = R(i);
      if (std::isfinite(x) && std::isfinite(y)) s += x * x + y * y, ++m;
    }
    rms_budget = std::sqrt(tol.cos_tol * (m ? s / static_cast<double>(m) : 0));
  }
  auto Ratio = [&](double x, double y) -> double {
    if (!std::isfinite(x) || !std::isfinite(y)) {
      bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      return same ? 0 : kInf;
    }
    double e = std::fabs(x - y);
    double allowed = 0;
    switch (tol.kind) {
      case RuleKind::kAllclose:
        allowed = tol.atol + tol.rtol * std::fabs(y);
        break;
      case RuleKind::kFlashMla:
        allowed = std::max(tol.atol, tol.rtol * (std::fabs(y) + 1e-6));
        break;
      case RuleKind::kLowprecMultiple:
        allowed = tol.threshold;
        break;
      case RuleKind::kExact:
        allowed = 0;
        break;
      case RuleKind::kCosDiff:
        allowed = rms_budget;
        break;
    }
    if (e == 0) return 0;
    return allowed > 0 ? e / allowed : kInf;
  };

  // Sequences of a packed (varlen) token axis.
  bool varlen = false;
  std::vector<int64_t> cu{0};
  for (AxisRole role : layout.axes) varlen |= role == AxisRole::kToken;
  if (varlen) {
    for (int64_t l : layout.q_lens) cu.push_back(cu.back() + l);
  }
  int64_t rows_axis_size = -1, heads = -1, batch = -1;
  for (int d = 0; d < nd; ++d) {
    AxisRole role = layout.axes[static_cast<size_t>(d)];
    if (role == AxisRole::kRow) rows_axis_size = shape[static_cast<size_t>(d)];
    if (role == AxisRole::kHead) heads = shape[static_cast<size_t>(d)];
    if (role == AxisRole::kBatch) batch = shape[static_cast<size_t>(d)];
  }
  auto MakeCoord = [&](const std::vector<int64_t>& idx) {
    Coord c;
    for (int d = 0; d < nd; ++d) {
      int64_t v = idx[static_cast<size_t>(d)];
      switch (layout.axes[static_cast<size_t>(d)]) {
        case AxisRole::kBatch:
          c.seq = v;
          break;
        case AxisRole::kRow:
          c.row = v;
          break;
        case AxisRole::kToken: {
          auto it = std::upper_bound(cu.begin(), cu.end(), v);
          c.seq = static_cast<int64_t>(it - cu.begin()) - 1;
          c.row = c.seq >= 0 && c.seq < static_cast<int64_t>(cu.size())
                      ? v - cu[static_cast<size_t>(c.seq)]
                      : v;
          break;
        }
        case AxisRole::kHead:
          c.head = v;
          break;
        case AxisRole::kChannel:
          c.channel = v;
          break;
        case AxisRole::kM:
          c.m = v;
          break;
        case AxisRole::kN:
          c.n = v;
          break;
        case AxisRole::kOther:
          break;
      }
    }
    size_t s = static_cast<size_t>(std::max<int64_t>(c.seq, 0));
    c.s_q = s < layout.q_lens.size() ? layout.q_lens[s] : rows_axis_size;
    c.s_k = s < layout.k_lens.size() ? layout.k_lens[s] : -1;
    return c;
  };

  // Patterns, in the order their hints are preferred.
  std::vector<Pattern> pats;
  const bool rows = rows_axis_size >= 0 || varlen;
  const bool keys = !layout.k_lens.empty();
  if (rows) {
    pats.push_back(
        {"in query rows i < s_q - 1 (not the last query row of each sequence)" +
             std::string(layout.causal
                             ? ": the causal mask is misaligned for s_q > 1 (row i must see keys "
                               "j <= i + s_k - s_q, bottom-right aligned)"
                             : ""),
         [](const Coord& c) { return c.row < c.s_q - 1; }});
    pats.push_back({"in the last query row of sequences with s_q > 1",
                    [](const Coord& c) { return c.s_q > 1 && c.row == c.s_q - 1; }});
    if (keys && (layout.causal || layout.window_right >= 0)) {
      pats.push_back(
          {"in rows with no visible key (i + s_k - s_q < 0): they must give O = 0 and LSE = -inf",
           [](const Coord& c) { return c.s_k >= 0 && c.row + c.s_k - c.s_q < 0; }});
    }
    if (keys && layout.window_left >= 0) {
      int64_t w = layout.window_left;
      pats.push_back(
          {"in rows whose window starts inside the sequence (i + s_k - s_q >= window_left = " +
               Num(w) + "): the left window edge j >= i + s_k - s_q - window_left is off",
           [w](const Coord& c) { return c.s_k >= 0 && c.row + c.s_k - c.s_q >= w; }});
      pats.push_back(
          {"in rows where i + s_k - s_q is within the window edge (i + s_k - s_q < window_left = " +
               Num(w) + "): the window is clipped at key 0",
           [w](const Coord& c) { return c.s_k >= 0 && c.row + c.s_k - c.s_q < w; }});
    }
    if (keys && layout.window_right > 0 && !layout.causal) {
      int64_t w = layout.window_right;
      pats.push_back(
          {"in rows whose window ends inside the sequence (i + s_k - s_q + window_right < s_k - "
           "1): the "
           "right window edge is off",
           [w](const Coord& c) { return c.s_k >= 0 && c.row + c.s_k - c.s_q + w < c.s_k - 1; }});
    }
    if (keys && layout.causal) {
      pats.push_back(
          {"in rows whose last visible key ends a partial 64-key tile ((i + s_k - s_q + 1) mod 64 "
           "!= 0)",
           [](const Coord& c) {
             int64_t last = c.row + c.s_k - c.s_q;
             return c.s_k >= 0 && last >= 0 && (last + 1) % 64 != 0;
           }});
    }
    pats.push_back({"in query rows i >= 64 (the second and later 64-row tiles)",
                    [](const Coord& c) { return c.row >= 64; }});
    pats.push_back(
        {"in the last, partial 64-row tile of sequences whose s_q is not a multiple of 64",
         [](const Coord& c) { return c.s_q % 64 != 0 && c.row >= c.s_q / 64 * 64; }});
  }
  if (keys) {
    pats.push_back({"in sequences whose key length is not a multiple of 64",
                    [](const Coord& c) { return c.s_k >= 0 && c.s_k % 64 != 0; }});
    pats.push_back({"in sequences whose key length is a non-zero multiple of 64",
                    [](const Coord& c) { return c.s_k > 0 && c.s_k % 64 == 0; }});
    pats.push_back(
        {"in empty sequences (s_k = 0): they must give O = 0 and LSE = -inf (FlashMLA: +inf)",
         [](const Coord& c) { return c.s_k == 0; }});
    pats.push_back({"in sequences longer than one 64-key tile (s_k > 64)",
                    [](const Coord& c) { return c.s_k > 64; }});
  }
  const int64_t hq = layout.h_q, hkv = layout.h_kv;
  if (heads > 0 && hkv > 1 && hq % hkv == 0 && hq / hkv > 1) {
    const int64_t g = hq / hkv;
    pats.push_back({"in heads h whose kv head h / " + Num(g) + " differs from h mod " + Num(hkv) +
                        ": the GQA mapping looks wrong (head h must read kv head h / (h_q / h_kv))",
                    [g, hkv](const Coord& c) { return c.head / g != c.head % hkv; }});
  }
  bool gemm = false;
  int64_t m_size = -1, n_size = -1;
  for (int d = 0; d < nd; ++d) {
    if (layout.axes[static_cast<size_t>(d)] == AxisRole::kM)
      gemm = true, m_size = shape[static_cast<size_t>(d)];
    if (layout.axes[static_cast<size_t>(d)] == AxisRole::kN) n_size = shape[static_cast<size_t>(d)];
  }
  if (gemm) {
    for (int64_t t : {128, 64}) {
      if (n_size > t && n_size % t != 0) {
        int64_t start = n_size / t * t;
        pats.push_back({"in columns n >= " + Num(start) + " (the tail after the last full " +
                            Num(t) + "-column tile): the tail tile is missing or wrong",
                        [start](const Coord& c) { return c.n >= start; }});
      }
      if (m_size > t && m_size % t != 0) {
        int64_t start = m_size / t * t;
        pats.push_back({"in rows m >= " + Num(start) + " (the tail after the last full " + Num(t) +
                            "-row tile)",
                        [start](const Coord& c) { return c.m >= start; }});
      }
    }
    pats.push_back({"in rows m with m mod 128 != 0: per-token scales look applied per 128 rows",
                    [](const Coord& c) { return c.m % 128 != 0; }});
  }

  // Generic ranges along each named axis.
  std::vector<NamedAxis> named;
  if (batch > 0 || varlen) {
    int64_t nseq = varlen ? static_cast<int64_t>(layout.q_lens.size()) : batch;
    named.push_back(
        {varlen ? "sequences" : "batch entries", [](const Coord& c) { return c.seq; }, nseq});
  }
  if (rows) {
    int64_t maxq = rows_axis_size;
    for (int64_t l : layout.q_lens) maxq = std::max(maxq, l);
    named.push_back({"query rows i", [](const Coord& c) { return c.row; }, maxq});
  }
  if (heads > 0) {
    named.push_back({"heads", [](const Coord& c) { return c.head; }, heads});
    if (hkv > 1 && hq % hkv == 0) {
      int64_t g = hq / hkv;
      named.push_back({"kv-head groups (heads h / " + Num(g) + ")",
                       [g](const Coord& c) { return c.head / g; }, hkv});
    }
  }
  for (int d = 0; d < nd; ++d) {
    AxisRole role = layout.axes[static_cast<size_t>(d)];
    int64_t size = shape[static_cast<size_t>(d)];
    if (role == AxisRole::kChannel)
      named.push_back({"channels", [](const Coord& c) { return c.channel; }, size});
    if (role == AxisRole::kM) named.push_back({"rows m", [](const Coord& c) { return c.m; }, size});
    if (role == AxisRole::kN)
      named.push_back({"columns n", [](const Coord& c) { return c.n; }, size});
  }

  // Heat grid: rows (sequence x row, token, or m) by heads (or n).
  Localisation out;
  out.output = output;
  out.elements = n;
  HeatGrid& heat = out.heat;
  int64_t grid_rows = 1, grid_cols = 1;
  if (gemm) {
    heat.row_axis = "m";
    heat.col_axis = "n";
    grid_rows = m_size;
    grid_cols = std::max<int64_t>(n_size, 1);
  } else {
    heat.row_axis = varlen      ? "token (sequence, position)"
                    : batch > 0 ? "batch x query row"
                                : "query row";
    heat.col_axis = heads > 0 ? "head" : "-";
    grid_rows =
        varlen ? cu.back() : std::max<int64_t>(batch, 1) * std::max<int64_t>(rows_axis_size, 1);
    grid_cols = std::max<int64_t>(heads, 1);
  }
  grid_rows = std::max<int64_t>(grid_rows, 1);
  heat.row_bucket = (grid_rows + kMaxHeatRows - 1) / kMaxHeatRows;
  heat.col_bucket = (grid_cols + kMaxHeatCols - 1) / kMaxHeatCols;
  heat.rows = (grid_rows + heat.row_bucket - 1) / heat.row_bucket;
  heat.cols = (grid_cols + heat.col_bucket - 1) / heat.col_bucket;
  heat.ratio.assign(static_cast<size_t>(heat.rows * heat.cols), 0.0);
  const int64_t row_stride = std::max<int64_t>(rows_axis_size, 1);
  if (!gemm) {
    int64_t nseq = varlen ? static_cast<int64_t>(layout.q_lens.size()) : batch;
    if (nseq > 0 && nseq <= 16) {
      for (int64_t s = 0; s < nseq; ++s) {
        int64_t start = varlen ? cu[static_cast<size_t>(s)] : s * row_stride;
        heat.row_ticks.emplace_back(start / heat.row_bucket, (varlen ? "seq " : "b") + Num(s));
      }
    }
  }
  if (heat.row_ticks.empty()) {
    for (int64_t t = 0; t < 5; ++t) {
      int64_t row = t * (grid_rows - 1) / 4;
      heat.row_ticks.emplace_back(row / heat.row_bucket, Num(row));
    }
  }

  // Pass 1: ratios, errors, worst elements, error ranges, heat grid.
  std::vector<float> ratios(static_cast<size_t>(n));
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  auto Advance = [&] {
    for (int d = nd; d-- > 0;) {
      if (++idx[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  };
  std::vector<std::pair<double, int64_t>> worst;  // (ratio, linear), largest first
  ValueStats values;
  for (int64_t i = 0; i < n; ++i, Advance()) {
    double x = A(i), y = R(i);
    double q = Ratio(x, y);
    if (q > 1) values.Add(x, y);
    ratios[static_cast<size_t>(i)] = static_cast<float>(std::min(q, 3e38));
    Coord c = MakeCoord(idx);
    int64_t gr = gemm     ? c.m
                 : varlen ? idx[0]
                          : std::max<int64_t>(c.seq, 0) * row_stride + std::max<int64_t>(c.row, 0);
    int64_t gc = gemm ? c.n : std::max<int64_t>(c.head, 0);
    double& cell =
        heat.ratio[static_cast<size_t>((gr / heat.row_bucket) * heat.cols + gc / heat.col_bucket)];
    cell = std::max(cell, q);
    if (!(q > 1)) continue;
    ++out.errors;
    for (NamedAxis& ax : named) {
      int64_t v = ax.get(c);
      ax.err_min = std::min(ax.err_min, v);
      ax.err_max = std::max(ax.err_max, v);
    }
    if (static_cast<int>(worst.size()) < kWorstElements || q > worst.back().first) {
      worst.emplace_back(q, i);
      std::stable_sort(worst.begin(), worst.end(),
                       [](const auto& p, const auto& o) { return p.first > o.first; });
      if (static_cast<int>(worst.size()) > kWorstElements) worst.pop_back();
    }
  }
  for (const auto& [q, i] : worst) {
    LocatedElement e;
    e.output = output;
    std::vector<int64_t> at = a.Unravel(i);
    Coord c = MakeCoord(at);
    for (int d = 0; d < nd; ++d) {
      AxisRole role = layout.axes[static_cast<size_t>(d)];
      if (role == AxisRole::kToken) {
        e.coords.emplace_back("sequence", c.seq);
        e.coords.emplace_back("position", c.row);
      } else {
        e.coords.emplace_back(RoleName(role, varlen), at[static_cast<size_t>(d)]);
      }
    }
    e.candidate = A(i);
    e.reference = R(i);
    e.abs_err = std::fabs(e.candidate - e.reference);
    e.ratio = q;
    out.worst.push_back(std::move(e));
  }
  if (out.errors < kMinErrors) return out;
  if (std::string v = values.Hint(out.errors); !v.empty()) out.hints.push_back(output + ": " + v);

  for (const NamedAxis& ax : named) {
    if (ax.err_max < 0) continue;
    if (ax.err_min == ax.err_max) {
      int64_t v = ax.err_min;
      auto get = ax.get;
      pats.push_back({"in " + ax.plural + " = " + Num(v) + " only",
                      [get, v](const Coord& c) { return get(c) == v; }});
      continue;
    }
    if (ax.err_min > 0) {
      int64_t v = ax.err_min;
      auto get = ax.get;
      pats.push_back({"in " + ax.plural + " >= " + Num(v) + " only",
                      [get, v](const Coord& c) { return get(c) >= v; }});
    }
    if (ax.err_max < ax.size - 1) {
      int64_t v = ax.err_max;
      auto get = ax.get;
      pats.push_back({"in " + ax.plural + " <= " + Num(v) + " only",
                      [get, v](const Coord& c) { return get(c) <= v; }});
    }
  }

  // Pass 2: how many elements and errors each pattern holds.
  std::fill(idx.begin(), idx.end(), 0);
  for (int64_t i = 0; i < n; ++i, Advance()) {
    Coord c = MakeCoord(idx);
    bool err = ratios[static_cast<size_t>(i)] > 1;
    for (Pattern& p : pats) {
      if (p.in(c)) {
        ++p.n_in;
        p.e_in += err;
      }
    }
  }
  // A pattern holding every error beats one holding nearly all: the latter is then
  // usually a coincidence of the former's edge (one row with a few errors left out).
  bool exact = false;
  for (const Pattern& p : pats) {
    const double outside = static_cast<double>(n - p.n_in);
    exact |= p.e_in == out.errors &&
             outside * static_cast<double>(out.errors) / static_cast<double>(n) >= kExpectedOutside;
  }
  std::vector<std::pair<int64_t, int64_t>> said;
  for (const Pattern& p : pats) {
    if (exact && p.e_in != out.errors) continue;
    if (out.hints.size() == kMaxHints) break;
    if (static_cast<double>(p.e_in) < kNearlyAll * static_cast<double>(out.errors)) continue;
    const double outside = static_cast<double>(n - p.n_in);
    if (outside * static_cast<double>(out.errors) / static_cast<double>(n) < kExpectedOutside)
      continue;
    // The same set of elements reached by another pattern says nothing new.
    if (std::find(said.begin(), said.end(), std::make_pair(p.n_in, p.e_in)) != said.end()) continue;
    said.emplace_back(p.n_in, p.e_in);
    std::string lead = p.e_in == out.errors
                           ? "all " + Num(out.errors) + " errors"
                           : "nearly all errors (" + Num(p.e_in) + " of " + Num(out.errors) + ")";
    out.hints.push_back(output + ": " + lead + " " + p.text);
  }
  return out;
}

}  // namespace av
