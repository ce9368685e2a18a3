// BuildConfig: the [build] table of attnverify.toml — what `attnverify build` compiles
// (sources, flags, target archs), the launch facts ptxas cannot know (block size and
// dynamic shared memory per kernel) and the gates. Only [build] is read; other top-level
// tables belong to other commands (the file is checked against core/package_schema.h when
// it is loaded: an unknown table or key is an error); unknown keys inside [build] are
// errors. Format: doc/formats/attnverify-toml-build.md. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"
#include "compile/int_expr.h"

namespace av {

// One [[build.kernel]] entry.
struct KernelLaunchConfig {
  std::string name;  // matched against mangled, demangled, short, qualified or base name
  std::optional<int> block_size;
  std::optional<int64_t> dynamic_smem_bytes;
  std::string dynamic_smem_expr;  // as written, for reports
  // The base revision's, when it differs (a refactor that changes the smem plan).
  std::optional<int64_t> base_dynamic_smem_bytes;
  std::string base_dynamic_smem_expr;
  int line = 0;  // in attnverify.toml

  // Dynamic shared memory of the head (or, `base` true, the base) kernel.
  std::optional<int64_t> DynamicSmem(bool base) const {
    return base && base_dynamic_smem_bytes ? base_dynamic_smem_bytes : dynamic_smem_bytes;
  }
};

struct BuildGates {
  bool no_new_spills = true;        // a spill where base had none (or any, without base)
  bool smem_within_cap = true;      // static + dynamic <= opt-in cap on every target arch
  bool occupancy_not_lower = true;  // warps per SM not lower than base
  int max_registers = 255;
};

struct BuildConfig {
  std::string path;  // of attnverify.toml ("" when defaults)
  std::string root;  // absolute: where nvcc runs; sources and flags are relative to it
  std::vector<std::string> sources;
  std::vector<std::string> flags;
  std::vector<std::string> archs;  // "sm_90a" or a gencode value "arch=compute_90a,code=sm_90a"
  std::string nvcc;                // empty: find it (CUDA_HOME, CUDA_PATH, PATH)
  int timeout_s = 900;
  std::optional<int> block_size;  // default for kernels without their own
  IntConstants constants;
  std::vector<KernelLaunchConfig> kernels;
  BuildGates gates;
  // Run in the base copy before it is compiled ({head}: the head work tree's top, {base}:
  // the copy's top), e.g. to provide a submodule the local clone lacks.
  std::vector<std::string> base_setup;
};

// Parses `text` (the whole attnverify.toml); `path` names it in messages and anchors a
// relative `root`. Errors are "attnverify.toml:12:3: ...".
Result<BuildConfig> ParseBuildConfig(const PackageConfig& package);
Result<BuildConfig> ParseBuildConfig(std::string_view text, const std::string& path);

// Reads and parses `path`.
Result<BuildConfig> LoadBuildConfig(const std::string& path);

// The [[build.kernel]] entry for a kernel, or nullptr. Matching order: mangled name,
// full demangled name, short name with template arguments ("ns::flash_mla_fwd<64>"),
// qualified name ("ns::flash_mla_fwd"), then base name ("flash_mla_fwd").
const KernelLaunchConfig* FindKernelConfig(const BuildConfig& config, std::string_view mangled,
                                           std::string_view demangled);

// Whether `entry` names the kernel by any of those names.
bool KernelEntryNames(const KernelLaunchConfig& entry, std::string_view mangled,
                      std::string_view demangled);

}  // namespace av
