// libFuzzer target for ParseNpy: any input must either parse or return a Status, and
// a parsed tensor's every element must lie inside its buffer (ASan checks each read).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/buffer.h"
#include "tensor/npy.h"
#include "tensor/tensor.h"

namespace {

// Reads every element through the tensor's shape and strides.
void TouchEveryElement(const av::Tensor& t) {
  double sink = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = 0;
    av::LoadAsDouble(t.dtype(), t.data() + t.ByteOffset(t.Unravel(i)), 0, 1, &v);
    sink += v;
  }
  volatile double keep = sink;
  (void)keep;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer = av::CopyToBuffer(std::string_view(reinterpret_cast<const char*>(data), size));
  auto tensor = av::ParseNpy(buffer, "fuzz.npy");
  if (tensor.ok()) {
    TouchEveryElement(*tensor);
    // What we write must parse back to the same shape.
    auto bytes = av::SerializeNpy(*tensor);
    if (bytes.ok()) {
      auto back = av::ParseNpy(av::CopyToBuffer(*bytes), "fuzz-rewritten.npy");
      if (!back.ok() || back->shape() != tensor->shape()) __builtin_trap();
    }
  }
  return 0;
}
