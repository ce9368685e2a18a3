// libFuzzer target for the provider's answer parsers: any bytes, read as an Anthropic
// Messages body, an OpenAI chat body, an error body and a cassette request, either parse
// or give an error (never a crash, never a read outside the input). A parsed usage has
// non-negative disjoint counts; an error line is one line of bounded length; the
// canonical form of JSON is a fixed point. Seeds: fuzz/corpus/llm_response/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/wire_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  for (av::WireApi api : {av::WireApi::kAnthropicMessages, av::WireApi::kOpenAiChat}) {
    av::Result<av::ChatResponse> r = av::ParseResponseBody(api, body);
    if (!r.ok()) {
      if (r.status().message().empty()) __builtin_trap();
      continue;
    }
    const av::Usage& u = r->usage;
    if (u.input_tokens < 0 || u.output_tokens < 0 || u.cache_read_tokens < 0 ||
        u.cache_creation_tokens < 0 || u.Total() < u.output_tokens) {
      __builtin_trap();
    }
  }
  std::string line = av::DescribeErrorBody(body);
  if (line.find('\n') != std::string::npos || line.find('\r') != std::string::npos ||
      line.size() > 270) {
    __builtin_trap();
  }
  av::Result<std::string> canonical = av::CanonicalJson(body);
  if (canonical.ok()) {
    av::Result<std::string> again = av::CanonicalJson(*canonical);
    if (!again.ok() || *again != *canonical) __builtin_trap();
  }
  return 0;
}
