#include "llm/cassette.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::TempDir;

HttpRequest Request(const std::string& body) {
  HttpRequest r;
  r.url = "https://provider.example/api/v1/messages";
  r.headers = {{"x-api-key", "cassette-canary-key-0001"}};
  r.body = body;
  return r;
}

TEST(CassetteTest, KeyIsTheSha256OfTheCanonicalBody) {
  EXPECT_EQ(CassetteKey(R"({"b":1,"a":2})"), CassetteKey(R"({ "a": 2, "b": 1 })"));
  EXPECT_NE(CassetteKey(R"({"a":2})"), CassetteKey(R"({"a":3})"));
  EXPECT_EQ(CassetteKey(R"({"a":2})").size(), 64u);
}

TEST(CassetteTest, RecordThenReplayWithoutNetwork) {
  TempDir dir;
  RedactionContext ctx;
  ctx.AddLiteral("provider_key", "cassette-canary-key-0001");
  FakeHttpTransport live([](const HttpRequest&) {
    return MakeHttpResponse(200, R"({"echo":"cassette-canary-key-0001"})",
                            {{"request-id", "req_42"}, {"set-cookie", "session=1"}});
  });
  RecordingTransport recorder(&live, dir.File("cassette"), &ctx);
  HttpResponse recorded = recorder.Post(Request(R"({"model":"m","max_tokens":8})"));
  EXPECT_EQ(recorded.status, 200);
  ASSERT_EQ(live.requests().size(), 1u);

  // The file is named by the key and holds no secret and no unneeded header.
  const std::string file =
      dir.File("cassette/" + CassetteKey(R"({"max_tokens":8,"model":"m"})") + ".json");
  Result<std::string> text = ReadFileToString(file);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->find("cassette-canary-key-0001"), std::string::npos) << *text;
  EXPECT_EQ(text->find("set-cookie"), std::string::npos);
  EXPECT_NE(text->find("req_42"), std::string::npos);

  ReplayTransport replay(dir.File("cassette"));
  HttpResponse again = replay.Post(Request(R"({ "max_tokens": 8, "model": "m" })"));
  EXPECT_EQ(again.error, TransportError::kNone) << again.error_message;
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.Header("request-id"), "req_42");
  EXPECT_EQ(again.body, R"({"echo":"[REDACTED:provider_key]"})");
}

TEST(CassetteTest, AMissIsAnErrorNamingTheRequest) {
  TempDir dir;
  ReplayTransport replay(dir.path());
  HttpResponse r = replay.Post(Request(R"({"model":"other"})"));
  EXPECT_EQ(r.error, TransportError::kRefused);
  EXPECT_NE(r.error_message.find("is not in cassette"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find(CassetteKey(R"({"model":"other"})")), std::string::npos);
}

TEST(CassetteTest, AMalformedCassetteFileIsAnError) {
  TempDir dir;
  const std::string body = R"({"model":"m"})";
  for (const char* junk :
       {"not json", R"({"format":"attnverify-cassette-1"})", R"({"format":7,"response":{}})",
        R"({"format":"attnverify-cassette-1","response":{"status":"200","body":""}})"}) {
    ASSERT_TRUE(WriteFileAtomically(dir.File(CassetteKey(body) + ".json"), junk).ok());
    HttpResponse r = ReplayTransport(dir.path()).Post(Request(body));
    EXPECT_EQ(r.error, TransportError::kRefused) << junk;
    EXPECT_NE(r.error_message.find("not a cassette file"), std::string::npos) << r.error_message;
  }
}

TEST(CassetteTest, TransportErrorsAreNotRecorded) {
  TempDir dir;
  RedactionContext ctx;
  FakeHttpTransport live([](const HttpRequest&) {
    HttpResponse r;
    r.error = TransportError::kConnection;
    return r;
  });
  RecordingTransport recorder(&live, dir.File("c"), &ctx);
  EXPECT_EQ(recorder.Post(Request("{}")).error, TransportError::kConnection);
  EXPECT_FALSE(std::filesystem::exists(dir.File("c/" + CassetteKey("{}") + ".json")));
}

}  // namespace
}  // namespace av
