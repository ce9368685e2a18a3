// The [run] table of attnverify.toml and the stage plan of `attnverify run`: which stages
// run in which order, with which arguments, and why a stage is skipped (its table is
// absent). Format: doc/run.md. Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"

namespace av {

// The stages `attnverify run` knows, in their only sensible order.
// "agent" runs only when [review] reviewer is "agent" or "both" (or [run] stages names it).
inline constexpr std::string_view kRunStages[] = {"slice",    "review", "build",
                                                  "numerics", "agent",  "report"};

struct RunConfig {
  std::string path;                 // attnverify.toml (absolute)
  std::string base_dir;             // its folder
  std::vector<std::string> stages;  // [run] stages, default all of kRunStages
  int stage_timeout_s = 86400;      // [run] stage_timeout_s: per stage
  std::string base;                 // [run] base, else [slice] base; empty: none
  // Which tables exist; a stage whose table is absent is skipped with a reason.
  bool has_slice = false, has_build = false, has_candidate = false;
  std::string reviewer = "builtin";  // [review] reviewer: "builtin", "agent" or "both"
  std::string key_env;               // [provider] key_env; empty without [provider]
};

Result<RunConfig> ParseRunConfig(const PackageConfig& package);
Result<RunConfig> ParseRunConfig(std::string_view text, const std::string& path);
Result<RunConfig> LoadRunConfig(const std::string& path);

struct StagePlan {
  std::string name;
  std::vector<std::string> args;  // after the program: {"slice", "--config", P, ...}
  std::string skip_reason;        // non-empty: not run
};

// `base_override` (run --base) wins over the config's base. The agent stage reads whether
// key_env is set in this process's environment: unset, it is skipped, and its reason names
// the variable to export and the command to run.
std::vector<StagePlan> PlanStages(const RunConfig& config, const std::string& base_override);

}  // namespace av
