// A text scan of CUDA sources for the dynamic shared memory a kernel is given: the
// value passed to cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
// v) (or cuFuncSetAttribute(..., CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v)), the
// third argument of k<<<grid, block, smem>>> (0 for k<<<grid, block>>>), the sharedMem
// argument of cudaLaunchKernel/cudaLaunchCooperativeKernel/cuLaunchKernel, and the
// dynamicSmemBytes (sharedMemBytes) set before cudaLaunchKernelEx (cuLaunchKernelEx). A
// cast around the kernel (`(void*)k`, `reinterpret_cast<void*>(&k)`) is looked through.
// When v is a compile-time constant of the same file (literal, constexpr, #define) it is
// evaluated. The result is a finding for the report, never a silent input to the budget:
// attnverify.toml declares what the budget uses; what the scan finds decides whether the
// cap can be judged for a kernel the file does not declare (resources.h,
// dynamic_smem_unknown). Not a C++ parser: macros and templates it cannot follow are
// reported as non-constant; a kernel passed through a local variable
// (`auto k = &kernel<...>;`) is followed back to the kernel. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace av {

struct DynamicSmemSite {
  std::string file;
  int line = 0;
  // "cudaFuncSetAttribute", "cuFuncSetAttribute", "launch" (<<<>>>), or the launch API
  // ("cudaLaunchKernelEx", "cuLaunchKernel", ...)
  std::string via;
  // The kernel expression ("&flash_fwd<64>"); when the call names a local variable
  // (`auto k = &flash_fwd<64>; cudaFuncSetAttribute(k, ...)`), what it was set to.
  std::string kernel;
  std::string alias;             // that variable ("k"), else empty
  std::string kernel_base;       // "flash_fwd": what is matched against ptxas' names
  std::string value_expr;        // "kDynSmemBytes"
  std::optional<int64_t> value;  // when it evaluates to a compile-time constant
  // When value_expr names a constexpr/const this file defines but attnverify cannot
  // evaluate (`constexpr size_t smem = sizeof(Plan);`): that definition, shortened.
  std::string value_constexpr;
  bool included = false;  // found in a header a source includes, not in a source itself
};

// Scans one source file's text. Sources over 64 MiB are skipped (empty result).
std::vector<DynamicSmemSite> ScanDynamicSmem(std::string_view source, const std::string& file);

}  // namespace av
