// Demangling of the names ptxas prints ('_Z13flash_mla_fwdILi64EEvPKfPfi' ->
// 'void flash_mla_fwd<64>(float const*, float*, int)'), template arguments kept, so that
// base and head kernels match by what a reader sees. Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

// The demangled name, or `mangled` itself when it is not an Itanium C++ name (extern "C"
// kernels), is longer than kMaxDemangleInput, or does not demangle.
std::string DemangleKernelName(std::string_view mangled);

// "flash_mla_fwd<64>" from "void flash_mla_fwd<64>(float const*, float*, int)": the
// qualified name with template arguments, without return type and parameters.
std::string KernelShortName(std::string_view demangled);

// "flash_mla_fwd" from the above: the unqualified base name without template arguments.
std::string KernelBaseName(std::string_view demangled);

// "deep_gemm::fp8_gemm_kernel" from "void deep_gemm::fp8_gemm_kernel<128u, 4u>(float*)":
// the qualified name with every template argument list removed. Base and head kernels
// whose template arguments changed pair on it.
std::string KernelQualifiedName(std::string_view demangled);

// The template arguments of the kernel itself, split at top-level commas
// ({"128u", "4u"} above); empty when it is not a template.
std::vector<std::string> KernelTemplateArguments(std::string_view demangled);

// CUTLASS-style mangled names reach a few KiB; beyond this we keep the mangled form.
inline constexpr size_t kMaxDemangleInput = 16384;

}  // namespace av
