// What a numerics sweep found: each case's verdict with its outputs' comparisons, and
// each group's invariance checks. Written by the case runner and the group checks, read by
// the run (numerics_run.h NumericsRun holds them), its evidence writer and the CLI; plain
// values, any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "numerics/compare.h"
#include "numerics/localise.h"
#include "schema/outcome.h"
#include "sweep/shapes_config.h"

namespace av {

struct OutputVerdict {
  std::string name;
  std::string rule_path;  // tolerances.json entry
  bool compared = false;
  CompareReport report;
};

struct CaseResult {
  CaseSpec spec;
  // Unset until judged; every case of a finished run has one (a case an earlier error
  // kept from running is kError).
  std::optional<CaseVerdict> verdict;
  std::string reason;                            // first failure, one line; empty on pass
  std::map<std::string, std::string> op_params;  // the reference op's (case.json "op_params")
  std::vector<OutputVerdict> outputs;
  std::string reference_impl;  // "oracle", "fast", ...
  // "oracle" when the fast reference's judgement was re-judged by the oracle, whose
  // comparison `outputs` then holds; referee_reason "fail", "margin" or "sample".
  std::string refereed_by, referee_reason;
  std::string inputs_sha256;
  std::string outputs_sha256;
  std::map<std::string, std::string> candidate_metadata;
  std::string candidate_status;  // "exit 0", "timed out after 10 s", ...
  std::string stderr_tail;       // of a failed candidate run
  std::string case_dir;
  // Set when the outputs are the group's base case's bytes and its passing comparison
  // was taken over (the base case's id); empty when this case was compared itself.
  std::string compare_from;
  // Failing outputs: hints and worst elements (numerics/localise.h), and the heatmaps
  // written, relative to the package folder.
  std::vector<std::string> hints;
  std::vector<LocatedElement> worst;
  std::vector<std::string> heatmaps;
  // Wall times: building and writing the case (generate); the candidate's run (or its
  // share of one run over all cases); the reference; comparing outputs with it; checking
  // after the run (the inputs' digest, reading the outputs, invariance diffs); and the
  // case's whole time, which holds all of these and the bookkeeping between them.
  double generate_ms = 0, candidate_ms = 0, reference_ms = 0, compare_ms = 0, check_ms = 0,
         total_ms = 0;
};

// One invariance check of one group (numerics.json "invariance").
struct InvarianceCheckResult {
  std::string check;  // num_splits, determinism, batch_permutation, page_table_permutation,
                      // seed_dependence, reference_variance
  std::string group;  // the base case's id
  std::vector<std::string> cases;
  InvarianceVerdict verdict = InvarianceVerdict::kPass;
  double max_abs_diff = 0;
  std::string tolerance;
  std::string detail;
};

}  // namespace av
