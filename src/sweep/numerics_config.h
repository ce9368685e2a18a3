// The [numerics] and [candidate] tables of attnverify.toml: where the sweep's
// configuration and evidence live, which reference implementation runs, and the
// candidate's command (an argv template with {cases}, or {case_dir} / {out_dir}).
// Other tables are ignored; unknown keys inside these two are errors
// ("attnverify.toml:12:3: ..."). Format: doc/formats/candidate-protocol.md.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"
#include "reference/ref_ops.h"

namespace av {

enum class CandidateMode {
  kAllCases,  // {cases}: one run over work/cases.json
  kPerCase,   // {case_dir} / {out_dir}: one run per case
};

// Where the candidate and prepare run (doc/formats/candidate-protocol.md "Containment").
enum class SandboxMode {
  kBwrap,  // inside bubblewrap when it works here (else a warning, and unsandboxed)
  kNone,   // unsandboxed; the package snapshot still catches changes to its files
};

struct CandidateConfig {
  std::vector<std::string> command;  // argv template (an adapter's: AdapterCommand)
  std::string adapter;               // [candidate] adapter, when it gave the command
  // Run once before any case (compile the kernel, warm a cache); argv, no placeholders.
  std::vector<std::string> prepare;
  CandidateMode mode = CandidateMode::kAllCases;
  int timeout_s = 600;  // per run
  std::string cwd;      // absolute; default the config's folder
  std::map<std::string, std::string> env;
  SandboxMode sandbox = SandboxMode::kBwrap;
};

struct NumericsConfig {
  std::string path;      // attnverify.toml
  std::string base_dir;  // its folder (absolute); relative paths below are resolved here
  std::string shapes;
  std::string tolerances;
  std::string work_dir;
  std::string evidence;  // numerics.json
  std::string junit;
  RefImpl reference;  // oracle by default; "fast" falls back to the oracle per op
  // With reference = "fast": 1 case in N (by a stable hash of its id) is also judged by
  // the oracle as a cross-check (doc/numerics.md "the oracle as referee"); 0 = none.
  int oracle_sample = 64;
  // Cases drawn per sweep and run from the sweep's own parameter space, seeded by the
  // run's salt (sweep/drawn_cases.h): shapes the candidate has not seen. 0 = none.
  int drawn_cases = 2;
  int jobs = 1;
  bool has_candidate = false;
  CandidateConfig candidate;
};

Result<NumericsConfig> ParseNumericsConfig(const PackageConfig& package);
Result<NumericsConfig> ParseNumericsConfig(std::string_view text, const std::string& path);
Result<NumericsConfig> LoadNumericsConfig(const std::string& path);

// [candidate] adapter = NAME: one of the Python package's library adapters, run as
// `python3 -m attnverify_candidate.adapters.NAME {cases}` (doc/python.md).
bool IsKnownAdapter(std::string_view name);
std::string KnownAdapterList();  // "flash_mla, deep_gemm, flash_attn, torch_sdpa"
std::vector<std::string> AdapterCommand(const std::string& name);

// The argv for one run: {cases}, {case_dir}, {out_dir} replaced wherever they occur.
std::vector<std::string> ExpandCommand(const std::vector<std::string>& tmpl,
                                       const std::string& cases, const std::string& case_dir,
                                       const std::string& out_dir);

}  // namespace av
