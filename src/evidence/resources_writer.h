// Renderers of a ResourcesReport: evidence/resources.json (doc/formats/resources-json.md)
// and the console table `attnverify build` prints. Writers format what the report holds;
// they compute nothing. Pure functions; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "evidence/resources.h"

namespace av {

inline constexpr const char* kResourcesJsonSchema = "attnverify.resources/1";

nlohmann::json ResourcesReportToJson(const ResourcesReport& report,
                                     const std::string& tool_version);

// The text of resources.json: ResourcesReportToJson(...).dump(2) plus a newline, byte for
// byte, but built one kernel row at a time, so that a log of 300k kernels does not hold a
// JSON tree of all of them. Invalid UTF-8 in names is replaced.
std::string ResourcesReportToJsonText(const ResourcesReport& report,
                                      const std::string& tool_version);

// One row per kernel and arch ("before -> after" when a base was built), then findings,
// warnings and gate verdicts. Columns are padded; long names are shortened only where
// every row's name stays distinct (the JSON keeps them whole).
std::string FormatResourcesTable(const ResourcesReport& report);

}  // namespace av
