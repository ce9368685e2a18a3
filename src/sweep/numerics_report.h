// Renderers of a NumericsRun: its evidence/numerics.json record (schema/numerics_json.h
// writes the JSON; fields: doc/formats/numerics-json.md), a JUnit XML file (one
// <testcase> per case, for CI dashboards) and the console summary table. Writers only
// format what the run holds. Pure functions; any thread.
#pragma once

#include <string>

#include "schema/numerics_json.h"
#include "schema/provenance.h"
#include "sweep/numerics_run_types.h"

namespace av {

// The record of `run`. `provenance` is the stage's block (StartProvenance); the record
// gets attnverify.toml, shapes.json and tolerances.json as inputs with their digests, and
// the finish time. Paths are made relative to the package folder (config.base_dir).
NumericsRecord NumericsRunToRecord(const NumericsRun& run, const NumericsConfig& config,
                                   Provenance provenance);
std::string NumericsRunToJUnit(const NumericsRun& run);
// The same JUnit XML from a numerics.json record (attnverify merge writes it).
std::string NumericsToJUnit(const NumericsRecord& numerics);
// Where a filtered run's evidence goes when no path is named: beside the full sweep's,
// never over it ("evidence/numerics.json" -> "evidence/numerics.filtered.json",
// "numerics.junit.xml" -> "numerics.filtered.junit.xml"). The report reads only the full
// sweep's file (doc/run.md, "A subset of the sweep").
std::string FilteredEvidencePath(const std::string& path);
// Per sweep: cases, passed, failed, slowest; then up to `max_failures` failing cases.
std::string FormatNumericsSummary(const NumericsRun& run, size_t max_failures = 20);

}  // namespace av
