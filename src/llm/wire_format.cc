#include "llm/wire_format.h"

#include <nlohmann/json.hpp>

namespace av {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 64;
constexpr int64_t kMaxTokenCount = 1'000'000'000'000;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Result<json> ParseJson(std::string_view body) {
  if (!JsonDepthWithin(body, kMaxDepth)) {
    return InvalidInput("the JSON nests deeper than " + std::to_string(kMaxDepth));
  }
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidInput("the body is not JSON");
  return j;
}

const json* Member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string StringMember(const json& obj, const char* key) {
  const json* v = Member(obj, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// A non-negative integer count at obj[key]; absent or null is 0 when optional.
Status Count(const json& obj, const char* key, const std::string& where, bool optional,
             int64_t* out) {
  const json* v = Member(obj, key);
  if (v == nullptr || v->is_null()) {
    if (optional) {
      *out = 0;
      return Status::Ok();
    }
    return InvalidInput(where + "." + key + " is missing");
  }
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u <= static_cast<uint64_t>(kMaxTokenCount)) {
      *out = static_cast<int64_t>(u);
      return Status::Ok();
    }
  } else if (v->is_number_integer()) {
    int64_t i = v->get<int64_t>();
    if (i >= 0 && i <= kMaxTokenCount) {
      *out = i;
      return Status::Ok();
    }
  }
  return InvalidInput(where + "." + key + " is not a non-negative integer");
}

Result<ChatResponse> ParseAnthropic(const json& j) {
  ChatResponse r;
  r.id = StringMember(j, "id");
  r.model = StringMember(j, "model");
  r.stop_reason = StringMember(j, "stop_reason");
  const json* content = Member(j, "content");
  if (content == nullptr || !content->is_array()) return InvalidInput("content is not an array");
  for (const json& block : *content) {
    if (StringMember(block, "type") == "text") r.text += StringMember(block, "text");
  }
  const json* usage = Member(j, "usage");
  if (usage == nullptr || !usage->is_object()) return InvalidInput("usage is missing");
  AV_RETURN_IF_ERROR(Count(*usage, "input_tokens", "usage", false, &r.usage.input_tokens));
  AV_RETURN_IF_ERROR(Count(*usage, "output_tokens", "usage", false, &r.usage.output_tokens));
  AV_RETURN_IF_ERROR(
      Count(*usage, "cache_read_input_tokens", "usage", true, &r.usage.cache_read_tokens));
  AV_RETURN_IF_ERROR(
      Count(*usage, "cache_creation_input_tokens", "usage", true, &r.usage.cache_creation_tokens));
  return r;
}

Result<ChatResponse> ParseOpenAi(const json& j) {
  ChatResponse r;
  r.id = StringMember(j, "id");
  r.model = StringMember(j, "model");
  const json* choices = Member(j, "choices");
  if (choices == nullptr || !choices->is_array()) return InvalidInput("choices is not an array");
  if (!choices->empty()) {
    const json& first = (*choices)[0];
    r.stop_reason = StringMember(first, "finish_reason");
    if (const json* message = Member(first, "message")) r.text = StringMember(*message, "content");
  }
  const json* usage = Member(j, "usage");
  if (usage == nullptr || !usage->is_object()) return InvalidInput("usage is missing");
  int64_t prompt = 0;
  int64_t cached = 0;
  AV_RETURN_IF_ERROR(Count(*usage, "prompt_tokens", "usage", false, &prompt));
  AV_RETURN_IF_ERROR(Count(*usage, "completion_tokens", "usage", false, &r.usage.output_tokens));
  if (const json* details = Member(*usage, "prompt_tokens_details")) {
    if (details->is_object()) {
      AV_RETURN_IF_ERROR(
          Count(*details, "cached_tokens", "usage.prompt_tokens_details", true, &cached));
    }
  }
  // OpenAI counts cached tokens inside prompt_tokens; split them out.
  if (cached > prompt) {
    return InvalidInput("usage.prompt_tokens_details.cached_tokens exceeds usage.prompt_tokens");
  }
  r.usage.input_tokens = prompt - cached;
  r.usage.cache_read_tokens = cached;
  return r;
}

std::string OneLine(std::string_view text, size_t max) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      if (!out.empty()) break;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) continue;
    out.push_back(c);
    if (out.size() >= max) {
      out += "...";
      break;
    }
  }
  return out;
}

}  // namespace

std::string_view WireApiName(WireApi api) {
  return api == WireApi::kAnthropicMessages ? "anthropic-messages" : "openai-chat";
}

std::string_view EndpointPath(WireApi api) {
  return api == WireApi::kAnthropicMessages ? "/v1/messages" : "/v1/chat/completions";
}

std::string BuildRequestBody(WireApi api, const ChatRequest& request) {
  json body = json::object();
  body["model"] = request.model;
  body["max_tokens"] = request.max_tokens;
  json messages = json::array();
  if (api == WireApi::kAnthropicMessages) {
    // The system prompt is the same on every request of a stage: one text block marked
    // for Anthropic's prompt cache, so the requests after the first read it from the
    // cache (usage.cache_read_input_tokens, recorded in the ledger). A prompt under the
    // model's minimum cacheable length is simply not cached.
    if (!request.system.empty()) {
      body["system"] = json::array({json{{"type", "text"},
                                         {"text", request.system},
                                         {"cache_control", {{"type", "ephemeral"}}}}});
    }
  } else if (!request.system.empty()) {
    // OpenAI-style APIs cache a long repeated prefix on their own; there is no field.
    messages.push_back({{"role", "system"}, {"content", request.system}});
  }
  for (const ChatMessage& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  body["messages"] = std::move(messages);
  return Dump(body);
}

Result<ChatResponse> ParseResponseBody(WireApi api, std::string_view body) {
  AV_ASSIGN_OR_RETURN(json j, ParseJson(body));
  if (!j.is_object()) return InvalidInput("the body is not a JSON object");
  return api == WireApi::kAnthropicMessages ? ParseAnthropic(j) : ParseOpenAi(j);
}

std::string DescribeErrorBody(std::string_view body) {
  if (body.empty()) return "";
  Result<json> j = ParseJson(body);
  if (j.ok()) {
    const json* error = Member(*j, "error");
    if (error != nullptr && error->is_object()) {
      std::string type = StringMember(*error, "type");
      if (type.empty()) type = StringMember(*error, "code");
      std::string message = OneLine(StringMember(*error, "message"), 200);
      if (!type.empty() && !message.empty()) return OneLine(type, 60) + ": " + message;
      if (!message.empty()) return message;
      if (!type.empty()) return OneLine(type, 60);
    }
    if (error != nullptr && error->is_string()) return OneLine(error->get<std::string>(), 200);
  }
  return OneLine(body, 200);
}

Result<std::string> CanonicalJson(std::string_view text) {
  AV_ASSIGN_OR_RETURN(json j, ParseJson(text));
  return Dump(j);
}

bool JsonDepthWithin(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

}  // namespace av
