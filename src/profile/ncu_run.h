// `profile --run`: the ncu command line for one build (base or head) — the benchmark of
// [profile] bench run under `ncu --csv --page raw --print-units base` with the metrics
// the gates read, --launch-count and --kernel-name — run through a ProcessRunner, its
// CSV kept under logs/, then imported. Untested on a GPU host in this repository
// (doc/profile.md says so). Any thread, one call per runner at a time.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "profile/profile_config.h"

namespace av::profile {

// The metrics the gates read, comma-separated, for ncu --metrics.
const std::string& NcuMetrics();

// ncu's argv for the benchmark `cfg.bench` (argv[0] is `ncu`, as found on PATH).
std::vector<std::string> NcuArgv(const std::string& ncu, const ProfileConfig& cfg);

struct NcuRunResult {
  std::string log_path;  // logs/ncu-<label>.csv, the CSV ncu printed
  std::vector<std::string> argv;
};

// Runs ncu for `label` in `build_dir` and writes its stdout to `logs_dir`/ncu-<label>.csv.
// An error when ncu is absent, cannot start, or exits non-zero (its stderr quoted).
Result<NcuRunResult> RunNcu(ProcessRunner& runner, const ProfileConfig& cfg,
                            const std::string& build_dir, const std::string& logs_dir,
                            const std::string& label);

}  // namespace av::profile
