// The two wire formats a provider may speak, as one request and one normalised answer:
// Anthropic Messages (POST {base}/v1/messages) and OpenAI chat completions (POST
// {base}/v1/chat/completions). Usage is normalised to disjoint counts (uncached input,
// cache reads, cache writes, output); doc/provider.md has the mapping. The parsers take
// untrusted bytes and never crash (fuzz/llm_response_fuzz.cc). Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

enum class WireApi { kAnthropicMessages, kOpenAiChat };

std::string_view WireApiName(WireApi api);   // "anthropic-messages", "openai-chat"
std::string_view EndpointPath(WireApi api);  // "/v1/messages", "/v1/chat/completions"

struct ChatMessage {
  std::string role;  // "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::string model;
  int max_tokens = 1024;
  std::string system;  // empty: none
  std::vector<ChatMessage> messages;
};

// Disjoint token counts: nothing is counted twice.
struct Usage {
  int64_t input_tokens = 0;  // input not read from a cache
  int64_t output_tokens = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_creation_tokens = 0;
  int64_t Total() const {
    return input_tokens + cache_read_tokens + cache_creation_tokens + output_tokens;
  }
};

struct ChatResponse {
  std::string id;
  std::string model;
  std::string text;         // the text blocks, joined
  std::string stop_reason;  // "end_turn", "max_tokens", "stop", "length", ...
  Usage usage;
};

// The JSON body, compact with sorted keys (so it is its own canonical form). Invalid
// UTF-8 in the text is replaced by U+FFFD rather than refused.
std::string BuildRequestBody(WireApi api, const ChatRequest& request);

// A 2xx body. The error says what is missing or malformed ("usage.output_tokens is not
// a non-negative integer"); usage is required, since the ledger cannot do without it.
Result<ChatResponse> ParseResponseBody(WireApi api, std::string_view body);

// An error body as one line: "overloaded_error: Overloaded" from either format's
// {"error": {"type", "message"}}, else the body's first line, control characters
// dropped, at most 200 characters. Empty for an empty body.
std::string DescribeErrorBody(std::string_view body);

// The compact, key-sorted form of a JSON text (cassette keys); an error when it is not
// JSON or nests deeper than 64.
Result<std::string> CanonicalJson(std::string_view text);

// False when `text` nests arrays/objects deeper than `max_depth` (checked before any
// JSON parser sees untrusted bytes).
bool JsonDepthWithin(std::string_view text, int max_depth);

}  // namespace av
