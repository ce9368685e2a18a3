// ParamValue: the value of one case parameter (shapes.json "fixed", "grid", "cases", a
// variant's knobs): null, a boolean, an integer, a number or a string, kept as the type it
// was written with, so case.json, numerics.json and case ids show it as written. JSON
// stays at the edges: values are converted from it where shapes.json is parsed and to it
// where case.json, cases.json and numerics.json are written. A plain value; any thread.
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>

namespace av {

class ParamValue {
 public:
  ParamValue() = default;        // null: what a map's operator[] makes before the assignment
  ParamValue(bool v) : v_(v) {}  // NOLINT: implicit, as the literals of a ParamMap
  template <std::integral T>
  requires(!std::same_as<T, bool>) ParamValue(T v) {  // NOLINT
    if constexpr (std::is_signed_v<T>) {
      v_ = static_cast<int64_t>(v);
    } else if (static_cast<uint64_t>(v) <= static_cast<uint64_t>(INT64_MAX)) {
      v_ = static_cast<int64_t>(v);
    } else {
      v_ = static_cast<uint64_t>(v);
    }
  }
  ParamValue(double v) : v_(v) {}                    // NOLINT
  ParamValue(const char* v) : v_(std::string(v)) {}  // NOLINT: not the bool conversion
  ParamValue(std::string v) : v_(std::move(v)) {}    // NOLINT

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  // An integer as written (1, not 1.0); past INT64_MAX it is held unsigned.
  bool is_integer() const {
    return std::holds_alternative<int64_t>(v_) || std::holds_alternative<uint64_t>(v_);
  }
  bool is_number() const { return is_integer() || std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }

  // The value as that type; a number converts as a static_cast would (values are
  // checked against the op's ParamSpec when shapes.json is read). CHECK-fails on a
  // non-number / non-bool / non-string.
  int64_t AsInt() const;
  uint64_t AsUnsigned() const;
  double AsDouble() const;
  bool AsBool() const;
  const std::string& AsString() const;

  // As JSON compares: numbers by value (1 == 1.0), anything else by type and value.
  friend bool operator==(const ParamValue& a, const ParamValue& b);
  friend nlohmann::json ParamValueToJson(const ParamValue& v);

 private:
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string> v_;
};

// A case's parameters by name (sorted, as JSON objects are written).
using ParamMap = std::map<std::string, ParamValue>;

// The JSON edges. FromJson: nullopt for an array or object (no parameter is one).
nlohmann::json ParamValueToJson(const ParamValue& v);
nlohmann::json ParamMapToJson(const ParamMap& m);  // always an object
std::optional<ParamValue> ParamValueFromJson(const nlohmann::json& j);

}  // namespace av
