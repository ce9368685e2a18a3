// How `numerics --shard i/N` shares a sweep out: whole groups (a base case with its
// variants) go to shards by their estimated reference cost, not by count, so N machines
// finish at about the same time. The cost model counts the reference's floating-point work
// (the same FLOP counts as bench/reference_bench.cc) plus a fixed share per case for
// writing its files and running the comparison. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/shapes_config.h"

namespace av {

// Estimated floating-point operations of the reference for one case (at least
// kCaseFloorFlops, the cost of its file I/O and comparison in the same unit).
inline constexpr double kCaseFloorFlops = 2e6;
double EstimateCaseFlops(const CaseSpec& spec);

// Estimated peak memory of the sweep for one case, in bytes: its inputs (the key/value
// side at the longest lengths the generators draw), each output twice (the float64
// reference and the candidate's file), and for GEMMs the fast reference's float32 operands
// and result. A model for admission, not a measurement: `numerics` does not start a
// group while the running ones' estimates and its own would pass kSweepMemoryBudget.
int64_t EstimateCaseBytes(const CaseSpec& spec);
inline constexpr int64_t kSweepMemoryBudget = int64_t{5} << 28;  // 1.25 GiB

struct ShardPlan {
  int shard_count = 1;
  std::vector<int> shard_of_group;  // by CaseSpec::group_index
  std::vector<double> flops;        // estimated work per shard
  std::vector<int64_t> cases;       // cases per shard (variants included)
};

// Longest-processing-time-first over pieces of input families (InputFamily: the groups
// that share a paged cache): the costliest piece goes to the least loaded shard (ties:
// the earlier piece, then the lower shard), so the plan depends only on the expansion and
// N. A family goes whole to one shard unless it costs more than half a shard's share;
// then it is cut into runs of consecutive groups of about that, so each shard generates
// a family's caches at most once per piece it holds. `all` is the full expansion in
// order (groups contiguous, base case first).
ShardPlan PlanShards(const std::vector<CaseSpec>& all, int shard_count);

// Digests for a shard's run identity (schema/numerics_json.h RunIdentity): of the case ids
// of the full expansion in order, and of the plan (N and the shard of every group). Two
// shards whose digests differ were not cut from one sweep.
std::string CaseListSha256(const std::vector<CaseSpec>& all);
std::string ShardPlanSha256(const ShardPlan& plan);

}  // namespace av
