// Loading a tensor named on the command line: `file.npy`, `file.safetensors:name`,
// `file.npz:name`. A .safetensors or .npz file holding exactly one tensor may omit
// the name. Errors name the file and, for a missing tensor, list the names present.
#pragma once

#include <string>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

struct TensorSpec {
  std::string path;
  std::string name;  // empty for .npy, or when the container's only tensor is meant
};

// Splits at the last ':' that follows a .safetensors / .npz path; anything else is a path.
TensorSpec ParseTensorSpec(const std::string& spec);

// Reads the tensor (memory-mapped, zero-copy where the format allows).
Result<Tensor> LoadTensor(const std::string& spec);

}  // namespace av
