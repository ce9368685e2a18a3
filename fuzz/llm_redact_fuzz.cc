// libFuzzer target for RedactSecrets: any bytes (the prompt of a hostile repository)
// are scanned without a crash; redacting the output again changes nothing, and a
// literal secret planted in the input never survives. Seeds: fuzz/corpus/llm_redact/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/redact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const av::RedactionContext* ctx = [] {
    auto* c = new av::RedactionContext();
    c->AddLiteral("provider_key", "fuzz-canary-literal-0123");
    return c;
  }();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string planted = std::string(text.substr(0, size / 2)) + "fuzz-canary-literal-0123" +
                        std::string(text.substr(size / 2));
  av::RedactionResult r = av::RedactSecrets(planted, *ctx);
  if (r.text.find("fuzz-canary-literal-0123") != std::string::npos) __builtin_trap();
  if (r.count < 1) __builtin_trap();
  if (av::RedactedText(r.text, *ctx) != r.text) __builtin_trap();
  return 0;
}
