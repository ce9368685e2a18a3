#include "sweep/tolerances_config.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file.h"
#include "sweep/json_config.h"
#include "sweep/op_schema.h"

namespace av {
namespace {

using nlohmann::json;

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

class TolerancesReader : public JsonConfigReader {
 public:
  using JsonConfigReader::JsonConfigReader;

  Result<double> Tolerance(const json& v, const std::string& where) const {
    if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>())) {
      return Error(where, "must be a finite number >= 0, got " + v.dump());
    }
    return v.get<double>();
  }

  Result<ToleranceEntry> Entry(const json& e, const std::string& where) const {
    if (!e.is_object()) return Error(where, "must be an object with a \"rule\"");
    AV_RETURN_IF_ERROR(CheckKeys(
        e, where,
        {"comment", "rule", "atol", "rtol", "cos_tol", "k", "row_rel_l2", "allow_nan", "equal_nan"}));
    ToleranceEntry entry;
    entry.json_path = where;
    if (!e.contains("rule") || !e["rule"].is_string())
      return Error(where, "needs a \"rule\" (" + AllRuleNames() + ")");
    auto kind = ParseRuleName(e["rule"].get<std::string>());
    if (!kind)
      return Error(where + ".rule",
                   "unknown rule " + e["rule"].dump() + " (rules: " + AllRuleNames() + ")");
    entry.request.kind = *kind;
    // Each rule reads only some tolerances; any other is a mistake worth reporting.
    std::set<std::string> takes;
    switch (*kind) {
      case RuleKind::kAllclose:
        takes = {"atol", "rtol"};
        break;
      case RuleKind::kFlashMla:
        takes = {"atol", "rtol", "cos_tol"};
        break;
      case RuleKind::kCosDiff:
        takes = {"cos_tol", "row_rel_l2"};
        break;
      case RuleKind::kLowprecMultiple:
        takes = {"k", "atol"};
        break;
      case RuleKind::kExact:
        break;
    }
    for (const char* key : {"atol", "rtol", "cos_tol", "k", "row_rel_l2"}) {
      if (!e.contains(key)) continue;
      if (!takes.count(key)) {
        return Error(where + "." + key,
                     "rule " + e["rule"].get<std::string>() + " does not use \"" + key + "\"" +
                         (takes.empty() ? "" : " (it uses: " + Join(takes) + ")"));
      }
      AV_ASSIGN_OR_RETURN(double v, Tolerance(e[key], where + "." + key));
      std::string k = key;
      if (k == "atol") entry.request.atol = v;
      if (k == "rtol") entry.request.rtol = v;
      if (k == "cos_tol") entry.request.cos_tol = v;
      if (k == "k") entry.request.k = v;
      if (k == "row_rel_l2") entry.request.row_rel_l2 = v;
    }
    for (const char* key : {"allow_nan", "equal_nan"}) {
      if (!e.contains(key)) continue;
      if (!e[key].is_boolean())
        return Error(where + "." + key, "must be true or false, got " + e[key].dump());
      (std::string(key) == "allow_nan" ? entry.request.allow_nan : entry.request.equal_nan) =
          e[key].get<bool>();
    }
    return entry;
  }
};

}  // namespace

Result<TolerancesConfig> ParseTolerancesConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseJsonConfig(text, path));
  TolerancesReader reader(path);
  if (!doc.is_object()) return reader.Error("$", "must be an object with \"version\" and \"ops\"");
  AV_RETURN_IF_ERROR(reader.CheckKeys(doc, "$", {"comment", "version", "ops"}));
  AV_RETURN_IF_ERROR(reader.CheckVersion(doc, 1));
  if (!doc.contains("ops") || !doc["ops"].is_object())
    return reader.Error("$.ops", "must be an object keyed by op");
  TolerancesConfig config;
  config.path = path;
  for (const auto& [op_name, outputs] : doc["ops"].items()) {
    std::string where = "$.ops." + op_name;
    const SweepOp* op = FindSweepOp(op_name);
    if (op == nullptr) {
      std::set<std::string> names;
      for (const SweepOp& o : SweepOps()) names.insert(std::string(o.name));
      return reader.Error(where, "unknown op \"" + op_name + "\" (ops: " + Join(names) + ")");
    }
    if (!outputs.is_object()) return reader.Error(where, "must be an object keyed by output name");
    std::set<std::string> known(op->outputs.begin(), op->outputs.end());
    for (const auto& [out_name, by_dtype] : outputs.items()) {
      std::string at = where + "." + out_name;
      if (out_name == "comment") continue;
      if (!known.count(out_name)) {
        return reader.Error(at, "op " + op_name + " has no output \"" + out_name +
                                    "\" (outputs: " + Join(known) + ")");
      }
      if (!by_dtype.is_object() || by_dtype.empty()) {
        return reader.Error(at, "must be an object keyed by dtype name or \"*\"");
      }
      for (const auto& [dtype_name, entry] : by_dtype.items()) {
        std::string key = dtype_name;
        if (key != "*") {
          auto dt = ParseDTypeName(key);
          if (!dt)
            return reader.Error(
                at, "unknown dtype \"" + key + "\" (a dtype name such as bf16, or \"*\")");
          key = std::string(DTypeName(*dt));
        }
        AV_ASSIGN_OR_RETURN(ToleranceEntry e, reader.Entry(entry, at + "." + dtype_name));
        config.ops[op_name][out_name][key] = std::move(e);
      }
    }
  }
  return config;
}

Result<TolerancesConfig> LoadTolerancesConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseTolerancesConfig(text, path);
}

const ToleranceEntry* FindTolerance(const TolerancesConfig& config, const std::string& op,
                                    const std::string& output, DType dtype) {
  auto o = config.ops.find(op);
  if (o == config.ops.end()) return nullptr;
  auto out = o->second.find(output);
  if (out == o->second.end()) return nullptr;
  auto it = out->second.find(std::string(DTypeName(dtype)));
  if (it == out->second.end()) it = out->second.find("*");
  return it == out->second.end() ? nullptr : &it->second;
}

Status CheckTolerancesCover(const TolerancesConfig& config, const std::vector<CaseSpec>& cases) {
  std::set<std::string> checked;
  for (const CaseSpec& c : cases) {
    std::string key = c.op + "/" + std::string(DTypeName(c.dtype));
    if (!checked.insert(key).second) continue;
    const SweepOp* op = FindSweepOp(c.op);
    for (std::string_view out : op->outputs) {
      const ToleranceEntry* e = FindTolerance(config, c.op, std::string(out), c.dtype);
      if (e == nullptr) {
        return InvalidInput(config.path + ": $.ops." + c.op + "." + std::string(out) +
                            ": no rule for dtype " + std::string(DTypeName(c.dtype)) +
                            " (needed by case " + c.id + ")");
      }
      if (e->request.kind == RuleKind::kLowprecMultiple &&
          (!(c.op == "attention" || c.op == "mla_decode") ||
           !(c.dtype == DType::kBF16 || c.dtype == DType::kF16))) {
        return InvalidInput(
            config.path + ": " + e->json_path +
            ": lowprec_multiple needs the low-precision reference, which covers attention and "
            "mla_decode in bf16 or f16 only (case " +
            c.id + ")");
      }
    }
  }
  return Status::Ok();
}

}  // namespace av
