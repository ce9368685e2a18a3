// The .npy header: a Python dict literal ({'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }) parsed by a small real parser of that literal subset, and the
// descr allowlist mapping numpy type codes onto DTypes. Used by npy.cc only.
// Pure functions, safe from any thread. Accepted and refused forms: doc/formats/npy.md.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

// How one npy descr maps onto a DType.
struct NpyElement {
  DType dtype = DType::kF32;
  bool big_endian = false;  // the bytes of each element must be reversed
};

struct NpyHeader {
  NpyElement element;
  bool fortran_order = false;
  Shape shape;
};

// Parses the header text (the bytes between the length field and the data). `base` is
// the text's offset in the file, so errors can name byte positions; `name` starts
// every message.
Result<NpyHeader> ParseNpyHeader(std::string_view text, size_t base, const std::string& name);

// The descr np.save writes for `dtype` ("<f4", "|u1", ...); empty for bf16 and float8,
// which npy cannot describe.
std::string_view NpyDescrFor(DType dtype);

}  // namespace av
