// JsonValue: a JSON value held by a struct whose header must not include nlohmann's full
// json.hpp ("JSON stays at the edges"): free-form parts of evidence (a case's shapes.json
// parameters, its knobs) that attnverify passes along without a schema of their own.
// Copyable; a default JsonValue holds null. Only .cc files that include json.hpp can look
// inside. Not thread-safe for writes, like any value.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>

namespace av {

class JsonValue {
 public:
  JsonValue();
  JsonValue(const nlohmann::json& value);  // NOLINT: implicit by design
  JsonValue(nlohmann::json&& value);       // NOLINT: implicit by design
  JsonValue(const JsonValue& other);
  JsonValue(JsonValue&& other) noexcept;
  JsonValue& operator=(const JsonValue& other);
  JsonValue& operator=(JsonValue&& other) noexcept;
  ~JsonValue();

  const nlohmann::json& get() const;
  nlohmann::json& get();
  const nlohmann::json& operator*() const { return get(); }
  const nlohmann::json* operator->() const { return &get(); }
  nlohmann::json* operator->() { return &get(); }

 private:
  std::unique_ptr<nlohmann::json> value_;  // null after a move: reads as JSON null
};

bool operator==(const JsonValue& a, const JsonValue& b);

}  // namespace av
