// A candidate for timing the sweep, not for judging kernels: it answers every case with
// attnverify's own fast reference in float32 (RunReferenceOp, fast path, float32
// accumulation), so a full-grid measurement (bench/full_grid.sh) is not swamped by a
// naive candidate — cpu_candidate's scalar loops take about 2 GFLOP/s, hours on the full
// grids. It shares code with the reference, so it proves nothing about correctness; its
// time is reported apart and never counted as the sweep's own.
//
//   fast_candidate CASES_JSON
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "reference/f64_array.h"
#include "reference/ref_ops.h"
#include "tensor/safetensors.h"
#include "tensor/tensor.h"

namespace {

using av::DType;
using av::NamedTensors;
using av::Tensor;
using nlohmann::json;
namespace fs = std::filesystem;

av::Status RunCase(const fs::path& dir) {
  std::ifstream f(dir / "case.json");
  const json spec = json::parse(f, nullptr, false);
  if (spec.is_discarded()) return av::InvalidInput((dir / "case.json").string() + ": not JSON");
  AV_ASSIGN_OR_RETURN(auto file,
                      av::ReadSafetensors((dir / spec["inputs_file"].get<std::string>()).string()));
  NamedTensors inputs;
  for (const auto& [name, tensor] : file.tensors) {
    Tensor view = tensor;
    const json& layout = spec["inputs"][name];
    if (layout.contains("storage_shape")) {  // padded rows: the op reads the leading elements
      const int last = view.ndim() - 1;
      AV_ASSIGN_OR_RETURN(view, view.Slice(last, 0, layout["shape"][last].get<int64_t>()));
    }
    inputs.emplace_back(name, view);
  }
  av::OpParams params;
  for (const auto& [key, value] : spec["op_params"].items())
    params.Set(key, value.get<std::string>());
  const std::string op = spec["op"].get<std::string>();
  const av::ReferenceOp* ref = av::FindReferenceOp(op);
  av::RefImpl impl;
  impl.kind =
      ref != nullptr && ref->run_fast != nullptr ? av::ImplKind::kFast : av::ImplKind::kOracle;
  impl.fast_f32 = true;
  AV_ASSIGN_OR_RETURN(NamedTensors outputs, av::RunReferenceOp(op, inputs, params, impl));
  NamedTensors written;
  for (const auto& [name, out_spec] : spec["outputs"].items()) {
    const Tensor* found = nullptr;
    for (const auto& [n, t] : outputs)
      if (n == name) found = &t;
    if (found == nullptr) return av::Internal("the reference gave no output " + name);
    const std::optional<DType> dtype = av::ParseDTypeName(out_spec["dtype"].get<std::string>());
    if (!dtype) return av::InvalidInput("unknown dtype " + out_spec["dtype"].dump());
    written.emplace_back(name, av::LoadF64(*found).ToTensor(*dtype));
  }
  const fs::path out = dir / spec.value("out_dir", std::string("out"));
  fs::create_directories(out);
  return av::WriteSafetensors((out / "outputs.safetensors").string(), written,
                              {{"kernel_path", "fast_reference_f32"}});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fast_candidate CASES_JSON\n");
    return 2;
  }
  std::ifstream f(argv[1]);
  const json index = json::parse(f, nullptr, false);
  if (index.is_discarded() || !index.contains("cases")) {
    std::fprintf(stderr, "fast_candidate: %s is not a cases.json\n", argv[1]);
    return 2;
  }
  int failed = 0;
  for (const json& entry : index["cases"]) {
    // "dir" is absolute, or relative to cases.json's folder.
    const fs::path dir = fs::path(argv[1]).parent_path() / entry["dir"].get<std::string>();
    const av::Status st = RunCase(dir);
    if (!st.ok()) {
      std::fprintf(stderr, "fast_candidate: %s: %s\n", dir.c_str(), st.message().c_str());
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}
