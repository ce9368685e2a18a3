// libFuzzer target for ParseSafetensors: any byte string must yield a Status or a file
// whose every tensor element can be read, never a crash, hang or out-of-bounds read.
// Seeds: fuzz/corpus/safetensors/ (copies of testdata/safetensors/*.safetensors).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "tensor/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  av::Result<av::SafetensorsFile> file = av::ParseSafetensors(av::CopyToBuffer(bytes), "fuzz");
  if (!file.ok()) return 0;
  std::vector<double> values;
  for (const auto& [name, tensor] : file->tensors) {
    if (tensor.numel() == 0) continue;
    // Parsed tensors are contiguous views, so one strided load covers every element.
    values.resize(static_cast<size_t>(tensor.numel()));
    av::LoadAsDouble(tensor.dtype(), tensor.data(), static_cast<int64_t>(tensor.element_size()),
                     tensor.numel(), values.data());
    (void)file->Find(name);
  }
  return 0;
}
