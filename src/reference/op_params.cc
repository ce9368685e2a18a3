#include "reference/op_params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace av {

Status OpParams::CheckOnly(const std::set<std::string>& accepted, const std::string& op) const {
  for (const auto& [key, value] : values_) {
    if (accepted.count(key)) continue;
    std::string list;
    for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + a;
    return InvalidInput("parameter \"" + key + "\" does not apply to " + op +
                        " (it takes: " + (list.empty() ? "none" : list) + ")");
  }
  return Status::Ok();
}

Result<bool> OpParams::Bool(const std::string& key, bool fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  return InvalidInput("parameter " + key + ": expected true or false, got \"" + it->second + "\"");
}

Result<std::optional<int64_t>> OpParams::OptionalInt(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::optional<int64_t>();
  const std::string& s = it->second;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE) {
    return InvalidInput("parameter " + key + ": expected an integer, got \"" + s + "\"");
  }
  return std::optional<int64_t>(v);
}

Result<int64_t> OpParams::Int(const std::string& key, int64_t fallback) const {
  AV_ASSIGN_OR_RETURN(std::optional<int64_t> v, OptionalInt(key));
  return v.value_or(fallback);
}

Result<std::optional<double>> OpParams::OptionalDouble(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::optional<double>();
  const std::string& s = it->second;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    return InvalidInput("parameter " + key + ": expected a finite number, got \"" + s + "\"");
  }
  return std::optional<double>(v);
}

Result<double> OpParams::Double(const std::string& key, double fallback) const {
  AV_ASSIGN_OR_RETURN(std::optional<double> v, OptionalDouble(key));
  return v.value_or(fallback);
}

std::string OpParams::String(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

}  // namespace av
