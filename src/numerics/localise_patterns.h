// The localiser's pattern catalogue: where kernel bugs put their errors (the rows a
// misaligned causal mask gets wrong, a window edge, a partial tile, empty sequences, the
// heads a wrong GQA mapping reads, a GEMM's tail tile), each a predicate on an element's
// coordinates with the axis it speaks about and the hint it gives; plus ranges along each
// named axis, drawn from where the errors lie ("heads >= 64 only"). Which of them become
// hints is localise_hints' decision. Pure; any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numerics/localise_coords.h"

namespace av {

// What a pattern speaks about: its units (localise_hints.h) are this axis' values.
enum class PatternAxis { kQueryRow, kRowIndex, kSequence, kHead, kKvGroup, kChannel, kM, kN };

// The value of `axis` at `c` (kQueryRow: the sequence and row together).
int64_t AxisValue(PatternAxis axis, const Coord& c, const LocaliseLayout& layout);

struct Pattern {
  std::string text;  // completes "all N errors ..."
  PatternAxis axis = PatternAxis::kQueryRow;
  std::function<bool(const Coord&)> in;  // constant over each unit of `axis`
  // A range fitted to where the errors lie, not a catalogue entry: it needs stronger
  // evidence (localise_hints.h).
  bool fitted = false;
};

// The catalogue's entries that apply to this output, in the order hints are preferred.
std::vector<Pattern> CataloguePatterns(const CoordMap& map);

// A named axis and the range of its values that hold errors.
struct AxisSpan {
  std::string plural;  // "heads", "query rows i", ...
  PatternAxis axis = PatternAxis::kHead;
  int64_t size = 0;
  int64_t err_min = INT64_MAX, err_max = -1;
  void Add(int64_t v) {
    err_min = std::min(err_min, v);
    err_max = std::max(err_max, v);
  }
};

// The output's named axes, each with an empty range.
std::vector<AxisSpan> NamedAxes(const CoordMap& map);

// "in heads >= 64 only", "in channels <= 255 only", "in batch entries = 1 only": the
// ranges that leave some of an axis out.
std::vector<Pattern> RangePatterns(const std::vector<AxisSpan>& spans, const CoordMap& map);

}  // namespace av
