// The perf gates over perf.json: kernels matched base->head per shape (normalised name,
// then [profile] match, then a unique short name), and for each pair the time gate (median
// ratio with a 95% interval, n >= min_launches per side), achieved occupancy, registers
// past the occupancy cliff, bank conflicts, shared memory against the compile evidence, and
// plausibility against the GPU's peaks. Each gate is PASS, FAIL or MISSING with the reason
// and, when MISSING, the command that collects what it lacks. The report's items 3 and 4
// read the result; doc/profile.md documents every rule. Pure functions; any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "profile/perf_model.h"
#include "profile/profile_config.h"
#include "profile/stats.h"
#include "schema/outcome.h"

namespace av::profile {

// One side of a pair: every import's launches of one kernel and shape merged.
struct PerfSide {
  KernelName name;
  std::string tool, source_file, source_sha256;
  std::vector<Launch> launches;
  std::optional<Summary> summary;
  SideStats time;  // duration statistics
  // Medians over the launches of the figures that have one (occupancy, registers, ...).
  std::map<std::string, double> medians;
  std::string occupancy_limiter;
};

struct PerfPair {
  std::string shape;
  std::string kernel;  // the base's key (or the head's when only the head has it)
  std::string how;     // "name", "match", "short name"
  std::optional<PerfSide> base, head;
  std::optional<RatioInterval> ratio;
};

struct GateResult {
  std::string
      gate;  // "time", "occupancy", "registers", "bank_conflicts", "smem", "plausible", "matched"
  std::string kernel, shape;
  CheckStatus status = CheckStatus::kMissing;
  std::string summary;
  std::string command;  // what to run when MISSING
};

struct PerfVerdict {
  std::vector<PerfPair> pairs;
  std::vector<GateResult> gates;
};

// Static shared memory per block by label ("base"/"head") and kernel short name, from the
// compile evidence, for the smem gate; empty: no compile evidence, no smem gate.
using CompileSmem = std::map<std::string, std::map<std::string, int64_t>>;

// `collect_cmd` is the command the MISSING gates quote ("ncu ... --launch-count 5 ...").
PerfVerdict JudgePerfDoc(const PerfDoc& doc, const ProfileConfig& cfg, const CompileSmem& smem,
                         const std::string& collect_cmd);

// Pairs only (no gates), for tests and the report's table.
std::vector<PerfPair> MatchKernels(const PerfDoc& doc, const ProfileConfig& cfg);

}  // namespace av::profile
