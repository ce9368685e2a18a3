// Kernel names as profilers print them, reduced to a key that is the same for one kernel
// whichever tool printed it. nsys prints `internal::gemvx::kernel<..., (bool)0, (int)7>(T13)`,
// ncu `kernel<..., 0, 7>(T13)` for the same launch; a mangled `_Z...` name is demangled
// first. The key drops namespaces, value casts, the return type, the parameter list and
// spaces, and keeps the template arguments (they tell two instantiations apart). Pure
// functions; any thread.
#pragma once

#include <string>
#include <string_view>

#include "schema/perf_json.h"

namespace av::profile {

// raw, demangled, key, short_name (perf.json's "name").
using KernelName = PerfKernelName;

KernelName NormaliseKernelName(std::string_view raw);

}  // namespace av::profile
