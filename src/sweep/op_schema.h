// The ops a sweep can generate cases for, and the parameters each takes: name, type,
// default, range or choices. shapes.json is validated against this table (an unknown
// parameter is an error: a typo must not silently fall back to a default), and the input
// builders read parameters through it. Tables are constant; any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sweep/param_value.h"
#include "tensor/dtype.h"

namespace av {

enum class ParamType { kInt, kBool, kDouble, kString };

struct ParamSpec {
  std::string_view name;
  ParamType type;
  ParamValue fallback;      // default value
  int64_t min = INT64_MIN;  // kInt / kDouble bounds (inclusive)
  int64_t max = INT64_MAX;
  std::vector<std::string_view> choices;  // kString: the allowed values
  std::string_view help;
};

struct SweepOp {
  std::string_view name;  // also the reference op it is checked against
  std::vector<ParamSpec> params;
  std::vector<DType> dtypes;              // allowed input dtypes; the first is the default
  std::vector<std::string_view> outputs;  // outputs the candidate writes
};

std::span<const SweepOp> SweepOps();
const SweepOp* FindSweepOp(std::string_view name);
const ParamSpec* FindParam(const SweepOp& op, std::string_view name);

// "" when `value` (as shapes.json has it: any JSON) suits `spec`, else the problem ("must
// be an integer >= 0, got -3").
std::string CheckParamValue(const ParamSpec& spec, const nlohmann::json& value);

// Typed access with the op's default for absent keys (values were validated at load).
class CaseParams {
 public:
  CaseParams(const SweepOp& op, const ParamMap& values) : op_(op), values_(values) {}
  int64_t Int(std::string_view name) const;
  bool Bool(std::string_view name) const;
  double Double(std::string_view name) const;
  std::string String(std::string_view name) const;

 private:
  const ParamValue& Get(std::string_view name) const;
  const SweepOp& op_;
  const ParamMap& values_;
};

}  // namespace av
