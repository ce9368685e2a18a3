// Named, typed parameters of a reference op, given as strings (command-line flags or a
// safetensors __metadata__ map). Each op names the keys it accepts; a key it does not
// accept, or a value that does not parse, is an InvalidInput naming the key.
// Plain value type; use from one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/status.h"

namespace av {

class OpParams {
 public:
  OpParams() = default;
  explicit OpParams(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  void Set(const std::string& key, const std::string& value) { values_[key] = value; }
  bool Has(const std::string& key) const { return values_.count(key) != 0; }
  const std::map<std::string, std::string>& values() const { return values_; }

  // InvalidInput naming the first key not in `accepted` (and listing the accepted ones).
  Status CheckOnly(const std::set<std::string>& accepted, const std::string& op) const;

  // "true"/"false"/"1"/"0"; `fallback` when absent.
  Result<bool> Bool(const std::string& key, bool fallback) const;
  Result<int64_t> Int(const std::string& key, int64_t fallback) const;
  Result<std::optional<int64_t>> OptionalInt(const std::string& key) const;
  Result<double> Double(const std::string& key, double fallback) const;
  Result<std::optional<double>> OptionalDouble(const std::string& key) const;
  std::string String(const std::string& key, const std::string& fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace av
