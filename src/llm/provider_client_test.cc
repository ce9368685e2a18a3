// The client's decisions with a fake transport: what is sent, what is refused before
// sending, the retry sequence, and the ledger row of every attempt.
#include "llm/provider_client.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "llm/ledger.h"
#include "llm/provider_server_test_util.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;
using testing::TempDir;

const char* kAnthropicOk =
    R"({"id":"msg_1","model":"model-a","content":[{"type":"text","text":"Split-k splits keys."}],
        "stop_reason":"end_turn","usage":{"input_tokens":21,"output_tokens":9,
        "cache_read_input_tokens":4,"cache_creation_input_tokens":0}})";

std::string FakeKey() { return std::string("fake-") + "provider-key-" + "0123456789"; }

class ProviderClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = {{"TAOTOKEN_API_KEY", FakeKey()}, {"PATH", "/usr/bin"}};
    Load("");
  }

  void Load(const std::string& extra) {
    std::string text =
        "[provider]\nname = \"taotoken\"\nbase_url = \"https://provider.example/api\"\n"
        "api = \"anthropic-messages\"\nkey_env = \"TAOTOKEN_API_KEY\"\n"
        "models = { default = \"model-a\", review = \"model-b\" }\nmax_retries = 2\n"
        "prices = { \"model-a\" = { input = 1.0, output = 2.0, cache_read = 0.5 } }\n" +
        extra;
    Result<ProviderConfig> c = ParseProviderConfig(text, dir_.File("pkg/attnverify.toml"));
    ASSERT_TRUE(c.ok()) << c.status().message();
    config_ = *c;
  }

  // Answers with `answers` in turn (the last repeats).
  Result<CompletionResult> Ask(std::vector<HttpResponse> answers, CompletionRequest request = {}) {
    transport_ = std::make_unique<FakeHttpTransport>([this, answers](const HttpRequest&) {
      size_t i = std::min(calls_++, answers.size() - 1);
      return answers[i];
    });
    ProviderClientOptions o;
    o.transport = transport_.get();
    o.run_id = run_id_;
    o.environment = [this] { return env_; };
    o.sleep = [this](int64_t ms) { sleeps_.push_back(ms); };
    o.jitter = [] { return 0.0; };
    o.replay = replay_;
    ProviderClient client(config_, o);
    if (request.messages.empty()) request.messages = {{"user", "what does split-k do?"}};
    if (request.stage.empty()) request.stage = "connectivity";
    return client.Complete(request);
  }

  std::vector<LedgerRow> Rows() {
    Result<Ledger> l = ReadLedger(dir_.File("pkg/evidence/token_ledger.csv"));
    if (!l.ok()) return {};
    return l->rows;
  }

  TempDir dir_;
  ProviderConfig config_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<FakeHttpTransport> transport_;
  size_t calls_ = 0;
  std::vector<int64_t> sleeps_;
  std::string run_id_ = "run-test-1";
  bool replay_ = false;
};

TEST_F(ProviderClientTest, SendsThePinnedRequestAndRecordsOneRow) {
  Result<CompletionResult> r =
      Ask({MakeHttpResponse(200, kAnthropicOk, {{"request-id", "req_9"}})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->response.text, "Split-k splits keys.");
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->key_id, KeyId(FakeKey()));
  ASSERT_EQ(transport_->requests().size(), 1u);
  const HttpRequest& sent = transport_->requests()[0];
  EXPECT_EQ(sent.url, "https://provider.example/api/v1/messages");
  EXPECT_FALSE(sent.allow_loopback_http);
  EXPECT_EQ(sent.proxy, "");
  std::map<std::string, std::string> headers(sent.headers.begin(), sent.headers.end());
  EXPECT_EQ(headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(headers["content-type"], "application/json");
  EXPECT_FALSE(headers["x-api-key"].empty());
  EXPECT_EQ(headers.count("authorization"), 0u);
  json body = json::parse(sent.body);
  EXPECT_EQ(body["model"], "model-a");
  EXPECT_EQ(sent.body.find(FakeKey()), std::string::npos);

  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  const LedgerRow& row = rows[0];
  EXPECT_EQ(row.stage, "connectivity");
  EXPECT_EQ(row.model, "model-a");
  EXPECT_EQ(row.input_tokens, 21);
  EXPECT_EQ(row.output_tokens, 9);
  EXPECT_EQ(row.cache_read_tokens, 4);
  EXPECT_EQ(row.total_tokens, 34);
  EXPECT_EQ(row.request_id, "req_9");
  EXPECT_EQ(row.run_id, "run-test-1");
  EXPECT_EQ(row.provider, "taotoken");
  EXPECT_EQ(row.key_id, KeyId(FakeKey()));
  EXPECT_EQ(row.http_status, 200);
  EXPECT_EQ(row.error_type, "");
  EXPECT_EQ(row.request_sha256.size(), 64u);
  ASSERT_TRUE(row.cost_usd.has_value());
  EXPECT_NEAR(*row.cost_usd, (21 * 1.0 + 9 * 2.0 + 4 * 0.5) / 1e6, 1e-12);
}

TEST_F(ProviderClientTest, TheKeyIsReadAtEachRequest) {
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk)}).ok());
  env_["TAOTOKEN_API_KEY"] = FakeKey() + "-rotated";
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->key_id, KeyId(FakeKey() + "-rotated"));
  std::map<std::string, std::string> h(transport_->requests()[0].headers.begin(),
                                       transport_->requests()[0].headers.end());
  EXPECT_EQ(h["x-api-key"], FakeKey() + "-rotated");
}

TEST_F(ProviderClientTest, BearerAuthWhenConfigured) {
  Load("auth = \"bearer\"\n");
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk)}).ok());
  std::map<std::string, std::string> h(transport_->requests()[0].headers.begin(),
                                       transport_->requests()[0].headers.end());
  EXPECT_EQ(h["authorization"], "Bearer " + FakeKey());
  EXPECT_EQ(h.count("x-api-key"), 0u);
}

TEST_F(ProviderClientTest, OverloadedTwiceThenAnswersIsThreeRows) {
  std::string overloaded =
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
  Result<CompletionResult> r = Ask({MakeHttpResponse(529, overloaded), MakeHttpResponse(503, ""),
                                    MakeHttpResponse(200, kAnthropicOk)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->attempts, 3);
  EXPECT_EQ(sleeps_, (std::vector<int64_t>{500, 1000}));  // jitter 0: half the nominal backoff
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].attempt, 1);
  EXPECT_EQ(rows[0].http_status, 529);
  EXPECT_EQ(rows[0].error_type, "overloaded");
  EXPECT_EQ(rows[1].error_type, "server_error");
  EXPECT_EQ(rows[2].attempt, 3);
  EXPECT_EQ(rows[2].error_type, "");
  EXPECT_EQ(rows[2].total_tokens, 34);
}

TEST_F(ProviderClientTest, GivesUpAfterMaxRetries) {
  Result<CompletionResult> r = Ask(
      {MakeHttpResponse(529, R"({"error":{"type":"overloaded_error","message":"Overloaded"}})")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      "provider taotoken: HTTP 529 (overloaded_error: Overloaded) (gave up after 3 attempts)");
  EXPECT_EQ(Rows().size(), 3u);
  EXPECT_EQ(sleeps_.size(), 2u);
}

TEST_F(ProviderClientTest, RetryAfterIsHonoured) {
  Result<CompletionResult> r =
      Ask({MakeHttpResponse(429, "", {{"retry-after", "2"}}), MakeHttpResponse(200, kAnthropicOk)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(sleeps_, (std::vector<int64_t>{2000}));
  EXPECT_EQ(Rows()[0].error_type, "rate_limited");
}

TEST_F(ProviderClientTest, NeverRetriedAnswersStopAtOnce) {
  struct {
    HttpResponse answer;
    const char* error_type;
    const char* says;
  } cases[] = {
      {MakeHttpResponse(429, R"({"error":{"type":"rate_limit_error","message":"spend cap"}})"),
       "quota_exceeded", "without retry-after: a spend or quota cap"},
      {MakeHttpResponse(
           401,
           R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"),
       "unauthorized",
       "the provider refused the key: HTTP 401 (authentication_error: invalid x-api-key); key_id "},
      {MakeHttpResponse(403, ""), "forbidden", "not allowed"},
      {MakeHttpResponse(404, ""), "not_found", "HTTP 404"},
      {MakeHttpResponse(400, R"({"error":{"type":"invalid_request_error","message":"bad"}})"),
       "bad_request", "HTTP 400 (invalid_request_error: bad)"},
      {MakeHttpResponse(413, ""), "request_too_large", "smaller slice"},
      {MakeHttpResponse(302, "", {{"location", "https://evil.example/steal"}}), "redirect",
       "HTTP 302 redirect to host evil.example; redirects are never followed"},
      {MakeHttpResponse(200, "{\"content\": [}"), "malformed_response",
       "HTTP 200 with a malformed body"},
  };
  for (auto& c : cases) {
    std::filesystem::remove(dir_.File("pkg/evidence/token_ledger.csv"));
    calls_ = 0;
    sleeps_.clear();
    Result<CompletionResult> r = Ask({c.answer});
    ASSERT_FALSE(r.ok()) << c.error_type;
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
    EXPECT_EQ(calls_, 1u) << c.error_type;
    EXPECT_TRUE(sleeps_.empty());
    std::vector<LedgerRow> rows = Rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].error_type, c.error_type);
  }
}

TEST_F(ProviderClientTest, AnErrorBodyEchoingTheKeyIsRedacted) {
  Result<CompletionResult> r =
      Ask({MakeHttpResponse(401, R"({"error":{"type":"authentication_error","message":"bad key )" +
                                     FakeKey() + R"("}})")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find(FakeKey()), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("[REDACTED:provider_key]"), std::string::npos);
}

TEST_F(ProviderClientTest, SecretsInThePromptAreRedactedBeforeSending) {
  const std::string other = std::string("ghp_") + std::string(36, 'Z');
  env_["GITHUB_TOKEN"] = "gh-env-secret-value";
  CompletionRequest q;
  q.system = "token " + other;
  q.messages = {{"user", "diff has gh-env-secret-value and " + FakeKey()}};
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)}, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->redactions, 3);
  const std::string& body = transport_->requests()[0].body;
  for (const std::string& s : {other, std::string("gh-env-secret-value"), FakeKey()}) {
    EXPECT_EQ(body.find(s), std::string::npos) << s;
  }
  EXPECT_NE(body.find("[REDACTED:env:GITHUB_TOKEN]"), std::string::npos) << body;
  EXPECT_EQ(Rows()[0].redactions, 3);
}

TEST_F(ProviderClientTest, OnSecretRefuseSendsNothing) {
  Load("on_secret = \"refuse\"\n");
  CompletionRequest q;
  q.messages = {{"user", "leak " + FakeKey()}};
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("refused to send: the prompt holds 1 secret(s) "
                                      "(provider_key x1)"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().find(FakeKey()), std::string::npos);
  EXPECT_TRUE(transport_->requests().empty());
  EXPECT_TRUE(Rows().empty());
}

TEST_F(ProviderClientTest, OversizedRequestIsRefusedLocally) {
  Load("max_input_tokens_per_request = 100\n");
  CompletionRequest q;
  q.messages = {{"user", std::string(400, 'x')}};
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("over [provider] max_input_tokens_per_request = 100"),
            std::string::npos)
      << r.status().message();
  EXPECT_TRUE(transport_->requests().empty());
}

TEST_F(ProviderClientTest, TheRunBudgetIsEnforcedFromTheLedger) {
  Load("max_total_tokens_per_run = 150\n");
  CompletionRequest q;
  q.max_tokens = 64;
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk, {{"request-id", "a"}})}, q).ok());
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk, {{"request-id", "b"}})}, q).ok());
  // 68 spent; about 32 in + 64 out more would pass 150.
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk, {{"request-id", "c"}})}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("run run-test-1 has spent 68 tokens"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(Rows().size(), 2u);
  run_id_ = "run-test-2";  // another run has its own budget
  EXPECT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk)}, q).ok());
}

// LiteLLM's mock gives every answer the same id; the budget summed the run's rows with
// that id once, and a request the limit should have refused was sent.
TEST_F(ProviderClientTest, TheBudgetCountsEveryAttemptWhenTheProviderRepeatsItsAnswerId) {
  Load("max_total_tokens_per_run = 150\n");
  CompletionRequest q;
  q.max_tokens = 64;
  const HttpResponse same = MakeHttpResponse(200, kAnthropicOk, {{"request-id", "msg_same"}});
  ASSERT_TRUE(Ask({same}, q).ok());
  ASSERT_TRUE(Ask({same}, q).ok());
  Result<CompletionResult> r = Ask({same}, q);
  ASSERT_FALSE(r.ok()) << "the third request was sent although 68 tokens were spent";
  EXPECT_NE(r.status().message().find("has spent 68 tokens"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(Rows().size(), 2u);
}

// The budget reads the ledger once and then only what was appended: rows another writer
// adds between two requests of one client still count.
TEST_F(ProviderClientTest, TheBudgetSeesRowsAppendedBetweenRequestsOfOneClient) {
  Load("max_total_tokens_per_run = 150\n");
  transport_ = std::make_unique<FakeHttpTransport>(
      [](const HttpRequest&) { return MakeHttpResponse(200, kAnthropicOk); });
  ProviderClientOptions o;
  o.transport = transport_.get();
  o.run_id = run_id_;
  o.environment = [this] { return env_; };
  o.sleep = [](int64_t) {};
  ProviderClient client(config_, o);
  CompletionRequest q;
  q.stage = "connectivity";
  q.max_tokens = 64;
  q.messages = {{"user", "what does split-k do?"}};
  ASSERT_TRUE(client.Complete(q).ok());  // 34 spent
  LedgerRow other;
  other.timestamp = "2026-12-01T09:30:00Z";
  other.run_id = run_id_;
  other.total_tokens = 60;
  ASSERT_TRUE(AppendLedgerRow(client.ledger_path(), other, RedactionContext()).ok());
  Result<CompletionResult> r = client.Complete(q);  // 94 + about 32 in + 64 out > 150
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("has spent 94 tokens"), std::string::npos)
      << r.status().message();
}

// A run id that starts like a formula is written as "'=..." (CsvCell); the budget must
// still find the run's rows.
TEST_F(ProviderClientTest, ARunIdShapedLikeAFormulaIsStillBudgeted) {
  Load("max_total_tokens_per_run = 150\n");
  run_id_ = "=run-formula";
  CompletionRequest q;
  q.max_tokens = 64;
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk)}, q).ok());
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk)}, q).ok());
  EXPECT_FALSE(Ask({MakeHttpResponse(200, kAnthropicOk)}, q).ok());
}

// The row that stands for an attempt killed in flight must exist before anything is sent.
TEST_F(ProviderClientTest, TheInFlightRowIsOnDiskBeforeTheRequestIsSent) {
  const std::string path = dir_.File("pkg/evidence/token_ledger.csv");
  std::string seen_at_send;
  transport_ = std::make_unique<FakeHttpTransport>([&](const HttpRequest&) {
    seen_at_send = testing::ReadAll(path);
    return MakeHttpResponse(200, kAnthropicOk, {{"request-id", "req_1"}});
  });
  ProviderClientOptions o;
  o.transport = transport_.get();
  o.run_id = run_id_;
  o.environment = [this] { return env_; };
  ProviderClient client(config_, o);
  CompletionRequest q;
  q.stage = "connectivity";
  q.messages = {{"user", "what does split-k do?"}};
  ASSERT_TRUE(client.Complete(q).ok());
  Result<Ledger> at_send = ParseLedger(seen_at_send, path);
  ASSERT_TRUE(at_send.ok()) << at_send.status().message();
  ASSERT_EQ(at_send->rows.size(), 1u);
  EXPECT_EQ(at_send->rows[0].error_type, kLedgerInFlight);
  EXPECT_EQ(at_send->rows[0].run_id, run_id_);
  EXPECT_EQ(at_send->rows[0].total_tokens, 0);
  EXPECT_EQ(at_send->without_outcome, 1);
  // After the answer: two rows on disk, one attempt when read.
  std::string after = testing::ReadAll(path);
  EXPECT_EQ(std::count(after.begin(), after.end(), '\n'), 3);
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].error_type, "");
  EXPECT_EQ(rows[0].request_id, "req_1");
  EXPECT_EQ(rows[0].total_tokens, 34);
}

TEST_F(ProviderClientTest, EnvironmentFailuresSendNothing) {
  env_.erase("TAOTOKEN_API_KEY");
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TAOTOKEN_API_KEY"), std::string::npos);
  EXPECT_TRUE(transport_->requests().empty());
  env_["TAOTOKEN_API_KEY"] = FakeKey();
  env_["ANTHROPIC_BASE_URL"] = "https://api.anthropic.com";
  r = Ask({MakeHttpResponse(200, kAnthropicOk)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ANTHROPIC_BASE_URL"), std::string::npos);
  EXPECT_TRUE(transport_->requests().empty());
  EXPECT_TRUE(Rows().empty());
}

TEST_F(ProviderClientTest, UnpinnedModelIsRefused) {
  CompletionRequest q;
  q.model = "some-other-model";
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is not one of [provider] models"), std::string::npos);
  q.model = "review";
  ASSERT_TRUE(Ask({MakeHttpResponse(200, kAnthropicOk)}, q).ok());
  EXPECT_EQ(json::parse(transport_->requests()[0].body)["model"], "model-b");
}

TEST_F(ProviderClientTest, ReplayNeedsNoKeyAndWritesNoRow) {
  replay_ = true;
  env_.erase("TAOTOKEN_API_KEY");
  Result<CompletionResult> r = Ask({MakeHttpResponse(200, kAnthropicOk)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->key_id, "");
  std::map<std::string, std::string> h(transport_->requests()[0].headers.begin(),
                                       transport_->requests()[0].headers.end());
  EXPECT_EQ(h.count("x-api-key"), 0u);
  EXPECT_TRUE(Rows().empty());
}

TEST_F(ProviderClientTest, OpenAiChatFormat) {
  Load("");
  config_.api = WireApi::kOpenAiChat;
  config_.bearer_auth = true;
  Result<CompletionResult> r = Ask({MakeHttpResponse(
      200, R"({"id":"c1","choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],
              "usage":{"prompt_tokens":50,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":20}}})")});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(transport_->requests()[0].url, "https://provider.example/api/v1/chat/completions");
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].input_tokens, 30);
  EXPECT_EQ(rows[0].cache_read_tokens, 20);
  EXPECT_EQ(rows[0].total_tokens, 55);
  EXPECT_EQ(rows[0].request_id, "c1");  // no request-id header: the answer's id
}

}  // namespace
}  // namespace av
