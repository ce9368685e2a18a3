#include "sweep/shapes_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file.h"
#include "sweep/case_constraints.h"
#include "sweep/invariance.h"
#include "sweep/json_config.h"

namespace av {
namespace {

using nlohmann::json;

// Reads one shapes.json, remembering the file name for messages.
class ShapesReader : public JsonConfigReader {
 public:
  using JsonConfigReader::JsonConfigReader;

  Status Param(const SweepOp& op, const std::string& key, const json& value,
               const std::string& where) const {
    const ParamSpec* spec = FindParam(op, key);
    if (spec == nullptr) {
      std::string list;
      for (const ParamSpec& p : op.params) list += (list.empty() ? "" : ", ") + std::string(p.name);
      return Error(where, "unknown parameter \"" + key + "\" for op " + std::string(op.name) +
                              " (parameters: " + list + ")");
    }
    std::string problem = CheckParamValue(*spec, value);
    if (!problem.empty()) return Error(where, "\"" + key + "\" " + problem);
    return Status::Ok();
  }

  Status Params(const SweepOp& op, const json& object, const std::string& where,
                ParamMap* out) const {
    if (!object.is_object()) return Error(where, "must be an object of parameters");
    for (const auto& [key, value] : object.items()) {
      AV_RETURN_IF_ERROR(Param(op, key, value, where + "." + key));
      (*out)[key] = *ParamValueFromJson(value);  // a scalar: Param checked its type
    }
    return Status::Ok();
  }

  Status Sweep(const json& s, const std::string& where, SweepSpec* sweep) const {
    if (!s.is_object()) return Error(where, "must be an object");
    AV_RETURN_IF_ERROR(CheckKeys(s, where,
                                 {"comment", "name", "op", "grid", "fixed", "cases", "dtypes",
                                  "seeds", "generators", "invariance", "tile"}));
    sweep->json_path = where;
    if (!s.contains("name") || !s["name"].is_string() || s["name"].get<std::string>().empty()) {
      return Error(where, "needs a \"name\" (a non-empty string)");
    }
    sweep->name = s["name"].get<std::string>();
    for (char c : sweep->name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
        return Error(where + ".name",
                     "must use only letters, digits, '_' and '-', got \"" + sweep->name + "\"");
      }
    }
    if (!s.contains("op") || !s["op"].is_string())
      return Error(where, "needs an \"op\" (a string)");
    sweep->op = s["op"].get<std::string>();
    const SweepOp* op = FindSweepOp(sweep->op);
    if (op == nullptr) {
      std::string list;
      for (const SweepOp& o : SweepOps()) list += (list.empty() ? "" : ", ") + std::string(o.name);
      return Error(where + ".op", "unknown op \"" + sweep->op + "\" (ops: " + list + ")");
    }
    if (s.contains("fixed"))
      AV_RETURN_IF_ERROR(Params(*op, s["fixed"], where + ".fixed", &sweep->fixed));
    if (s.contains("grid")) {
      const json& g = s["grid"];
      if (!g.is_object()) return Error(where + ".grid", "must be an object of parameter lists");
      for (const auto& [key, values] : g.items()) {
        std::string at = where + ".grid." + key;
        if (!values.is_array() || values.empty())
          return Error(at, "must be a non-empty list of values");
        if (sweep->fixed.count(key)) return Error(at, "\"" + key + "\" is also in \"fixed\"");
        std::vector<ParamValue> list;
        for (size_t i = 0; i < values.size(); ++i) {
          AV_RETURN_IF_ERROR(Param(*op, key, values[i], at + "[" + std::to_string(i) + "]"));
          list.push_back(*ParamValueFromJson(values[i]));
        }
        sweep->grid.emplace_back(key, std::move(list));
      }
    }
    if (s.contains("cases")) {
      const json& c = s["cases"];
      if (!c.is_array()) return Error(where + ".cases", "must be a list of parameter objects");
      for (size_t i = 0; i < c.size(); ++i) {
        ParamMap m;
        AV_RETURN_IF_ERROR(Params(*op, c[i], where + ".cases[" + std::to_string(i) + "]", &m));
        sweep->cases.push_back(std::move(m));
      }
    }
    if (s.contains("dtypes")) {
      const json& d = s["dtypes"];
      if (!d.is_array() || d.empty())
        return Error(where + ".dtypes", "must be a non-empty list of dtype names");
      for (size_t i = 0; i < d.size(); ++i) {
        std::string at = where + ".dtypes[" + std::to_string(i) + "]";
        std::optional<DType> dt =
            d[i].is_string() ? ParseDTypeName(d[i].get<std::string>()) : std::nullopt;
        bool allowed = false;
        std::string list;
        for (DType a : op->dtypes) {
          if (dt && *dt == a) allowed = true;
          list += (list.empty() ? "" : ", ") + std::string(DTypeName(a));
        }
        if (!allowed) {
          return Error(at, "op " + sweep->op + " takes dtypes " + list + ", got " + d[i].dump());
        }
        sweep->dtypes.push_back(*dt);
      }
    } else {
      sweep->dtypes.push_back(op->dtypes.front());
    }
    if (s.contains("seeds")) {
      const json& d = s["seeds"];
      if (!d.is_array() || d.empty())
        return Error(where + ".seeds", "must be a non-empty list of integers >= 0");
      for (size_t i = 0; i < d.size(); ++i) {
        if (!d[i].is_number_unsigned()) {
          return Error(where + ".seeds[" + std::to_string(i) + "]",
                       "must be an integer >= 0, got " + d[i].dump());
        }
        sweep->seeds.push_back(d[i].get<uint64_t>());
      }
    } else {
      sweep->seeds.push_back(0);
    }
    if (s.contains("generators")) {
      const json& d = s["generators"];
      std::string at = where + ".generators";
      if (!d.is_array() || d.empty())
        return Error(at, "must be a non-empty list of generator names");
      if (sweep->fixed.count("generator") ||
          std::any_of(sweep->grid.begin(), sweep->grid.end(),
                      [](const auto& g) { return g.first == "generator"; })) {
        return Error(at, "\"generators\" and a \"generator\" parameter cannot both be given");
      }
      for (size_t i = 0; i < d.size(); ++i) {
        AV_RETURN_IF_ERROR(Param(*op, "generator", d[i], at + "[" + std::to_string(i) + "]"));
        sweep->generators.push_back(d[i].get<std::string>());
      }
    }
    if (s.contains("invariance"))
      AV_RETURN_IF_ERROR(Invariance(*op, s["invariance"], where + ".invariance", sweep));
    if (s.contains("tile")) AV_RETURN_IF_ERROR(Tile(*op, s["tile"], where + ".tile", &sweep->tile));
    return Status::Ok();
  }

  // {"rows": R, "keys": K} for attention ops, {"m": M, "n": N} for GEMMs.
  Status Tile(const SweepOp& op, const json& v, const std::string& where, TileSpec* tile) const {
    if (!v.is_object()) return Error(where, "must be an object of tile sizes");
    const bool gemm = op.name == "gemm" || op.name == "fp8_gemm";
    AV_RETURN_IF_ERROR(gemm ? CheckKeys(v, where, {"comment", "m", "n"})
                            : CheckKeys(v, where, {"comment", "rows", "keys"}));
    for (auto [key, out] : {std::pair<const char*, int64_t*>{"rows", &tile->rows},
                            {"keys", &tile->keys},
                            {"m", &tile->m},
                            {"n", &tile->n}}) {
      if (v.contains(key)) AV_RETURN_IF_ERROR(Count(v[key], where + "." + key, 1, 65536, out));
    }
    return Status::Ok();
  }

  Status Count(const json& v, const std::string& at, int64_t lo, int64_t hi, int64_t* out) const {
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
      return Error(at, "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                           ", got " + v.dump());
    }
    *out = v.get<int64_t>();
    return Status::Ok();
  }

  Status Flag(const json& v, const std::string& at, bool* out) const {
    if (!v.is_boolean()) return Error(at, "must be true or false, got " + v.dump());
    *out = v.get<bool>();
    return Status::Ok();
  }

  Status Invariance(const SweepOp& op, const json& v, const std::string& where,
                    SweepSpec* sweep) const {
    if (!v.is_object()) return Error(where, "must be an object");
    AV_RETURN_IF_ERROR(CheckKeys(v, where,
                                 {"comment", "num_splits", "reruns", "batch_permutation",
                                  "page_table_permutation", "seeds"}));
    InvarianceSpec& inv = sweep->invariance;
    if (v.contains("num_splits")) {
      const json& n = v["num_splits"];
      if (!n.is_array() || n.empty())
        return Error(where + ".num_splits", "must be a non-empty list of integers >= 1");
      for (size_t i = 0; i < n.size(); ++i) {
        int64_t x = 0;
        std::string at = where + ".num_splits[" + std::to_string(i) + "]";
        AV_RETURN_IF_ERROR(Count(n[i], at, 1, 4096, &x));
        if (std::find(inv.num_splits.begin(), inv.num_splits.end(), x) != inv.num_splits.end()) {
          return Error(at, std::to_string(x) + " is listed twice");
        }
        inv.num_splits.push_back(x);
      }
    }
    if (v.contains("reruns"))
      AV_RETURN_IF_ERROR(Count(v["reruns"], where + ".reruns", 0, 100, &inv.reruns));
    if (v.contains("seeds"))
      AV_RETURN_IF_ERROR(Count(v["seeds"], where + ".seeds", 1, 100, &inv.seeds));
    if (v.contains("batch_permutation")) {
      AV_RETURN_IF_ERROR(
          Flag(v["batch_permutation"], where + ".batch_permutation", &inv.batch_permutation));
      if (inv.batch_permutation && op.name == "sparse_attention") {
        return Error(where + ".batch_permutation", "op sparse_attention has no batch to permute");
      }
    }
    if (v.contains("page_table_permutation")) {
      AV_RETURN_IF_ERROR(Flag(v["page_table_permutation"], where + ".page_table_permutation",
                              &inv.page_table_permutation));
      if (inv.page_table_permutation && op.name != "mla_decode" && op.name != "attention") {
        return Error(where + ".page_table_permutation",
                     "op " + std::string(op.name) + " has no page table");
      }
    }
    return Status::Ok();
  }
};

std::string FormatValue(const ParamValue& v) {
  if (v.is_bool()) return v.AsBool() ? "true" : "false";
  if (v.is_string()) return v.AsString();
  if (v.is_integer()) return ParamValueToJson(v).dump();
  if (v.is_null()) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v.AsDouble());
  // Shortest form that round-trips, e.g. 30 rather than 30.000000000000000.
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v.AsDouble());
    if (std::strtod(buf, nullptr) == v.AsDouble()) break;
  }
  return buf;
}

}  // namespace

Result<ShapesConfig> ParseShapesConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseJsonConfig(text, path));
  ShapesReader reader(path);
  if (!doc.is_object())
    return reader.Error("$", "must be an object with \"version\" and \"sweeps\"");
  AV_RETURN_IF_ERROR(reader.CheckKeys(doc, "$", {"comment", "version", "sweeps"}));
  AV_RETURN_IF_ERROR(reader.CheckVersion(doc, 1));
  if (!doc.contains("sweeps") || !doc["sweeps"].is_array()) {
    return reader.Error("$.sweeps", "must be a list of sweeps");
  }
  ShapesConfig config;
  config.path = path;
  std::set<std::string> names;
  for (size_t i = 0; i < doc["sweeps"].size(); ++i) {
    std::string where = "$.sweeps[" + std::to_string(i) + "]";
    SweepSpec sweep;
    AV_RETURN_IF_ERROR(reader.Sweep(doc["sweeps"][i], where, &sweep));
    if (!names.insert(sweep.name).second) {
      return reader.Error(where + ".name", "sweep name \"" + sweep.name + "\" is used twice");
    }
    config.sweeps.push_back(std::move(sweep));
  }
  return config;
}

Result<ShapesConfig> LoadShapesConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseShapesConfig(text, path);
}

std::string CaseId(const std::string& sweep, const ParamMap& params,
                   const std::vector<std::string>& varied, DType dtype, uint64_t seed) {
  std::string id = sweep;
  std::set<std::string> keys(varied.begin(), varied.end());
  for (const std::string& key : keys) {
    auto it = params.find(key);
    if (it == params.end()) continue;
    id += "." + key + "=" + FormatValue(it->second);
  }
  id += '.';
  id += DTypeName(dtype);
  id += ".s";
  id += std::to_string(seed);
  for (char& c : id) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '=' ||
              c == '+' || c == '-';
    if (!ok) c = '_';
  }
  return id;
}

Result<std::vector<CaseSpec>> ExpandCases(const ShapesConfig& config) {
  std::vector<CaseSpec> out;
  std::set<std::string> ids;
  int64_t group_index = 0;
  for (const SweepSpec& sweep : config.sweeps) {
    // Points: (params, varied keys).
    std::vector<std::pair<ParamMap, std::vector<std::string>>> points;
    std::vector<std::string> grid_keys;
    for (const auto& [key, values] : sweep.grid) grid_keys.push_back(key);
    if (!sweep.grid.empty() || sweep.cases.empty()) {
      int64_t total = 1;
      for (const auto& [key, values] : sweep.grid) {
        total *= static_cast<int64_t>(values.size());
        if (total > kMaxCases) {
          return InvalidInput(config.path + ": " + sweep.json_path +
                              ".grid: the grid has more than " + std::to_string(kMaxCases) +
                              " points");
        }
      }
      for (int64_t i = 0; i < total; ++i) {  // last key varies fastest
        ParamMap p = sweep.fixed;
        int64_t rest = i;
        for (size_t g = sweep.grid.size(); g-- > 0;) {
          const auto& values = sweep.grid[g].second;
          p[sweep.grid[g].first] =
              values[static_cast<size_t>(rest % static_cast<int64_t>(values.size()))];
          rest /= static_cast<int64_t>(values.size());
        }
        points.emplace_back(std::move(p), grid_keys);
      }
    }
    for (const ParamMap& c : sweep.cases) {
      ParamMap p = sweep.fixed;
      std::vector<std::string> varied;
      for (const auto& [key, value] : c) {
        p[key] = value;
        varied.push_back(key);
      }
      points.emplace_back(std::move(p), std::move(varied));
    }
    std::vector<std::string> generators = sweep.generators;
    if (generators.empty()) generators.push_back("");
    for (const auto& [params, varied] : points) {
      for (const std::string& gen : generators) {
        ParamMap p = params;
        std::vector<std::string> v = varied;
        if (!gen.empty()) {
          p["generator"] = gen;
          if (sweep.generators.size() > 1) v.push_back("generator");
        }
        for (DType dtype : sweep.dtypes) {
          for (uint64_t seed : sweep.seeds) {
            if (static_cast<int64_t>(out.size()) >= kMaxCases) {
              return InvalidInput(config.path + ": " + sweep.json_path +
                                  ": the sweeps expand to more than " + std::to_string(kMaxCases) +
                                  " cases");
            }
            CaseSpec c;
            c.id = CaseId(sweep.name, p, v, dtype, seed);
            c.sweep = sweep.name;
            c.op = sweep.op;
            c.params = p;
            c.dtype = dtype;
            c.seed = seed;
            c.index = static_cast<int64_t>(out.size());
            c.tile = sweep.tile;
            if (!ids.insert(c.id).second) {
              return InvalidInput(config.path + ": " + sweep.json_path + ": case " + c.id +
                                  " is generated twice (an explicit case repeats a grid point?)");
            }
            Status st = CheckCaseConstraints(c);
            if (!st.ok()) {
              return InvalidInput(config.path + ": " + sweep.json_path + ": case " + c.id + ": " +
                                  st.message());
            }
            c.group_index = group_index++;
            AV_ASSIGN_OR_RETURN(std::vector<CaseSpec> variants, ExpandVariants(sweep, c));
            out.push_back(std::move(c));
            for (CaseSpec& v : variants) {
              v.index = static_cast<int64_t>(out.size());
              if (!ids.insert(v.id).second) {
                return InvalidInput(config.path + ": " + sweep.json_path + ": case " + v.id +
                                    " is generated twice");
              }
              out.push_back(std::move(v));
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace av
