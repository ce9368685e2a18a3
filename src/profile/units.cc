#include "profile/units.h"

#include <charconv>
#include <cmath>
#include <string>

#include "core/format.h"

namespace av::profile {
namespace {

struct Scale {
  std::string_view unit;
  double factor;
  std::string_view base;
};

// Prefixes as ncu prints them: decimal (Kbyte = 1000 byte; ncu's docs say its byte units
// are SI, KiB is printed as "Kibyte" and is not seen in --csv output).
constexpr Scale kScales[] = {
    {"ns", 1, "ns"},
    {"nsecond", 1, "ns"},
    {"us", 1e3, "ns"},
    {"usecond", 1e3, "ns"},
    {"ms", 1e6, "ns"},
    {"msecond", 1e6, "ns"},
    {"s", 1e9, "ns"},
    {"second", 1e9, "ns"},
    {"byte", 1, "byte"},
    {"Kbyte", 1e3, "byte"},
    {"Mbyte", 1e6, "byte"},
    {"Gbyte", 1e9, "byte"},
    {"Tbyte", 1e12, "byte"},
    {"hz", 1, "hz"},
    {"Khz", 1e3, "hz"},
    {"Mhz", 1e6, "hz"},
    {"Ghz", 1e9, "hz"},
    {"cycle/second", 1, "hz"},
    {"cycle/nsecond", 1e9, "hz"},
    {"cycle/usecond", 1e6, "hz"},
    {"byte/s", 1, "byte/s"},
    {"byte/second", 1, "byte/s"},
    {"Kbyte/s", 1e3, "byte/s"},
    {"Mbyte/s", 1e6, "byte/s"},
    {"Gbyte/s", 1e9, "byte/s"},
    {"Tbyte/s", 1e12, "byte/s"},
    {"Kbyte/second", 1e3, "byte/s"},
    {"Mbyte/second", 1e6, "byte/s"},
    {"Gbyte/second", 1e9, "byte/s"},
    {"Tbyte/second", 1e12, "byte/s"},
    {"byte/block", 1, "byte/block"},
    {"Kbyte/block", 1e3, "byte/block"},
    {"Mbyte/block", 1e6, "byte/block"},
};

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "1,234,567" with `sep` = ',': every group after the first has three digits.
bool IsGrouped(std::string_view s, char sep) {
  size_t first = s.find(sep);
  if (first == 0 || first > 3 || !AllDigits(s.substr(0, first))) return false;
  for (size_t at = first; at != std::string_view::npos;) {
    size_t next = s.find(sep, at + 1);
    std::string_view group =
        s.substr(at + 1, next == std::string_view::npos ? s.npos : next - at - 1);
    if (group.size() != 3 || !AllDigits(group)) return false;
    at = next;
  }
  return true;
}

std::string RemoveChar(std::string_view s, char c) {
  std::string out;
  for (char x : s) {
    if (x != c) out.push_back(x);
  }
  return out;
}

}  // namespace

std::optional<double> ParseProfilerNumber(std::string_view raw) {
  while (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) raw.remove_prefix(1);
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
  if (raw.empty() || raw.size() > 64) return std::nullopt;
  bool negative = raw.front() == '-';
  std::string_view body = negative || raw.front() == '+' ? raw.substr(1) : raw;
  if (body.empty() || body.front() < '0' || body.front() > '9') return std::nullopt;
  std::string text;
  size_t last_dot = body.rfind('.'), last_comma = body.rfind(',');
  bool has_dot = last_dot != body.npos, has_comma = last_comma != body.npos;
  if (has_dot && has_comma) {
    // The later separator is the decimal point: "1,234.5" or "1.234,5".
    char thousands = last_dot > last_comma ? ',' : '.';
    size_t decimal = std::max(last_dot, last_comma);
    std::string_view whole = body.substr(0, decimal);
    if (!IsGrouped(whole, thousands)) return std::nullopt;
    text = RemoveChar(whole, thousands) + "." + std::string(body.substr(decimal + 1));
  } else if (has_comma) {
    std::string_view digits = body.substr(0, body.find_first_not_of("0123456789,"));
    if (IsGrouped(digits, ',')) {
      text = RemoveChar(body, ',');
    } else if (body.find(',') == last_comma) {
      text = std::string(body);  // "0,74": a decimal comma
      text[last_comma] = '.';
    } else {
      return std::nullopt;
    }
  } else if (has_dot && body.find('.') != last_dot) {
    if (!IsGrouped(body, '.')) return std::nullopt;  // "1.234.567"
    text = RemoveChar(body, '.');
  } else {
    text = std::string(body);
  }
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

UnitValue NormaliseUnit(double value, std::string_view unit) {
  for (const Scale& s : kScales) {
    if (s.unit == unit) return {value * s.factor, std::string(s.base)};
  }
  return {value, std::string(unit)};
}

Result<double> TimeInNs(double value, std::string_view unit, std::string_view what) {
  UnitValue u = NormaliseUnit(value, unit);
  if (u.unit != "ns") {
    return InvalidInput(std::string(what) + ": unit \"" + std::string(unit.substr(0, 40)) +
                        "\" is not a time unit (ns, us, ms, s)");
  }
  if (value < 0) {
    return InvalidInput(std::string(what) + " is negative: " + FormatG(value, 6) + " " +
                        std::string(unit.substr(0, 40)));
  }
  return u.value;
}

}  // namespace av::profile
