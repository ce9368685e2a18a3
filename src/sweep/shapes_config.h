// shapes.json: the sweeps of `attnverify numerics` — per sweep an op, a grid (cartesian
// product of parameter lists), fixed parameters, explicit cases, input dtypes, seeds and
// value generators — and their expansion into cases with stable ids. Every problem is an
// InvalidInput "FILE: JSON.PATH: problem"; unknown keys and parameters are errors.
// Format: doc/formats/shapes-json.md. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "sweep/op_schema.h"
#include "tensor/dtype.h"

namespace av {

// A sweep's "invariance" object: variants of every base case that must not change the
// result beyond rounding (or at all, for reruns). See sweep/invariance.h.
struct InvarianceSpec {
  std::vector<int64_t> num_splits;      // knobs.num_splits values, one variant each
  int64_t reruns = 0;                   // extra runs that must be bitwise equal
  bool batch_permutation = false;       // permute batch entries, un-permute the output
  bool page_table_permutation = false;  // permute physical pages and the block table
  int64_t seeds = 1;                    // seeds per shape, the base's included
  bool any() const {
    return !num_splits.empty() || reruns > 0 || batch_permutation || page_table_permutation ||
           seeds > 1;
  }
};

// A sweep's "tile" object: the kernel's tile sizes, which the localiser's hints speak of
// ("a partial 64-key tile"). They change no input and no verdict.
struct TileSpec {
  int64_t rows = 64, keys = 64;  // attention, mla_decode, sparse_attention
  int64_t m = 128, n = 128;      // gemm, fp8_gemm
};

enum class VariantKind {
  kBase,
  kNumSplits,
  kRerun,
  kBatchPermutation,
  kPageTablePermutation,
  kSeed
};

struct SweepSpec {
  std::string name;
  std::string op;
  std::string json_path;                                              // "$.sweeps[0]", for messages
  std::vector<std::pair<std::string, std::vector<ParamValue>>> grid;  // sorted by key
  ParamMap fixed;
  std::vector<ParamMap> cases;
  std::vector<DType> dtypes;
  std::vector<uint64_t> seeds;
  std::vector<std::string> generators;  // empty: the "generator" parameter decides
  InvarianceSpec invariance;
  TileSpec tile;
};

struct ShapesConfig {
  std::string path;
  std::vector<SweepSpec> sweeps;
};

// One case: what the input builders and the candidate see.
struct CaseSpec {
  std::string id;  // stable: sweep, varied parameters, dtype, seed (see CaseId)
  std::string sweep;
  std::string op;
  ParamMap params;  // fixed + grid point or explicit case (+ generator)
  DType dtype = DType::kBF16;
  uint64_t seed = 0;
  // The run's salt, mixed into every input stream (sweep/rng.h StreamKey); 0: unsalted.
  uint64_t salt = 0;
  // Drawn by the run from the sweep's parameter space (sweep/drawn_cases.h), not listed
  // in shapes.json: a shape the candidate has not seen before.
  bool drawn = false;
  int64_t index = 0;  // position in the full expansion, variants included
  // Invariance variants (sweep/invariance.h). A base case is its own group.
  std::string variant = "base";  // "base", "num_splits=4", "rerun=1", "seed=1", ...
  VariantKind kind = VariantKind::kBase;
  int64_t variant_value = 0;  // the N of num_splits=N, rerun=N, seed=N
  std::string group;          // the base case's id; empty means `id`
  ParamMap knobs;             // case.json "knobs"
  int64_t group_index = 0;    // position of the base case among base cases (drives --shard)
  TileSpec tile;              // the sweep's
  const std::string& group_id() const { return group.empty() ? id : group; }
};

// Caps the expansion so a typo in a grid cannot ask for millions of cases.
inline constexpr int64_t kMaxCases = 100'000;

Result<ShapesConfig> ParseShapesConfig(std::string_view text, const std::string& path);
Result<ShapesConfig> LoadShapesConfig(const std::string& path);

// "mla_decode.b=2.s_k=140.bf16.s0": the sweep name, then `key=value` for every parameter
// in `varied` (sorted), then the dtype and "s" + seed. Only [A-Za-z0-9._=+-].
std::string CaseId(const std::string& sweep, const ParamMap& params,
                   const std::vector<std::string>& varied, DType dtype, uint64_t seed);

// Grid points, then explicit cases, each × generators × dtypes × seeds, in that nesting
// order; each base case is followed by its invariance variants (ExpandVariants). Duplicate ids and
// cases the op cannot run (h_q not a multiple of h_kv, ...) are errors naming the sweep.
Result<std::vector<CaseSpec>> ExpandCases(const ShapesConfig& config);

}  // namespace av
