#include "core/json_value.h"

#include <nlohmann/json.hpp>

namespace av {

JsonValue::JsonValue() = default;
JsonValue::JsonValue(const nlohmann::json& value)
    : value_(std::make_unique<nlohmann::json>(value)) {}
JsonValue::JsonValue(nlohmann::json&& value)
    : value_(std::make_unique<nlohmann::json>(std::move(value))) {}
JsonValue::JsonValue(const JsonValue& other)
    : value_(other.value_ ? std::make_unique<nlohmann::json>(*other.value_) : nullptr) {}
JsonValue::JsonValue(JsonValue&& other) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue& other) {
  if (this != &other)
    value_ = other.value_ ? std::make_unique<nlohmann::json>(*other.value_) : nullptr;
  return *this;
}
JsonValue& JsonValue::operator=(JsonValue&& other) noexcept = default;
JsonValue::~JsonValue() = default;

const nlohmann::json& JsonValue::get() const {
  static const nlohmann::json kNull;
  return value_ ? *value_ : kNull;
}

nlohmann::json& JsonValue::get() {
  if (!value_) value_ = std::make_unique<nlohmann::json>();
  return *value_;
}

bool operator==(const JsonValue& a, const JsonValue& b) { return a.get() == b.get(); }

}  // namespace av
