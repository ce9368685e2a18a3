// What the perf round is told of evidence/perf.json: the profiler's launches matched base to
// head and judged by the same gates `attnverify report` applies (profile/gates.h), one line
// per gate in the tool's own words (the time gate's median ratio and its 95% interval), and
// the head's change in per cent. The regression the tool computed can then be stated, and a
// finding quoting it is supported by what the request carried. Pure function of its inputs.
#pragma once

#include <string>

#include "core/package_config.h"
#include "core/status.h"

namespace av {

// `perf_text`: evidence/perf.json's bytes; `package`: attnverify.toml as already parsed
// (its [profile] table; the defaults when it is null, has none, or the table is bad). An
// error when perf.json does not parse (naming it).
Result<std::string> PerfGateSummary(const std::string& perf_text, const PackageConfig* package);

}  // namespace av
