// Builds one case's inputs from its CaseSpec, deterministically: the same (case id,
// seed) gives the same bytes on every machine (sweep/rng.h). Stress patterns are
// parameters: sequence lengths around 64-key edges and zero-length sequences, random
// page tables whose unused pages are NaN and whose unused slots hold sentinels, keys
// past a sequence's length NaN-poisoned, padded rows (NaN) for strided layouts,
// large / near-tie logits, fp8-saturating values, invalid sparse indices.
// What each op generates: doc/formats/shapes-json.md. Pure; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "reference/ref_ops.h"
#include "sweep/shapes_config.h"
#include "tensor/tensor.h"

namespace av {

// Row padding of a `padded` case's floating inputs, in elements (NaN-filled). 8 keeps
// bf16 rows 16-byte aligned, as strided GPU loads need, while changing every stride.
inline constexpr int64_t kRowPadding = 8;

struct InputLayout {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;          // what the op sees
  Shape storage_shape;  // what the file holds; equal to shape unless padded
};

struct ExpectedOutput {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;
};

struct BuiltCase {
  NamedTensors file_tensors;  // contiguous storage, written to inputs.safetensors
  std::vector<InputLayout> layouts;
  OpParams op_params;  // the reference op's parameters (candidate must honour them)
  std::vector<ExpectedOutput> outputs;
  nlohmann::json notes;  // lengths, page counts: for the reader of case.json
};

// Problems a case's parameters have together (h_q not a multiple of h_kv, dv > d, more
// than 2 GiB of inputs); Ok when BuildCase can run.
Status CheckCaseConstraints(const CaseSpec& spec);

Result<BuiltCase> BuildCase(const CaseSpec& spec);

// The op's view of the stored inputs: each tensor sliced to its logical shape.
Result<NamedTensors> ApplyLayouts(const NamedTensors& stored,
                                  const std::vector<InputLayout>& layouts);

}  // namespace av
