// Hint selection: which patterns (localise_patterns.h) explain a failing output's errors
// markedly better than "errors everywhere". A pattern is tested over the units of its
// own axis — rows for a row pattern, heads for a head pattern, sequences, channels, GEMM
// rows or columns — not over elements: the elements of one row (or head) share their
// errors, so counting them as separate evidence would let a few bad rows pass for a
// pattern along the heads. A pattern becomes a hint when it holds (nearly) all errors, at
// least two of its axis' units lie outside it, those are markedly cleaner than the ones
// inside, and bad units placed at random would rarely leave the outside that clean
// (hypergeometric p <= 5e-3 for a catalogue pattern, <= e^-8 for a range fitted to the
// errors). A unit that sees no key and is right says nothing (any kernel gives O = 0
// there) and is left out. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "numerics/localise_coords.h"
#include "numerics/localise_patterns.h"

namespace av {

// Where one output's errors are: the result of the pass over its elements.
struct ErrorMap {
  const CoordMap* map = nullptr;
  int64_t errors = 0;                   // elements out of tolerance
  std::vector<int32_t> unit_errors;     // per unit (CoordMap): its elements out of tolerance
  std::vector<int64_t> channel_errors;  // per channel, when the output has a channel axis
};

inline constexpr int64_t kMinHintErrors = 4;  // fewer errors say nothing about a pattern
inline constexpr size_t kMaxHints = 4;

// The hints of the patterns that explain the errors, in pattern order, each "OUTPUT: all N
// errors <pattern text>" (or "nearly all errors (k of N)"); at most `max_hints`. When none
// does and nearly every unit holds errors, the one "errors everywhere" hint instead.
std::vector<std::string> SelectHints(const std::string& output, const ErrorMap& errors,
                                     const std::vector<Pattern>& patterns, size_t max_hints);

// P(X <= x) for X hypergeometric: `draws` units drawn at random from `population`, of
// which `marked` are marked; X the marked ones drawn. (Here: of `population` units,
// `marked` lie outside a pattern and `draws` hold errors; X = errors outside.)
double HypergeometricLowerTail(int64_t population, int64_t marked, int64_t draws, int64_t x);

}  // namespace av
