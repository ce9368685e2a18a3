// Whether a case's parameters can be built together: h_q a multiple of h_kv, dv within
// d where the op needs it, and at most 2 GiB of inputs and of float64 reference outputs.
// The sweep's expansion and the drawn cases ask before a case exists; BuildCase asks
// again. Pure; any thread.
#pragma once

#include "core/status.h"
#include "sweep/shapes_config.h"

namespace av {

// Problems a case's parameters have together (h_q not a multiple of h_kv, dv > d, more
// than 2 GiB of inputs); Ok when BuildCase can run.
Status CheckCaseConstraints(const CaseSpec& spec);

}  // namespace av
