// What `attnverify numerics` is asked (NumericsOptions) and what a run holds when it is
// done (NumericsRun), apart from the runner (numerics_run.h), so that the case runner
// and the run's writers depend on these values and not on the orchestration. Plain
// values; a NumericsRun is filled by one run and read by any thread after it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/process.h"
#include "sweep/case_result.h"
#include "sweep/numerics_config.h"
#include "sweep/shapes_config.h"

namespace av {

struct NumericsOptions {
  NumericsConfig config;
  // A working bwrap (core/sandbox.h FindWorkingBwrap) when the candidate and prepare are
  // to run in the sandbox; empty: unsandboxed. The caller decides ([candidate] sandbox,
  // --sandbox) and warns when bwrap is wanted but does not work. Either way the package
  // is snapshotted before prepare and compared after the last candidate run.
  std::string bwrap;
  std::string filter;   // ECMAScript regex searched in case ids; empty: all
  // `judge --skipped`: case id -> why the tests skipped it. A skipped case is not judged
  // (never a pass, never a "no output" fail): the run leaves it out, as a filter would,
  // and records it with its reason (NumericsRun::skipped). A skipped base case whose group
  // has a member that was not skipped still runs (the group's checks need it). An id that
  // is not a case of the sweep is an error.
  std::map<std::string, std::string> skipped;
  int shard_index = 0;  // 0-based
  int shard_count = 1;
  // --sweep-id: the same for every shard of one submission (a job array's id), so that
  // `merge` can tell a shard left by an earlier run (numerics.json "run_identity").
  std::string sweep_id;
  // --salt: the run's salt (sweep/rng.h StreamKey; the drawn cases' seed). Unset: a fresh
  // random one, so no two runs see the same inputs; every shard of one run must be given
  // the same (a sharded run without one is refused).
  std::optional<uint64_t> salt;
  // `judge`: the cases are those `cases --export` wrote (its salt and drawn-case count,
  // which judge reads from the export's cases.json), in folders named by their ids with
  // the full case.json, since the "candidate" is attnverify copying outputs computed
  // elsewhere by case id.
  bool exported_layout = false;
  int jobs = 1;
  ProcessRunner* runner = nullptr;
  // Tests only: changes the fast reference's outputs of a case before they are used (a
  // deliberately broken fast reference must end the run in an internal error).
  std::function<void(const CaseSpec&, NamedTensors*)> fast_reference_hook;
  // When the oracle referees a case whose fast results take at least this many bytes,
  // they wait in a temporary file while the oracle runs (sweep/spilled_tensors.h): a
  // 4096 x 32768 GEMM's are 512 MiB beside the oracle's 1 GiB. Tests set 0 to spill all.
  int64_t spill_fast_from_bytes = int64_t{64} << 20;
  // Called after each case (serialised); for progress lines.
  std::function<void(const CaseResult&, int64_t done, int64_t total)> on_case;
};

// A case the tests skipped (NumericsOptions::skipped), in expansion order.
struct SkippedCase {
  std::string id, op, reason;
};

struct NumericsRun {
  std::vector<CaseResult> cases;  // in expansion order
  std::vector<SkippedCase> skipped;
  int64_t total_cases = 0;  // before filter and shard
  int shard_index = 0, shard_count = 1;
  std::string filter;
  std::string shapes_sha256, tolerances_sha256;
  // The run identity's parts (schema/numerics_json.h RunIdentity): --sweep-id and the
  // digests of the full expansion's case ids and of the shard plan.
  std::string sweep_id, cases_sha256, shard_plan_sha256;
  // The salt every input was drawn with, as 16 hex digits (numerics.json config.salt;
  // `numerics --salt` with it draws the same inputs and cases again), and how many of the
  // run's cases were drawn from the sweeps' parameter space (CaseSpec::drawn).
  std::string salt;
  int64_t drawn_cases = 0;
  // The commands are the config's argv ([candidate] command and prepare), not copied here.
  std::string prepare_status;  // "exit 0", ...; empty: no prepare ran
  double prepare_ms = 0;
  std::vector<InvarianceCheckResult> invariance;  // by group, in case order
  // Containment: "bwrap" or "none"; package files that changed while the candidate ran
  // (each one fails every case); processes the candidate left running (all killed);
  // what attnverify repaired in the work folder.
  std::string sandbox = "none";
  std::vector<std::string> package_changes;
  int64_t leftover_processes = 0;
  std::vector<std::string> warnings;
  // Shared inputs (SharedInputs: key/value caches, GEMM operands) generated, and handed
  // to another case again: how well the work order kept each family's cases together.
  int64_t shared_inputs_made = 0, shared_inputs_reused = 0;
  double wall_ms = 0;
  int64_t passed() const;
  int64_t failed() const;
};

// The last `max_bytes` of a process's stderr, on a line boundary when possible.
std::string StderrTail(const std::string& text, size_t max_bytes = 2000);

}  // namespace av
