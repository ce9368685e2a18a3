#include "pipeline/run_config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/file.h"
#include "core/package_config.h"
#include "core/toml_config.h"

namespace av {

namespace fs = std::filesystem;

Result<RunConfig> ParseRunConfig(const PackageConfig& package) {
  const std::string& path = package.path();
  const toml::table& doc = package.doc();
  TomlTableReader r(path);
  RunConfig c;
  c.path = fs::absolute(path).lexically_normal().string();
  c.base_dir = fs::path(c.path).parent_path().string();
  AV_ASSIGN_OR_RETURN(const toml::table* slice, r.OptionalTable(doc, "slice"));
  AV_ASSIGN_OR_RETURN(const toml::table* components, r.OptionalTable(doc, "components"));
  AV_ASSIGN_OR_RETURN(const toml::table* build, r.OptionalTable(doc, "build"));
  AV_ASSIGN_OR_RETURN(const toml::table* candidate, r.OptionalTable(doc, "candidate"));
  c.has_slice = slice != nullptr || components != nullptr;
  c.has_build = build != nullptr;
  c.has_candidate = candidate != nullptr;
  // [slice] belongs to `attnverify slice`, which validates it; only its base is shared.
  if (slice != nullptr) {
    if (const toml::node* b = slice->get("base")) {
      AV_ASSIGN_OR_RETURN(c.base, r.String(*b, "base"));
    }
  }
  // [review] and [provider] belong to review and llm, which validate them; the plan only
  // needs to know whether the agent reviewer runs and which variable holds its key.
  if (const toml::table* review = doc["review"].as_table()) {
    if (const toml::node* n = review->get("reviewer")) {
      AV_ASSIGN_OR_RETURN(c.reviewer, r.String(*n, "reviewer"));
    }
  }
  if (const toml::table* provider = doc["provider"].as_table()) {
    if (const toml::node* n = provider->get("key_env")) {
      AV_ASSIGN_OR_RETURN(c.key_env, r.String(*n, "key_env"));
    }
  }
  const bool agent = c.reviewer == "agent" || c.reviewer == "both";
  for (std::string_view s : kRunStages) {
    if (s != "agent" || agent) c.stages.emplace_back(s);
  }
  AV_ASSIGN_OR_RETURN(const toml::table* run, r.OptionalTable(doc, "run"));
  if (run == nullptr) return c;
  AV_RETURN_IF_ERROR(r.CheckKeys(*run, "[run]", {"stages", "stage_timeout_s", "base"}));
  if (const toml::node* n = run->get("stages")) {
    AV_ASSIGN_OR_RETURN(std::vector<std::string> stages, r.StringArray(*n, "stages"));
    if (stages.empty()) return r.Error(*n, "\"stages\" must name at least one stage");
    // Stages keep their canonical order: review reads slice's diffs, report reads everything.
    std::vector<std::string> ordered;
    for (std::string_view known : kRunStages) {
      if (std::find(stages.begin(), stages.end(), known) != stages.end())
        ordered.emplace_back(known);
    }
    for (const std::string& s : stages) {
      if (std::find(std::begin(kRunStages), std::end(kRunStages), s) == std::end(kRunStages)) {
        return r.Error(*n, "unknown stage \"" + s +
                               "\" (stages: slice, review, build, numerics, agent, report)");
      }
    }
    c.stages = ordered;
  }
  if (const toml::node* n = run->get("stage_timeout_s")) {
    AV_ASSIGN_OR_RETURN(int64_t t, r.Integer(*n, "stage_timeout_s", 1, 7 * 86400));
    c.stage_timeout_s = static_cast<int>(t);
  }
  if (const toml::node* n = run->get("base")) {
    AV_ASSIGN_OR_RETURN(c.base, r.String(*n, "base"));
  }
  return c;
}

Result<RunConfig> ParseRunConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, path));
  return ParseRunConfig(package);
}

Result<RunConfig> LoadRunConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseRunConfig(package);
}

std::vector<StagePlan> PlanStages(const RunConfig& config, const std::string& base_override) {
  const std::string base = base_override.empty() ? config.base : base_override;
  std::vector<StagePlan> plan;
  bool sliced = false;
  for (const std::string& name : config.stages) {
    StagePlan s{name, {name, "--config", config.path}, ""};
    if (name == "slice") {
      if (!config.has_slice)
        s.skip_reason = "no [slice] or [components] table in attnverify.toml";
      else if (!base.empty())
        s.args.insert(s.args.end(), {"--base", base});
      sliced = s.skip_reason.empty();
    } else if (name == "review") {
      if (config.reviewer == "agent") {
        s.skip_reason = "[review] reviewer = \"agent\": the built-in reviewer does not run";
      }
      // Without a slice this run, the diffs already in the package are reviewed.
      if (!sliced && !config.has_slice)
        s.skip_reason = "nothing to review: no [slice] or [components] table";
    } else if (name == "build") {
      if (!config.has_build)
        s.skip_reason = "no [build] table in attnverify.toml";
      else if (!base.empty())
        s.args.insert(s.args.end(), {"--base", base});
    } else if (name == "numerics") {
      if (!config.has_candidate) s.skip_reason = "no [candidate] table in attnverify.toml";
    } else if (name == "agent") {
      const char* key = config.key_env.empty() ? nullptr : std::getenv(config.key_env.c_str());
      if (config.key_env.empty()) {
        s.skip_reason = "agent review MISSING: no [provider] table in attnverify.toml";
      } else if (key == nullptr || *key == '\0') {
        s.skip_reason = "agent review MISSING: $" + config.key_env + " is not set; export " +
                        config.key_env + " and run: attnverify agent --config " + config.path;
      }
    }
    plan.push_back(std::move(s));
  }
  return plan;
}

}  // namespace av
