// The `attnverify build` pipeline as a library call: compile (or import) the head, and
// with a base ref compile it in a temporary worktree, parse both logs, scan the sources
// for dynamic shared memory, compute the ResourcesReport and write logs/build.log,
// logs/build-base.log and evidence/resources.json into the package folder. Processes run
// through the given ProcessRunner (a fake in unit tests). One call at a time per folder.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "compile/build_config.h"
#include "compile/resources.h"
#include "schema/provenance.h"

namespace av {

struct BuildRequest {
  BuildConfig config;
  std::vector<std::string> arch_override;  // --arch (replaces [build] archs)
  std::string import_log;                  // --import: parse this instead of compiling
  std::string import_base_log;             // --import-base: the base's log, instead of --base
  std::string base_ref;                    // --base
  std::string out_dir;                     // the package folder
  std::string tool_version;
  Provenance provenance;  // the stage's block (StartProvenance), recorded in resources.json
};

struct BuildOutcome {
  ResourcesReport report;
  std::vector<std::string> written;  // files written, for the user
};

// InvalidInput for bad requests (no sources, no archs, unreadable log, unknown ref);
// a missing nvcc is not an error: the report says "missing".
Result<BuildOutcome> CollectBuildEvidence(ProcessRunner& runner, const BuildRequest& request);

// "sm_90a" for "sm_90a"/"compute_90a"; every sm_XX of a gencode value's code= list.
std::vector<std::string> TargetArchs(const std::vector<std::string>& targets);

}  // namespace av
