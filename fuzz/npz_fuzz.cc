// libFuzzer target for ParseNpz: any input must either parse or return a Status, and
// every member that Get() returns must be readable to its last element (ASan checks).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/buffer.h"
#include "tensor/npz.h"
#include "tensor/tensor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer = av::CopyToBuffer(std::string_view(reinterpret_cast<const char*>(data), size));
  auto archive = av::ParseNpz(buffer, "fuzz.npz");
  if (!archive.ok()) return 0;
  double sink = 0;
  for (const std::string& name : archive->names()) {
    auto t = archive->Get(name);
    if (!t.ok()) continue;
    for (int64_t i = 0; i < t->numel(); ++i) {
      double v = 0;
      av::LoadAsDouble(t->dtype(), t->data() + t->ByteOffset(t->Unravel(i)), 0, 1, &v);
      sink += v;
    }
  }
  volatile double keep = sink;
  (void)keep;
  return 0;
}
