#include "numerics/localise_hints.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace av {
namespace {

// Thresholds, in one place (doc/formats/numerics-json.md states them).
constexpr double kNearlyAll = 0.99;       // share of the errors a pattern must hold
constexpr double kCleanerOutside = 0.1;   // error rate outside / inside, at most
constexpr double kCatalogueP = 5e-3;      // a catalogue pattern: a mechanism named in advance
constexpr double kFittedP = 3.35e-4;      // e^-8: a range fitted to where the errors lie
constexpr double kEverywhere = 0.9;       // share of units with errors for "everywhere"
constexpr int64_t kEverywhereUnits = 16;  // fewer units say nothing
constexpr double kTightest = 0.9;         // error density of a hint / the best one's

// One unit of an axis: its elements, errors and a coordinate inside it (for the
// predicates).
struct AxisUnit {
  int64_t elements = 0, errors = 0;
  Coord at;
  bool trivial = true;  // no row of it sees a key: a right answer there says nothing
};

// The units of every axis the patterns speak about, gathered in one pass over the
// output's units (and, for channels, from the per-channel counts).
class AxisUnits {
 public:
  AxisUnits(const ErrorMap& e, const std::vector<Pattern>& patterns) {
    const CoordMap& map = *e.map;
    const LocaliseLayout& l = map.layout();
    for (const Pattern& p : patterns) wanted_[static_cast<size_t>(p.axis)] = true;
    const int64_t per_unit = std::max<int64_t>(map.channels(), 1);
    for (int64_t u = 0; u < map.units(); ++u) {
      const Coord c = map.At(map.UnitIndex(u));
      const int64_t errs = e.unit_errors[static_cast<size_t>(u)];
      const bool no_key = map.VisibleKeys(c) == 0;
      for (size_t a = 0; a < kAxes; ++a) {
        const auto axis = static_cast<PatternAxis>(a);
        if (!wanted_[a] || axis == PatternAxis::kChannel) continue;
        auto [it, first] = units_[a].try_emplace(AxisValue(axis, c, l));
        if (first) it->second.at = c;
        it->second.elements += per_unit;
        it->second.errors += errs;
        it->second.trivial &= no_key;
      }
    }
    const size_t ch = static_cast<size_t>(PatternAxis::kChannel);
    for (size_t k = 0; wanted_[ch] && k < e.channel_errors.size(); ++k) {
      AxisUnit& unit = units_[ch][static_cast<int64_t>(k)];
      unit.at.channel = static_cast<int64_t>(k);
      unit.elements = map.units();
      unit.errors = e.channel_errors[k];
      unit.trivial = false;
    }
  }

  const std::map<int64_t, AxisUnit>& of(PatternAxis axis) const {
    return units_[static_cast<size_t>(axis)];
  }

 private:
  static constexpr size_t kAxes = static_cast<size_t>(PatternAxis::kN) + 1;

  bool wanted_[kAxes] = {};
  std::map<int64_t, AxisUnit> units_[kAxes];
};

// How one pattern splits its axis' units.
struct Tally {
  int64_t in = 0, out = 0;          // units considered, inside and outside
  int64_t bad_in = 0, bad_out = 0;  // of which hold errors
  int64_t elements_in = 0;          // elements of the units inside
  int64_t errors_in = 0;            // elements out of tolerance inside
  double density() const {
    return elements_in ? static_cast<double>(errors_in) / static_cast<double>(elements_in) : 0;
  }
};

Tally Count(const Pattern& p, const AxisUnits& units) {
  Tally t;
  for (const auto& [value, unit] : units.of(p.axis)) {
    const bool bad = unit.errors > 0;
    if (unit.trivial && !bad) continue;
    if (p.in(unit.at)) {
      ++t.in;
      t.bad_in += bad;
      t.elements_in += unit.elements;
      t.errors_in += unit.errors;
    } else {
      ++t.out;
      t.bad_out += bad;
    }
  }
  return t;
}

bool Explains(const Pattern& p, const Tally& t, int64_t errors) {
  const int64_t bad = t.bad_in + t.bad_out;
  if (static_cast<double>(t.errors_in) < kNearlyAll * static_cast<double>(errors)) return false;
  if (static_cast<double>(t.bad_in) < kNearlyAll * static_cast<double>(bad)) return false;
  if (t.out < 2 || t.in == 0) return false;
  const double rate_in = static_cast<double>(t.bad_in) / static_cast<double>(t.in);
  const double rate_out = static_cast<double>(t.bad_out) / static_cast<double>(t.out);
  if (rate_out > kCleanerOutside * rate_in) return false;
  const double p_value = HypergeometricLowerTail(t.in + t.out, t.out, bad, t.bad_out);
  return p_value <= (p.fitted ? kFittedP : kCatalogueP);
}

std::string EverywhereHint(const std::string& output, const ErrorMap& e) {
  const CoordMap& map = *e.map;
  int64_t units = 0, bad = 0;
  for (int64_t u = 0; u < map.units(); ++u) {
    const bool b = e.unit_errors[static_cast<size_t>(u)] > 0;
    if (!b && map.has_keys() && map.VisibleKeys(map.At(map.UnitIndex(u))) == 0) continue;
    ++units;
    bad += b;
  }
  if (units < kEverywhereUnits ||
      static_cast<double>(bad) < kEverywhere * static_cast<double>(units))
    return "";
  const std::string what = map.gemm() ? "elements" : map.heads() > 0 ? "rows x heads" : "rows";
  const LocaliseLayout& l = map.layout();
  const bool masked = l.causal || l.window_left >= 0 || l.window_right >= 0;
  const std::string look =
      map.gemm() ? "the scales, the k loop, the accumulator's precision"
                 : std::string(masked ? "the mask's alignment, " : "") +
                       "the softmax scale, which channels V is read from, exp without the "
                       "running max, the accumulator's precision";
  return output + ": errors everywhere: " + std::to_string(bad) + " of " + std::to_string(units) +
         " " + what + (map.has_keys() ? " that see a key" : "") +
         " hold errors, so no boundary explains them: look at what every element shares (" + look +
         ")";
}

double LogChoose(int64_t n, int64_t k) {
  return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
         std::lgamma(static_cast<double>(n - k) + 1);
}

}  // namespace

double HypergeometricLowerTail(int64_t population, int64_t marked, int64_t draws, int64_t x) {
  const int64_t lo = std::max<int64_t>(0, draws - (population - marked));
  if (x >= std::min(marked, draws)) return 1;
  if (x < lo) return 0;
  const double total = LogChoose(population, draws);
  double sum = 0;
  for (int64_t k = lo; k <= x; ++k) {
    sum += std::exp(LogChoose(marked, k) + LogChoose(population - marked, draws - k) - total);
  }
  return std::min(sum, 1.0);
}

std::vector<std::string> SelectHints(const std::string& output, const ErrorMap& e,
                                     const std::vector<Pattern>& patterns, size_t max_hints) {
  std::vector<std::string> hints;
  if (e.errors < kMinHintErrors || max_hints == 0) return hints;
  const AxisUnits units(e, patterns);
  std::vector<Tally> tallies;
  std::vector<bool> ok;
  bool exact = false;
  for (const Pattern& p : patterns) {
    tallies.push_back(Count(p, units));
    ok.push_back(Explains(p, tallies.back(), e.errors));
    exact |= ok.back() && tallies.back().errors_in == e.errors;
  }
  // A pattern holding every error beats one holding nearly all: the latter is then
  // usually a coincidence of the former's edge (one row with a few errors left out).
  // Among those left, the tightest wins: a pattern whose inside is much less full of
  // errors than another's is a superset of that explanation ("the second 64-row tile"
  // around "rows whose window starts inside the sequence").
  double best = 0;
  for (size_t k = 0; k < patterns.size(); ++k) {
    if (ok[k] && (!exact || tallies[k].errors_in == e.errors))
      best = std::max(best, tallies[k].density());
  }
  std::vector<std::pair<int64_t, int64_t>> said;
  for (size_t k = 0; k < patterns.size() && hints.size() < max_hints; ++k) {
    const Tally& t = tallies[k];
    if (!ok[k] || (exact && t.errors_in != e.errors)) continue;
    if (t.density() < kTightest * best) continue;
    // The same elements reached by another pattern say nothing new.
    const auto key = std::make_pair(t.elements_in, t.errors_in);
    if (std::find(said.begin(), said.end(), key) != said.end()) continue;
    said.push_back(key);
    const std::string lead = t.errors_in == e.errors
                                 ? "all " + std::to_string(e.errors) + " errors"
                                 : "nearly all errors (" + std::to_string(t.errors_in) + " of " +
                                       std::to_string(e.errors) + ")";
    hints.push_back(output + ": " + lead + " " + patterns[k].text);
  }
  if (hints.empty()) {
    std::string everywhere = EverywhereHint(output, e);
    if (!everywhere.empty()) hints.push_back(std::move(everywhere));
  }
  return hints;
}

}  // namespace av
