#include "sweep/param_value.h"

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace av {
namespace {

template <class To>
To NumberAs(const std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string>& v,
            const char* want) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<To>(*i);
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return static_cast<To>(*u);
  if (const double* d = std::get_if<double>(&v)) return static_cast<To>(*d);
  CHECK(false) << "parameter value is not " << want;
  return To{};
}

}  // namespace

int64_t ParamValue::AsInt() const { return NumberAs<int64_t>(v_, "an integer"); }
uint64_t ParamValue::AsUnsigned() const { return NumberAs<uint64_t>(v_, "an integer"); }
double ParamValue::AsDouble() const { return NumberAs<double>(v_, "a number"); }

bool ParamValue::AsBool() const {
  const bool* b = std::get_if<bool>(&v_);
  CHECK(b != nullptr) << "parameter value is not a boolean";
  return *b;
}

const std::string& ParamValue::AsString() const {
  const std::string* s = std::get_if<std::string>(&v_);
  CHECK(s != nullptr) << "parameter value is not a string";
  return *s;
}

bool operator==(const ParamValue& a, const ParamValue& b) {
  // nlohmann's number comparison (integers exactly, a float against either as double) is
  // the rule JSON readers of these files apply; one implementation of it.
  if (a.is_number() && b.is_number()) return ParamValueToJson(a) == ParamValueToJson(b);
  return a.v_ == b.v_;
}

nlohmann::json ParamValueToJson(const ParamValue& v) {
  if (const bool* b = std::get_if<bool>(&v.v_)) return *b;
  if (const int64_t* i = std::get_if<int64_t>(&v.v_)) return *i;
  if (const uint64_t* u = std::get_if<uint64_t>(&v.v_)) return *u;
  if (const double* d = std::get_if<double>(&v.v_)) return *d;
  if (const std::string* s = std::get_if<std::string>(&v.v_)) return *s;
  return nullptr;
}

nlohmann::json ParamMapToJson(const ParamMap& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : m) j[key] = ParamValueToJson(value);
  return j;
}

std::optional<ParamValue> ParamValueFromJson(const nlohmann::json& j) {
  if (j.is_null()) return ParamValue();
  if (j.is_boolean()) return ParamValue(j.get<bool>());
  if (j.is_number_unsigned()) return ParamValue(j.get<uint64_t>());
  if (j.is_number_integer()) return ParamValue(j.get<int64_t>());
  if (j.is_number_float()) return ParamValue(j.get<double>());
  if (j.is_string()) return ParamValue(j.get<std::string>());
  return std::nullopt;
}

}  // namespace av
