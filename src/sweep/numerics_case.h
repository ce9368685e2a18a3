// One case of a numerics sweep, from its inputs to its verdict: build and write the case
// (a variant reusing its group's base inputs), take the candidate run's outcome, check
// the inputs came back unchanged, compute (or share) the reference, compare every output,
// let the oracle referee the fast reference, and feed the group's invariance checks.
// numerics_run.cc orchestrates; one CaseRunner serves all its worker threads: a group's
// cases are handled by one thread, the shared parts (errors, warnings, progress) locked.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "core/tree_snapshot.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/group_checks.h"
#include "sweep/numerics_run_types.h"
#include "sweep/tolerances_config.h"

namespace av {

using SweepClock = std::chrono::steady_clock;
inline double MsSince(SweepClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SweepClock::now() - t).count();
}

// Runs `req` inside the sandbox when there is one (o.bwrap): the package (and a work
// folder outside it) read-only, `writable` (out/ folders) left writable. The working
// folder is writable only for prepare (`cwd_writable`: it builds there); a candidate run
// gets it read-only, so that with its private /tmp gone nothing it writes outlives it but
// its outputs (the second run of a {cases} sweep must not find the first run's answers).
// A program that cannot be found is left unwrapped, so the runner's own "not found"
// names it.
void SandboxRequest(const NumericsOptions& o, const std::vector<std::string>& writable,
                    ProcessRequest* req, bool cwd_writable = false);

class CaseRunner {
 public:
  // `run->cases` holds the cases to run; `snapshot` (may be null) is the package's files,
  // kept current with the heatmaps written.
  CaseRunner(const NumericsOptions& o, const TolerancesConfig& tol, NumericsRun* run,
             TreeSnapshot* snapshot);

  // The first configuration or I/O error of any case: the sweep ends with it.
  Status first_error() const { return first_error_; }

  // Builds and writes case i of the group whose base case is `base_index`, in its opaque
  // folder (case.json as the candidate sees it). `base` caches the group's unvaried
  // inputs: variants on the base case's inputs reuse them (a permutation rewrites a copy)
  // instead of generating them again; seed variants build their own. Shared inputs come
  // from the run's SharedInputs, so cases of one input family (InputFamily: every h_q,
  // and every s_q that leaves the key lengths alone, of a paged cache; every m of a
  // GEMM's b) generate them once. False on an error (first_error).
  bool Prepare(size_t i, size_t base_index, std::optional<BuiltCase>* base);
  // Writes case i, a rerun or num_splits variant, from its base case's inputs as checked
  // after the base ran (g.base_inputs), else builds it again. For {cases}: the variants
  // of the second candidate run.
  bool PrepareCopy(size_t i, size_t base_index, const GroupState& g);

  // Whether case i's group has reruns or num_splits variants (SameInputBytes): with
  // such a group in the run, every case's outputs are removed once read (nothing a
  // candidate run left in an out/ folder reaches a later run), and with {cases} those variants run in a second
  // candidate run.
  bool HasCopies(size_t i) const { return has_copies_[i] != 0; }

  // Drops the shared inputs kept for later cases: {cases} mode calls it once every case
  // is written, so the judging phase (which reads the written files) does not carry up to
  // 384 MiB of generated caches beside its references (doc/numerics.md, peak RSS).
  void ReleaseSharedInputs() { shared_.Clear(); }
  int64_t shared_inputs_made() const { return shared_.made(); }
  int64_t shared_inputs_reused() const { return shared_.reused(); }

  // One candidate run ({cases} = `cases`, {case_dir}, {out_dir}); in the sandbox it may
  // write only `writable` (its out/ folders).
  ProcessRequest Request(const std::string& cases, const std::string& case_dir,
                         const std::string& out_dir,
                         const std::vector<std::string>& writable) const;

  // Counts the processes a run left behind (the runner killed them).
  void CountLeftovers(const Result<ProcessResult>& pr);

  // Applies one candidate run's outcome to case i; false when the case already failed.
  bool ApplyRun(size_t i, const Result<ProcessResult>& pr, double ms);

  // Judges case i, a member of the group whose state is `g` (the base case first).
  void Finish(size_t i, GroupState& g);

  // Case i is done (total_ms its whole time): a case never judged is an error; progress.
  void Report(size_t i, double total_ms);

  const std::vector<std::optional<WrittenCase>>& all_written() const { return written_; }

 private:
  struct Judging;  // one Finish call's tensors and references (numerics_case.cc)

  void Fail(CaseResult& r, const std::string& reason, CaseVerdict verdict = CaseVerdict::kFail);
  void RecordError(const Status& st);
  bool ReadBack(size_t i, GroupState& g, Judging& w);
  bool ComputeReference(CaseResult& r, const WrittenCase& wc, GroupState& g, Judging& w);
  bool Referee(CaseResult& r, const WrittenCase& wc, Judging& w);
  void Record(CaseResult& r, GroupState& g, Judging& w);
  void CompareOutputs(CaseResult& r, const WrittenCase& wc, const NamedTensors& cand,
                      const NamedTensors& ref, const std::optional<NamedTensors>& lowprec);
  std::string RefereeReason(const CaseResult& r, const NamedTensors& cand,
                            const NamedTensors& ref) const;
  void ClearJudgement(CaseResult& r, const WrittenCase& wc);
  void Localise(CaseResult& r, const WrittenCase& wc, const std::string& name, const Tensor& cand,
                const Tensor& ref, const CompareReport& report);
  void RemoveHeatmap(const std::string& case_id, const std::string& output);
  bool Written(size_t i, Result<WrittenCase> wc, SweepClock::time_point t0);

  const NumericsOptions& o_;
  const TolerancesConfig& tol_;
  NumericsRun* run_;
  TreeSnapshot* snapshot_;  // the package's files, kept current with what we write
  std::vector<std::optional<WrittenCase>> written_;
  // folders_[i]: case i's folder under work/cases and its case.json id: "c" and its place
  // in an order the run's salt shuffles, so neither name nor order tells a variant from
  // its base case (or a drawn case from a listed one).
  std::vector<std::string> folders_;
  std::vector<char> has_copies_;
  bool any_copies_ = false;  // some group has them: every case's outputs go once read
  SharedInputs shared_;  // the key/value side, once per input family
  std::mutex mu_;
  Status first_error_;
  int64_t done_ = 0;
};

}  // namespace av
