#include "sweep/numerics_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "sweep/numerics_report.h"

namespace av {
namespace {

using nlohmann::json;

std::string Str(const json& doc, const json::json_pointer& p) {
  return doc.contains(p) && doc[p].is_string() ? doc[p].get<std::string>() : "";
}

int64_t Int(const json& doc, const json::json_pointer& p, int64_t fallback) {
  return doc.contains(p) && doc[p].is_number_integer() ? doc[p].get<int64_t>() : fallback;
}

}  // namespace

Result<MergedNumerics> MergeNumericsShards(const std::vector<NumericsShard>& shards,
                                           bool allow_missing, const std::string& command) {
  if (shards.empty()) return InvalidInput("merge needs at least one shard file");
  MergedNumerics out;
  const json& first = shards.front().doc;
  const std::string& first_path = shards.front().path;
  const json::json_pointer kShapes("/config/shapes_sha256"), kTol("/config/tolerances_sha256"),
      kCount("/shard/count"), kIndex("/shard/index"), kFilter("/filter"),
      kCmd("/config/candidate_command"), kGen("/config/input_generator");
  std::map<int64_t, std::string> by_index;
  std::map<std::string, std::string> owner;  // case id -> shard path
  std::vector<json> cases, invariance;
  json merged_from = json::array();
  const int64_t count = Int(first, kCount, 1);
  for (const NumericsShard& s : shards) {
    const json& d = s.doc;
    if (!d.is_object() || d.value("schema", "") != kNumericsJsonSchema) {
      return InvalidInput(s.path + ": not a numerics.json (\"schema\" must be \"" +
                          std::string(kNumericsJsonSchema) + "\")");
    }
    for (const auto& [ptr, what] : {std::pair{kShapes, "shapes.json"}, {kTol, "tolerances.json"}}) {
      if (Str(d, ptr) != Str(first, ptr)) {
        return InvalidInput(s.path + ": was run with another " + what + " than " + first_path +
                            " (sha256 " + Str(d, ptr).substr(0, 12) + " vs " +
                            Str(first, ptr).substr(0, 12) +
                            "): shards must come from the same configuration");
      }
    }
    if (Str(d, kGen) != Str(first, kGen)) {
      return InvalidInput(s.path + ": inputs came from generator \"" + Str(d, kGen) + "\", " +
                          first_path + "'s from \"" + Str(first, kGen) +
                          "\" (run every shard with the same attnverify)");
    }
    if (Int(d, kCount, 1) != count) {
      return InvalidInput(s.path + ": is a shard of " + std::to_string(Int(d, kCount, 1)) + ", " +
                          first_path + " of " + std::to_string(count) +
                          " (--shard i/N must use the same N)");
    }
    if (Str(d, kFilter) != Str(first, kFilter)) {
      return InvalidInput(s.path + ": ran with --filter \"" + Str(d, kFilter) + "\", " +
                          first_path + " with \"" + Str(first, kFilter) + "\"");
    }
    if (Str(d, kCmd) != Str(first, kCmd)) {
      out.warnings.push_back(s.path + ": candidate command \"" + Str(d, kCmd) + "\" differs from " +
                             first_path + "'s \"" + Str(first, kCmd) + "\"");
    }
    const int64_t index = Int(d, kIndex, 0);
    auto [it, fresh] = by_index.emplace(index, s.path);
    if (!fresh) {
      return InvalidInput(s.path + " and " + it->second + " are both shard " +
                          std::to_string(index) + "/" + std::to_string(count));
    }
    merged_from.push_back(
        json{{"path", s.path}, {"sha256", s.sha256}, {"index", index}, {"count", count}});
    if (d.contains("cases") && d["cases"].is_array()) {
      for (const json& c : d["cases"]) {
        std::string id = c.value("id", "");
        auto [o, added] = owner.emplace(id, s.path);
        if (!added)
          return InvalidInput("case " + id + " is in both " + o->second + " and " + s.path);
        cases.push_back(c);
      }
    }
    if (d.contains("invariance") && d["invariance"].is_array()) {
      for (const json& r : d["invariance"]) invariance.push_back(r);
    }
  }
  json missing = json::array();
  for (int64_t i = 0; i < count; ++i) {
    if (!by_index.count(i)) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string list;
    for (const json& m : missing) {
      list += (list.empty() ? "" : ", ") + std::to_string(m.get<int64_t>()) + "/" +
              std::to_string(count);
    }
    std::string what = "shard(s) " + list + " missing: run `attnverify numerics --shard I/" +
                       std::to_string(count) + "` for each and merge again";
    if (!allow_missing)
      return InvalidInput(what + " (or pass --allow-missing for a partial result)");
    out.warnings.push_back(what + "; the merged result is partial");
  }
  // Expansion order, as an unsharded run writes it.
  std::stable_sort(cases.begin(), cases.end(), [](const json& a, const json& b) {
    return a.value("index", int64_t{0}) < b.value("index", int64_t{0});
  });
  std::map<std::string, int64_t> position;
  for (size_t i = 0; i < cases.size(); ++i)
    position[cases[i].value("id", "")] = static_cast<int64_t>(i);
  std::stable_sort(invariance.begin(), invariance.end(), [&](const json& a, const json& b) {
    return position[a.value("group", "")] < position[b.value("group", "")];
  });
  const int64_t total = Int(first, json::json_pointer("/summary/cases_total"), 0);
  if (missing.empty() && Str(first, kFilter).empty() &&
      static_cast<int64_t>(cases.size()) != total) {
    return InvalidInput("the shards hold " + std::to_string(cases.size()) +
                        " cases, their configuration expands to " + std::to_string(total) +
                        ": were they run with the same attnverify version?");
  }
  int64_t passed = 0;
  for (const json& c : cases) {
    passed += c.value("verdict", "") == "pass";
  }
  std::map<std::string, std::map<std::string, int64_t>> counts;
  for (const json& r : invariance) ++counts[r.value("check", "")][r.value("verdict", "")];
  double wall_max = 0, wall_sum = 0;
  for (const NumericsShard& s : shards) {
    double w = s.doc.contains("summary") ? s.doc["summary"].value("wall_ms", 0.0) : 0.0;
    wall_max = std::max(wall_max, w);
    wall_sum += w;
  }
  const int64_t failed = static_cast<int64_t>(cases.size()) - passed;
  json doc = first;
  doc["command"] = command;
  doc["shard"] =
      json{{"index", 0}, {"count", 1}, {"merged_from", merged_from}, {"missing", missing}};
  doc["summary"] = json{{"cases_total", total},
                        {"cases_run", cases.size()},
                        {"passed", passed},
                        {"failed", failed},
                        {"wall_ms", wall_max},
                        {"wall_ms_sum", wall_sum},
                        {"time_ms", NumericsTimeSummary(json(cases))},
                        {"invariance", json(counts)}};
  doc["verdict"] = failed == 0 && missing.empty() ? "pass" : "fail";
  doc["cases"] = cases;
  doc["invariance"] = invariance;
  out.doc = std::move(doc);
  return out;
}

}  // namespace av
