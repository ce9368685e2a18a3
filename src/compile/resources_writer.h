// Renderers of a ResourcesReport: its evidence/resources.json record
// (schema/resources_json.h writes the JSON; fields: doc/formats/resources-json.md) and the
// console table `attnverify build` prints. Writers format what the report holds; they
// compute nothing. Pure functions; any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "compile/resources.h"
#include "schema/provenance.h"
#include "schema/resources_json.h"

namespace av {

// The record of `report`. `provenance` is the build stage's block: it gets the build
// logs (read now for their digests) as inputs and, unless it has one, the finish time.
// Log paths are package-relative already; `package_dir` is the package folder.
ResourcesRecord ResourcesReportToRecord(const ResourcesReport& report, Provenance provenance,
                                        const std::string& package_dir);
nlohmann::json ResourcesReportToJson(const ResourcesReport& report, Provenance provenance,
                                     const std::string& package_dir);

// The text of resources.json: JsonFileText(ResourcesReportToJson(...)), byte for
// byte, but built one kernel row at a time, so that a log of 300k kernels does not hold a
// JSON tree of all of them. Invalid UTF-8 in names is replaced.
std::string ResourcesReportToJsonText(const ResourcesReport& report, Provenance provenance,
                                      const std::string& package_dir);

// One row per kernel and arch ("before -> after" when a base was built), then findings,
// warnings and gate verdicts. Columns are padded; long names are shortened only where
// every row's name stays distinct (the JSON keeps them whole).
std::string FormatResourcesTable(const ResourcesReport& report);

}  // namespace av
