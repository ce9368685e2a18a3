#include "review/component_kind.h"

#include <array>
#include <utility>

#include "review/change_blocks.h"

namespace av {
namespace {

constexpr std::array<std::pair<ComponentKind, std::string_view>, 8> kNames = {{
    {ComponentKind::kGeneric, "generic"},
    {ComponentKind::kAttention, "attention"},
    {ComponentKind::kMlaDecode, "mla_decode"},
    {ComponentKind::kSplitkCombine, "splitk_combine"},
    {ComponentKind::kGemm, "gemm"},
    {ComponentKind::kScheduler, "scheduler"},
    {ComponentKind::kJitConfig, "jit_config"},
    {ComponentKind::kTests, "tests"},
}};

// A word naming GEMM code: "gemm", "deepgemm", "gemmlib", "sgemm" (not "gemma", a model).
bool IsGemmWord(const std::string& w) {
  return (w.find("gemm") != std::string::npos && w.find("gemma") == std::string::npos) ||
         w == "matmul";
}

bool HasGemm(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (IsGemmWord(w)) return true;
  }
  return false;
}

bool Has(const std::vector<std::string>& words, std::initializer_list<std::string_view> any) {
  for (const std::string& w : words) {
    for (std::string_view a : any) {
      if (w == a) return true;
    }
  }
  return false;
}

// Words of every folder and the file name (extension dropped): "deep_gemm/jit_kernels/gemm.py"
// -> deep, gemm, jit, kernels, gemm.
std::vector<std::string> PathWords(std::string_view path) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(pos, slash - pos);
    if (slash == path.size()) {
      const size_t dot = part.rfind('.');
      if (dot != std::string_view::npos && dot > 0) part = part.substr(0, dot);
    }
    for (std::string& w : IdentifierWords(part)) {
      // "get-mla-metadata": IdentifierWords splits on '_' only.
      size_t start = 0;
      for (size_t i = 0; i <= w.size(); ++i) {
        if (i == w.size() || w[i] == '-' || w[i] == '.') {
          if (i > start) words.push_back(w.substr(start, i - start));
          start = i + 1;
        }
      }
    }
    pos = slash + 1;
  }
  return words;
}

}  // namespace

std::string_view ComponentKindName(ComponentKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "generic";
}

std::optional<ComponentKind> ParseComponentKind(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::vector<std::string> ComponentKindNames() {
  std::vector<std::string> out;
  for (const auto& [k, n] : kNames) out.emplace_back(n);
  return out;
}

std::optional<ComponentKind> InferComponentKind(std::string_view name_or_path) {
  const std::vector<std::string> w = PathWords(name_or_path);
  // Most specific first: a "tests" folder of a GEMM library is tests, a combine kernel of
  // an MLA library is the combine.
  if (Has(w, {"test", "tests", "testing", "bench", "benchmark", "benchmarks", "conftest"})) {
    return ComponentKind::kTests;
  }
  if (Has(w, {"combine", "combiner", "reduce", "reduction"})) return ComponentKind::kSplitkCombine;
  if (Has(w, {"scheduler", "schedulers", "sched", "scheduling", "metadata"})) {
    return ComponentKind::kScheduler;
  }
  if (Has(w, {"jit", "config", "configs", "tuner", "tuning", "heuristics", "autotune"})) {
    return ComponentKind::kJitConfig;
  }
  if (HasGemm(w)) return ComponentKind::kGemm;
  if (Has(w, {"mla", "decode", "decoding", "splitkv", "paged"})) return ComponentKind::kMlaDecode;
  if (Has(w, {"attention", "attn", "fmha", "mha", "flash", "flashattention", "softmax"})) {
    return ComponentKind::kAttention;
  }
  return std::nullopt;
}

FileKind KindOfFile(std::optional<ComponentKind> explicit_kind, std::string_view component,
                    std::string_view path) {
  FileKind fk;
  if (explicit_kind) {
    fk.kind = *explicit_kind;
  } else if (auto k = InferComponentKind(component)) {
    fk.kind = *k;
  } else if (auto p = InferComponentKind(path)) {
    fk.kind = *p;
  }
  // GEMM code: a GEMM kernel, or a scheduler, JIT config or unknown file that a GEMM
  // library holds (its component or path names GEMM). An attention kind never is.
  switch (fk.kind) {
    case ComponentKind::kGemm:
      fk.gemm = true;
      break;
    case ComponentKind::kScheduler:
    case ComponentKind::kJitConfig:
    case ComponentKind::kGeneric:
    case ComponentKind::kTests: {
      const std::vector<std::string> w =
          PathWords(std::string(component) + "/" + std::string(path));
      fk.gemm = HasGemm(w) && !Has(w, {"attention", "attn", "fmha", "mla", "flash"});
      break;
    }
    default:
      break;
  }
  return fk;
}

}  // namespace av
