// Builds one case's inputs from its CaseSpec, deterministically: the same (case id,
// seed) gives the same bytes on every machine (sweep/rng.h). Stress patterns are
// parameters: sequence lengths around 64-key edges and zero-length sequences, random
// page tables whose unused pages are NaN and whose unused slots hold sentinels, keys
// past a sequence's length NaN-poisoned, padded rows (NaN) for strided layouts,
// large / near-tie logits, fp8-saturating values, invalid sparse indices.
// What each op generates: doc/formats/shapes-json.md. Pure; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "reference/ref_ops.h"
#include "sweep/shapes_config.h"
#include "sweep/shared_inputs.h"
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

// case.json's "notes", for its reader and the localiser: each sequence's key and query
// lengths, the paged cache's block count, a batch_permutation variant's order. A field
// the op does not have is absent (not written).
struct CaseNotes {
  std::optional<std::vector<int64_t>> key_lengths, query_lengths, batch_permutation;
  std::optional<int64_t> num_blocks;
  bool empty() const { return !key_lengths && !query_lengths && !batch_permutation && !num_blocks; }
};

struct BuiltCase {
  NamedTensors file_tensors;  // contiguous storage, written to inputs.safetensors
  std::vector<InputLayout> layouts;
  OpParams op_params;  // the reference op's parameters (candidate must honour them)
  std::vector<ExpectedOutput> outputs;
  CaseNotes notes;
};

// The input family of a case: the cases that share its largest inputs. For mla_decode
// and attention that is the key/value side (sequence lengths, page table, K and V
// caches), which depends on the sweep, dtype, seed and every parameter but the query
// side's (h_q, s_q, causal, windows, softcap; attention's h_kv as resolved, so h_q stays
// in when h_kv follows it): every (h_q, s_q) of one (b, s_k, lengths, seed) sees the same
// paged cache — except that mla_decode raises random key lengths below s_q to s_q, and
// the caches follow the lengths, so its family also holds the lengths as raised (drawn
// here: b normals). For fp8_gemm and gemm it is operand b, which depends on (n, k), not m
// (operand a is drawn from its own (m, k) id the same way). Cases of one family draw
// those inputs from the same streams (doc/formats/shapes-json.md) and generate them once
// when they share a SharedInputs. Sparse attention: "" (each case its own).
std::string InputFamily(const CaseSpec& spec);

// `shared` (may be null): the run's key/value tensors, generated once per family.
Result<BuiltCase> BuildCase(const CaseSpec& spec, SharedInputs* shared = nullptr);

// The op's view of the stored inputs: each tensor sliced to its logical shape.
Result<NamedTensors> ApplyLayouts(const NamedTensors& stored,
                                  const std::vector<InputLayout>& layouts);

}  // namespace av
