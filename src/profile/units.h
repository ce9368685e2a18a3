// Numbers and units as the profilers print them, normalised to base units. ncu scales
// its values to the unit it prints (`us`, `Mbyte`, `Ghz`, `Gbyte/s`, the 2019 names
// `nsecond`, `cycle/second`) unless run with --print-units base; nsys prints `(ns)` in the
// header. Every value is kept as the raw string beside its base-unit number, so the
// report can quote what the tool printed. Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace av::profile {

// "406240", "6.75", "13,485" (thousands separators), "1.234.567" or "1.234,5" (a locale
// with '.' for thousands), "-3", "1e3". Empty, "n/a" and any non-number: nullopt. A
// single '.' or single ',' followed by exactly three digits is ambiguous; '.' is read as
// the decimal point and ',' as a thousands separator (what ncu prints in the C locale).
std::optional<double> ParseProfilerNumber(std::string_view raw);

// A value in its base unit: ns for time, byte, hz, byte/s, the same for per-block and
// per-thread counts ("byte/block"), "%" and plain counts unchanged.
struct UnitValue {
  double value = 0;
  std::string unit;  // the base unit ("ns", "byte", "hz", "byte/s", "%", "" for counts)
};

// Scales `value` printed in `unit` to its base unit. An unknown unit is kept unchanged
// (ncu adds units between versions: "warp", "sector/request"); only the known scaled
// units (time, bytes, frequency, bandwidth, the same per block) are converted.
UnitValue NormaliseUnit(double value, std::string_view unit);

// A time printed in `unit` (ns, us, ms, s, or ncu's nsecond/usecond/msecond/second), in ns.
// A negative time, or a unit that is not one of those, is an error saying which ("Duration
// is negative: -24.12 us"; "unit \"parsec\" is not a time unit (ns, us, ms, s)"), never a
// figure: the time gate would read it as a speed-up. `what` names the figure.
Result<double> TimeInNs(double value, std::string_view unit, std::string_view what);

}  // namespace av::profile
