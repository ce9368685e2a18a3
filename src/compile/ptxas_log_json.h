// The JSON form of a PtxasReport (doc/formats/ptxas-log.md): used for the parser's
// golden files and embedded in evidence/resources.json. Unknown values (-1) are null.
// Pure functions; any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "compile/ptxas_log.h"

namespace av {

nlohmann::json PtxasKernelToJson(const PtxasKernel& kernel);
nlohmann::json PtxasDiagnosticToJson(const PtxasDiagnostic& diagnostic);
nlohmann::json PtxasReportToJson(const PtxasReport& report);

}  // namespace av
