// libFuzzer target for ParseJson: any bytes must either parse or be refused with a
// "fuzz.json:LINE:COL: ..." message (never a crash, a hang or an uncaught exception).
// What parses must agree with nlohmann's own parser, and must survive DumpJson and a
// second ParseJson unchanged. Seeds: fuzz/corpus/json_reader/.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/json_dump.h"
#include "core/json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  av::Result<nlohmann::json> ours = av::ParseJson(text, "fuzz.json");
  if (!ours.ok()) {
    if (ours.status().message().rfind("fuzz.json:", 0) != 0) __builtin_trap();
    return 0;
  }
  // nlohmann accepts a superset (last duplicate key wins, deeper nesting); whatever we
  // accept it must read the same.
  nlohmann::json theirs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (theirs.is_discarded() || theirs != *ours) __builtin_trap();
  std::string again;
  try {
    again = av::DumpJson(*ours);
  } catch (...) {
    __builtin_trap();
  }
  av::Result<nlohmann::json> back = av::ParseJson(again, "fuzz.json");
  if (!back.ok() || *back != *ours) __builtin_trap();
  return 0;
}
