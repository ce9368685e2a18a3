// ProfileConfig: the [profile] table of attnverify.toml — the gates' thresholds, the GPU
// whose peak figures bound plausibility, the base->head rename table, and what
// `profile --run` runs. Defaults and meaning: doc/profile.md. Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"

namespace av::profile {

struct ProfileConfig {
  double max_slowdown = 0.03;            // head median may be at most 3% slower (95% upper bound)
  int min_launches = 3;                  // per side, below which the time gate is MISSING
  double occupancy_tolerance_pct = 1.0;  // achieved occupancy may drop this many points
  double max_bank_conflict_increase = 0.0;  // fraction; 0: not higher
  std::string gpu;                          // "H200": picks the peak table's row
  double peak_bw_gbs = 0;                   // explicit peak memory bandwidth (GB/s); 0: from gpu
  double peak_tflops = 0;                   // explicit peak TFLOP/s; 0: from gpu
  // Base regex -> head regex over normalised kernel names ("flash_mla_fwd.*").
  std::vector<std::pair<std::string, std::string>> match;
  // profile --run
  std::vector<std::string> bench;  // argv of the benchmark, run once per build
  std::string kernel_regex;        // ncu --kernel-name regex:...
  int launch_count = 5;
  std::string base_dir, head_dir;  // the builds' folders (the bench runs there)
};

// `text` is the whole attnverify.toml; a missing [profile] gives the defaults.
Result<ProfileConfig> ParseProfileConfig(const PackageConfig& package);
Result<ProfileConfig> ParseProfileConfig(std::string_view text, const std::string& path);
Result<ProfileConfig> LoadProfileConfig(const std::string& path);

}  // namespace av::profile
