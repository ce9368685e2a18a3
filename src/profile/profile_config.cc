#include "profile/profile_config.h"

#include <regex>

#include "core/file.h"
#include "core/package_config.h"
#include "core/toml_config.h"

namespace av::profile {
namespace {

Result<double> Number(const TomlTableReader& r, const toml::table& t, std::string_view key,
                      double lo, double hi, double dflt) {
  const toml::node* n = t.get(key);
  if (!n) return dflt;
  std::optional<double> v = n->value<double>();
  if (!v || !(*v >= lo && *v <= hi)) {
    return r.Error(*n, "[profile] " + std::string(key) + " must be a number in [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return *v;
}

Status ReadMatch(const TomlTableReader& r, const toml::table& t, ProfileConfig* cfg) {
  const toml::node* n = t.get("match");
  if (!n) return Status::Ok();
  const toml::table* m = n->as_table();
  if (!m) return r.Error(*n, "[profile] match must be a table of \"base regex\" = \"head regex\"");
  for (const auto& [key, value] : *m) {
    std::optional<std::string> head = value.value<std::string>();
    if (!head) return r.Error(value, "[profile] match values must be strings (a head regex)");
    for (const std::string& re : {std::string(key.str()), *head}) {
      // Checked here so a bad pattern is a config error, not a surprise at report time.
      try {
        std::regex compiled(re, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return r.Error(value, "[profile] match: \"" + re + "\" is not a regex: " + e.what());
      }
    }
    cfg->match.emplace_back(std::string(key.str()), *head);
  }
  return Status::Ok();
}

}  // namespace

Result<ProfileConfig> ParseProfileConfig(const PackageConfig& package) {
  ProfileConfig cfg;
  TomlTableReader r(package.path());
  AV_ASSIGN_OR_RETURN(const toml::table* t, package.Table("profile"));
  if (!t) return cfg;
  AV_RETURN_IF_ERROR(
      r.CheckKeys(*t, "[profile]",
                  {"max_slowdown", "min_launches", "occupancy_tolerance_pct",
                   "max_bank_conflict_increase", "gpu", "peak_bw_gbs", "peak_tflops", "match",
                   "bench", "kernel_regex", "launch_count", "base_dir", "head_dir"}));
  AV_ASSIGN_OR_RETURN(cfg.max_slowdown, Number(r, *t, "max_slowdown", 0, 10, cfg.max_slowdown));
  AV_ASSIGN_OR_RETURN(cfg.occupancy_tolerance_pct, Number(r, *t, "occupancy_tolerance_pct", 0, 100,
                                                          cfg.occupancy_tolerance_pct));
  AV_ASSIGN_OR_RETURN(cfg.max_bank_conflict_increase,
                      Number(r, *t, "max_bank_conflict_increase", 0, 100, 0));
  AV_ASSIGN_OR_RETURN(cfg.peak_bw_gbs, Number(r, *t, "peak_bw_gbs", 0, 1e6, 0));
  AV_ASSIGN_OR_RETURN(cfg.peak_tflops, Number(r, *t, "peak_tflops", 0, 1e6, 0));
  if (const toml::node* n = t->get("min_launches")) {
    AV_ASSIGN_OR_RETURN(int64_t v, r.Integer(*n, "min_launches", 3, 100000));
    cfg.min_launches = static_cast<int>(v);
  }
  if (const toml::node* n = t->get("launch_count")) {
    AV_ASSIGN_OR_RETURN(int64_t v, r.Integer(*n, "launch_count", 1, 100000));
    cfg.launch_count = static_cast<int>(v);
  }
  if (const toml::node* n = t->get("gpu")) {
    AV_ASSIGN_OR_RETURN(cfg.gpu, r.String(*n, "gpu"));
  }
  if (const toml::node* n = t->get("kernel_regex")) {
    AV_ASSIGN_OR_RETURN(cfg.kernel_regex, r.String(*n, "kernel_regex"));
  }
  if (const toml::node* n = t->get("base_dir")) {
    AV_ASSIGN_OR_RETURN(cfg.base_dir, r.String(*n, "base_dir"));
  }
  if (const toml::node* n = t->get("head_dir")) {
    AV_ASSIGN_OR_RETURN(cfg.head_dir, r.String(*n, "head_dir"));
  }
  if (const toml::node* n = t->get("bench")) {
    AV_ASSIGN_OR_RETURN(cfg.bench, r.NonEmptyStringArray(*n, "bench"));
  }
  AV_RETURN_IF_ERROR(ReadMatch(r, *t, &cfg));
  return cfg;
}

Result<ProfileConfig> ParseProfileConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, path));
  return ParseProfileConfig(package);
}

Result<ProfileConfig> LoadProfileConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseProfileConfig(package);
}

}  // namespace av::profile
