// What a component's code is, so the reviewer asks the questions that fit it: attention
// and MLA decode kernels get mask and softmax questions, GEMM code never does (DeepGEMM's
// `GroupedMasked` is a layout, its `padding` is shared-memory bank padding), tests raise
// nothing. A kind comes from `kind = "..."` in [components], else from the component's name,
// else from the file's path (doc/review.md "Component kinds"). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace av {

enum class ComponentKind {
  kGeneric,        // nothing known: every rule applies
  kAttention,      // attention forward/backward kernels
  kMlaDecode,      // MLA / paged decode kernels
  kSplitkCombine,  // the split-k combine (partial outputs and LSE)
  kGemm,           // GEMM kernels
  kScheduler,      // tile schedulers and their metadata kernels
  kJitConfig,      // Python (or host) code choosing tiles, stages and launch sizes
  kTests,          // tests and benchmarks: only for what they no longer check
};

std::string_view ComponentKindName(ComponentKind kind);  // "attention", "mla_decode", ...
std::optional<ComponentKind> ParseComponentKind(std::string_view name);
std::vector<std::string> ComponentKindNames();

// From the words of a component name or path: "combine" -> split-k combine, "deep_gemm" ->
// GEMM, "tests" -> tests; nullopt when no word decides.
std::optional<ComponentKind> InferComponentKind(std::string_view name_or_path);

// What the reviewer knows about one file: its kind and whether it is GEMM code (a GEMM
// kernel, or a scheduler / JIT config / generic file of a GEMM library).
struct FileKind {
  ComponentKind kind = ComponentKind::kGeneric;
  bool gemm = false;
  bool attention() const { return !gemm; }
};

// `explicit_kind` from [components] wins; then the component's name; then the path.
FileKind KindOfFile(std::optional<ComponentKind> explicit_kind, std::string_view component,
                    std::string_view path);

}  // namespace av
