#include "agent/quantities.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace av {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

struct Unit {
  std::string_view name;
  std::vector<double> scales;  // the readings besides the bare number
};

// Longest names first, so "KiB" is not read as "K".
const std::vector<Unit>& Units() {
  static const std::vector<Unit> units = {
      {"bytes", {1}},
      {"byte", {1}},
      {"KiB", {1024}},
      {"MiB", {1048576}},
      {"GiB", {1073741824.0}},
      {"KB", {1000, 1024}},
      {"kB", {1000, 1024}},
      {"MB", {1e6, 1048576}},
      {"GB", {1e9, 1073741824.0}},
      {"ms", {1e-3}},
      {"us", {1e-6}},
      {"\xc2\xb5s", {1e-6}},
      {"ns", {1e-9}},
      {"K", {1000, 1024}},
      {"k", {1000, 1024}},
      {"B", {1}},
      {"s", {1}},
      {"%", {0.01}},
  };
  return units;
}

// The unit right after position `i` (spaces allowed before it), or null; `end` gets the
// position after it. A unit must end the word ("KiB" in "KiBs" is not one).
const Unit* ReadUnit(std::string_view text, size_t i, size_t* end) {
  size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  for (const Unit& u : Units()) {
    if (text.substr(j, u.name.size()) != u.name) continue;
    size_t after = j + u.name.size();
    if (u.name != "%" && after < text.size() && IsWordChar(text[after])) continue;
    if (u.name == "%" && j != i) continue;  // "50 %" is rare; "50%" the form
    *end = after;
    return &u;
  }
  return nullptr;
}

}  // namespace

std::vector<Quantity> ExtractQuantities(std::string_view text) {
  std::vector<Quantity> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    // Part of a word (sm_90, fp8, e4m3, a0), except "128x64": x between two numbers.
    if (i > 0 && (IsWordChar(text[i - 1]) || text[i - 1] == '.')) {
      bool times =
          text[i - 1] == 'x' && i > 1 && std::isdigit(static_cast<unsigned char>(text[i - 2]));
      if (!times) {
        while (i < text.size() && (IsWordChar(text[i]) || text[i] == '.')) ++i;
        continue;
      }
    }
    size_t start = i;
    double value = 0;
    int decimals = 0;
    int exponent = 0;
    if (c == '0' && i + 2 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      i += 2;
      size_t h = i;
      while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
      value = static_cast<double>(
          std::strtoull(std::string(text.substr(h, i - h)).c_str(), nullptr, 16));
    } else {
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      if (i + 1 < text.size() && text[i] == '.' &&
          std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
        size_t d = ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        decimals = static_cast<int>(i - d);
      }
      if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        size_t e = i + 1;
        if (e < text.size() && (text[e] == '-' || text[e] == '+')) ++e;
        if (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) {
          while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
          long exp = std::strtol(std::string(text.substr(i + 1, e - i - 1)).c_str(), nullptr, 10);
          exponent = static_cast<int>(std::clamp(exp, -400L, 400L));
          i = e;
        }
      }
      value = std::strtod(std::string(text.substr(start, i - start)).c_str(), nullptr);
    }
    // Glued to letters that are no unit ("3rd", "2x", "90a"): not a quantity.
    size_t end = i;
    const Unit* unit = ReadUnit(text, i, &end);
    if (unit == nullptr && i < text.size() && IsWordChar(text[i]) && text[i] != 'x') {
      while (i < text.size() && IsWordChar(text[i])) ++i;
      continue;
    }
    if (!std::isfinite(value)) {
      i = std::max(i, end);
      continue;
    }
    Quantity q;
    q.text = std::string(text.substr(start, end - start));
    double half = 0.5 * std::pow(10.0, exponent - decimals);
    q.values.push_back(value);
    q.half_steps.push_back(half);
    if (unit != nullptr) {
      for (double s : unit->scales) {
        if (!std::isfinite(value * s)) continue;
        q.values.push_back(value * s);
        q.half_steps.push_back(half * s);
      }
    }
    q.offset = start;
    out.push_back(std::move(q));
    i = end;
  }
  return out;
}

void QuantityIndex::Add(std::string_view text) {
  for (const Quantity& q : ExtractQuantities(text)) {
    values_.insert(values_.end(), q.values.begin(), q.values.end());
  }
  sorted_ = false;
}

void QuantityIndex::Sort() const {
  if (sorted_) return;
  std::sort(values_.begin(), values_.end());
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
  sorted_ = true;
}

bool QuantityIndex::Supports(const Quantity& q) const {
  Sort();
  for (size_t k = 0; k < q.values.size(); ++k) {
    double v = q.values[k];
    double tol = std::max(q.half_steps[k], std::abs(v) * 1e-12);
    auto it = std::lower_bound(values_.begin(), values_.end(), v - tol);
    if (it != values_.end() && *it <= v + tol) return true;
  }
  return false;
}

bool ClaimHasMeasuredTopic(std::string_view claim) {
  std::string lower(claim);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* kWords[] = {
      "shared",  "smem",     "memory",    "register",   "regs",   "occupancy", "throughput",
      "tflop",   "gb/s",     "bandwidth", "latency",    "time",   "error",     "err ",
      "toleran", "rtol",     "atol",      "mismatch",   "spill",  "byte",      "kib",
      "kb",      " ms",      " us",       "speed",      "slower", "faster",    "%",
      "regress", "duration", "warps",     "blocks per", "cycles", "flops",     "seconds",
  };
  for (const char* w : kWords) {
    if (lower.find(w) != std::string::npos) return true;
  }
  return false;
}

}  // namespace av
