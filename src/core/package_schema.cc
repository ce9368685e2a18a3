#include "core/package_schema.h"

#include <algorithm>

#include "core/toml_config.h"

namespace av {
namespace {

// Levenshtein distance, for "did you mean": names here are short (< 40 characters).
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The nearest of `names` within 2 edits (a third of the name at most), or "".
std::string_view Nearest(std::string_view name, const std::vector<std::string_view>& names) {
  std::string_view best;
  size_t best_d = std::min<size_t>(2, std::max<size_t>(1, name.size() / 3)) + 1;
  for (std::string_view n : names) {
    size_t d = Distance(name, n);
    if (d < best_d) best = n, best_d = d;
  }
  return best;
}

std::string Line(const std::string& path, const toml::source_region& src) {
  return path + ":" + std::to_string(src.begin.line);
}

}  // namespace

const std::vector<PackageTable>& PackageTables() {
  // Keys as each module's parser reads them; a key added to a parser is added here too
  // (package_schema_test.cc loads every config of the repository and init's template).
  static const std::vector<PackageTable> kTables = {
      {"slice", "review", "attnverify slice", {"repo", "base"}},
      {"components", "review", "attnverify slice", {}},
      {"review", "review", "attnverify review", {"reviewer", "disable"}},
      {"build",
       "compile",
       "attnverify build",
       {"root", "sources", "flags", "archs", "nvcc", "timeout_s", "block_size", "constants",
        "kernel", "gates", "base_setup"}},
      {"numerics",
       "sweep",
       "attnverify numerics",
       {"shapes", "tolerances", "work_dir", "evidence", "junit", "reference", "reference_threads",
        "jobs", "oracle_sample", "fast_tiles", "drawn_cases"}},
      {"candidate",
       "sweep",
       "attnverify numerics",
       {"command", "adapter", "prepare", "timeout_s", "cwd", "env", "sandbox"}},
      {"profile",
       "profile",
       "attnverify profile",
       {"max_slowdown", "min_launches", "occupancy_tolerance_pct", "max_bank_conflict_increase",
        "gpu", "peak_bw_gbs", "peak_tflops", "match", "bench", "kernel_regex", "launch_count",
        "base_dir", "head_dir"}},
      {"policy",
       "report",
       "attnverify report",
       {"required", "waive", "gpu_evidence", "require_agent_review", "agent_commands"}},
      {"report", "report", "attnverify report", {"formats", "title", "junit"}},
      {"run", "pipeline", "attnverify run", {"stages", "stage_timeout_s", "base"}},
      // [provider]'s keys are checked by its own loader (llm/provider_config.cc), which
      // first refuses a key written into the file (api_key = ...) with its own message.
      {"provider", "llm", "attnverify agent / provider", {}},
  };
  return kTables;
}

const std::vector<std::string_view>& PackageTableKeys(std::string_view table) {
  static const std::vector<std::string_view> kNone;
  for (const PackageTable& t : PackageTables()) {
    if (t.name == table) return t.keys;
  }
  return kNone;
}

Status CheckPackageConfig(const toml::table& doc, const std::string& path) {
  std::vector<std::string_view> names;
  for (const PackageTable& t : PackageTables()) names.push_back(t.name);
  for (const auto& [key, node] : doc) {
    const std::string name(key.str());
    auto known = std::find_if(PackageTables().begin(), PackageTables().end(),
                              [&](const PackageTable& t) { return t.name == name; });
    if (known == PackageTables().end()) {
      const bool table = node.is_table() || node.is_array_of_tables();
      std::string msg = Line(path, key.source()) + ": unknown " +
                        (table ? "table [" + name + "]" : "key \"" + name + "\" outside any table");
      std::string_view near = Nearest(name, names);
      if (!near.empty()) {
        msg += " (did you mean [" + std::string(near) + "]?)";
      } else {
        std::string list;
        for (std::string_view n : names) list += (list.empty() ? "[" : ", [") + std::string(n) + "]";
        msg += " (known tables: " + list + ")";
      }
      return InvalidInput(msg);
    }
    const toml::table* t = node.as_table();
    if (t == nullptr || known->keys.empty()) continue;  // the module says "must be a table"
    for (const auto& [k, v] : *t) {
      const std::string_view kn = k.str();
      if (std::find(known->keys.begin(), known->keys.end(), kn) != known->keys.end()) continue;
      // The shape of TomlTableReader::CheckKeys' message: the same error whichever of
      // the two finds it first (the list of allowed keys says what was meant).
      std::vector<std::string_view> sorted = known->keys;
      std::sort(sorted.begin(), sorted.end());
      std::string list;
      for (std::string_view a : sorted) list += (list.empty() ? "" : ", ") + std::string(a);
      std::string msg = path + ":" + std::to_string(k.source().begin.line) + ":" +
                        std::to_string(k.source().begin.column) + ": unknown key \"" +
                        std::string(kn) + "\" in [" + name + "] (allowed: " + list + ")";
      return InvalidInput(msg);
    }
  }
  return Status::Ok();
}

Result<toml::table> ParsePackageConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(toml::table doc, ParseTomlConfig(text, path));
  AV_RETURN_IF_ERROR(CheckPackageConfig(doc, path));
  return doc;
}

}  // namespace av
