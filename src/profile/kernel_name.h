// Kernel names as profilers print them, reduced to a key that is the same for one kernel
// whichever tool printed it. nsys prints `internal::gemvx::kernel<..., (bool)0, (int)7>(T13)`,
// ncu `kernel<..., 0, 7>(T13)` for the same launch; a mangled `_Z...` name is demangled
// first. The key drops namespaces, value casts, the return type, the parameter list and
// spaces, and keeps the template arguments (they tell two instantiations apart). Pure
// functions; any thread.
#pragma once

#include <string>
#include <string_view>

namespace av::profile {

struct KernelName {
  std::string raw;         // as the tool printed it
  std::string demangled;   // raw, or its demangling when raw is a mangled `_Z` name
  std::string key;         // for matching: "kernel<int,int,__nv_bfloat16,...,0,1,7>"
  std::string short_name;  // the function's own name, no templates: "kernel"
};

KernelName NormaliseKernelName(std::string_view raw);

}  // namespace av::profile
