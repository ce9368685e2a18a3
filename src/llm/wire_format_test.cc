#include "llm/wire_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace av {
namespace {

using nlohmann::json;

TEST(WireFormatTest, AnthropicRequestBody) {
  ChatRequest r;
  r.model = "claude-test";
  r.max_tokens = 64;
  r.system = "Answer briefly.";
  r.messages = {{"user", "what does split-k do?"}};
  json body = json::parse(BuildRequestBody(WireApi::kAnthropicMessages, r));
  EXPECT_EQ(body["model"], "claude-test");
  EXPECT_EQ(body["max_tokens"], 64);
  // One text block, marked for the prompt cache (the system prompt repeats every request).
  ASSERT_TRUE(body["system"].is_array());
  ASSERT_EQ(body["system"].size(), 1u);
  EXPECT_EQ(body["system"][0]["type"], "text");
  EXPECT_EQ(body["system"][0]["text"], "Answer briefly.");
  EXPECT_EQ(body["system"][0]["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "what does split-k do?");
}

TEST(WireFormatTest, OpenAiRequestPutsTheSystemPromptFirst) {
  ChatRequest r;
  r.model = "gpt-test";
  r.system = "sys";
  r.messages = {{"user", "q"}};
  json body = json::parse(BuildRequestBody(WireApi::kOpenAiChat, r));
  EXPECT_FALSE(body.contains("system"));
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1]["content"], "q");
}

TEST(WireFormatTest, InvalidUtf8InAPromptIsReplacedNotFatal) {
  ChatRequest r;
  r.model = "m";
  r.messages = {{"user", "latin-1 \xe9 byte"}};
  std::string body = BuildRequestBody(WireApi::kAnthropicMessages, r);
  EXPECT_TRUE(json::accept(body));
}

TEST(WireFormatTest, AnthropicUsageIsDisjoint) {
  Result<ChatResponse> r = ParseResponseBody(
      WireApi::kAnthropicMessages,
      R"({"id":"msg_1","model":"m","content":[{"type":"text","text":"Split-k "},{"type":"tool_use"},
          {"type":"text","text":"splits keys."}],"stop_reason":"end_turn",
          "usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":300,
                   "cache_creation_input_tokens":50}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->id, "msg_1");
  EXPECT_EQ(r->text, "Split-k splits keys.");
  EXPECT_EQ(r->stop_reason, "end_turn");
  EXPECT_EQ(r->usage.input_tokens, 100);
  EXPECT_EQ(r->usage.cache_read_tokens, 300);
  EXPECT_EQ(r->usage.cache_creation_tokens, 50);
  EXPECT_EQ(r->usage.output_tokens, 20);
  EXPECT_EQ(r->usage.Total(), 470);
}

TEST(WireFormatTest, OpenAiCachedTokensAreSplitOutOfPromptTokens) {
  Result<ChatResponse> r = ParseResponseBody(
      WireApi::kOpenAiChat,
      R"({"id":"c1","choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
          "usage":{"prompt_tokens":1000,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":600}}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text, "ok");
  EXPECT_EQ(r->usage.input_tokens, 400);
  EXPECT_EQ(r->usage.cache_read_tokens, 600);
  EXPECT_EQ(r->usage.output_tokens, 7);
  EXPECT_EQ(r->usage.Total(), 1007);
}

TEST(WireFormatTest, MalformedAnswersSayWhatIsWrong) {
  struct {
    WireApi api;
    const char* body;
    const char* says;
  } cases[] = {
      {WireApi::kAnthropicMessages, "{not json", "not JSON"},
      {WireApi::kAnthropicMessages, "[1]", "not a JSON object"},
      {WireApi::kAnthropicMessages, R"({"content":[]})", "usage is missing"},
      {WireApi::kAnthropicMessages, R"({"content":{},"usage":{}})", "content is not an array"},
      {WireApi::kAnthropicMessages,
       R"({"content":[],"usage":{"input_tokens":-1,"output_tokens":1}})", "usage.input_tokens"},
      {WireApi::kAnthropicMessages,
       R"({"content":[],"usage":{"input_tokens":1.5,"output_tokens":1}})", "usage.input_tokens"},
      {WireApi::kAnthropicMessages, R"({"content":[],"usage":{"input_tokens":1}})",
       "usage.output_tokens is missing"},
      {WireApi::kOpenAiChat, R"({"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,
        "prompt_tokens_details":{"cached_tokens":5}}})",
       "exceeds"},
      {WireApi::kOpenAiChat, R"({"usage":{}})", "choices"},
  };
  for (const auto& c : cases) {
    Result<ChatResponse> r = ParseResponseBody(c.api, c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_NE(r.status().message().find(c.says), std::string::npos)
        << c.body << ": " << r.status().message();
  }
}

TEST(WireFormatTest, DeeplyNestedJsonIsRefusedBeforeParsing) {
  std::string deep(100000, '[');
  EXPECT_FALSE(JsonDepthWithin(deep, 64));
  EXPECT_FALSE(ParseResponseBody(WireApi::kAnthropicMessages, deep).ok());
  EXPECT_TRUE(JsonDepthWithin(
      R"({"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})", 2));
}

TEST(WireFormatTest, ErrorBodiesBecomeOneLine) {
  EXPECT_EQ(DescribeErrorBody(
                R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"),
            "overloaded_error: Overloaded");
  EXPECT_EQ(
      DescribeErrorBody(
          R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})"),
      "invalid_request_error: Incorrect API key provided");
  EXPECT_EQ(DescribeErrorBody("<html>\n<body>Bad Gateway</body>"), "<html>");
  EXPECT_EQ(DescribeErrorBody(std::string(500, 'x')).size(), 203u);
  EXPECT_EQ(DescribeErrorBody(""), "");
  EXPECT_EQ(DescribeErrorBody("line one\r\nline two"), "line one");
}

TEST(WireFormatTest, CanonicalJsonSortsKeysAndDropsSpace) {
  Result<std::string> a = CanonicalJson(R"({ "b": 1, "a": [1, 2] })");
  Result<std::string> b = CanonicalJson(R"({"a":[1,2],"b":1})");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, R"({"a":[1,2],"b":1})");
  EXPECT_FALSE(CanonicalJson("nope").ok());
}

}  // namespace
}  // namespace av
