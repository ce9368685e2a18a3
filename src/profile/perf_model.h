// The perf model as profile/ names it: evidence/perf.json's record (schema/perf_json.h,
// where the model and its reader live) under the names the importers and gates use, and
// the file operations of `attnverify profile`: reading perf.json and appending an import
// to it atomically (doc/formats/perf-json.md). Plain data; any thread.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "profile/kernel_name.h"
#include "schema/perf_json.h"
#include "schema/provenance.h"

namespace av::profile {

inline constexpr const char* kPerfSchema = kPerfJsonSchema;
namespace fig = perf_fig;
using Figure = PerfFigure;
using Launch = PerfLaunch;
using Summary = PerfSummary;
using KernelProfile = PerfKernel;
using PerfDoc = PerfRecord;

// perf.json's text (PerfToJsonText).
std::string RenderPerfJson(const PerfDoc& doc);
// Reads perf.json's text (ParsePerf); an error names `shown` and the JSON path.
Result<PerfDoc> ParsePerfJson(std::string_view text, const std::string& shown);
// Reads `path`; NotFound when it does not exist.
Result<PerfDoc> ReadPerfJson(const std::string& path);
// Adds `kernels` to the perf.json at `path` (created when absent), replacing what an
// earlier import of the same file (same sha256) for the same side left there, and writes
// it atomically. `provenance`, when given, replaces the file's (it names the import that
// wrote it last); else the file keeps the one it had. A perf.json that cannot be read is
// an error and is left as it was.
Status AppendPerfJson(const std::string& path, const std::vector<KernelProfile>& kernels,
                      const Provenance* provenance = nullptr);

}  // namespace av::profile
