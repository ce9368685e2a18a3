// The client over real HTTP on loopback: libcurl against tests/provider_server/server.py
// scripted per test (both wire formats, every error class the retry table names, caps,
// timeouts, resets) and over HTTPS with a self-signed certificate made by openssl.
// Each test checks what the server received, the ledger rows and the message.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "llm/curl_transport.h"
#include "llm/ledger.h"
#include "llm/ledger_summary.h"
#include "llm/redact.h"
#include "llm/provider_client.h"
#include "llm/provider_server_test_util.h"

namespace av {
namespace {

using nlohmann::json;
using testing::ProviderServer;
using testing::TempDir;

std::string FakeKey() { return std::string("loopback-") + "fake-key-" + "5b1e0c"; }

class ProviderHttpTest : public ::testing::Test {
 protected:
  // Starts the server with `steps`; skips the test when python3 is missing.
  bool Serve(const json& steps, const testing::TlsFiles* tls = nullptr) {
    std::string error = server_.Start(json{{"steps", steps}}.dump(), tls);
    if (!error.empty()) {
      skip_reason_ = "the test provider could not start: " + error;
      return false;
    }
    return true;
  }

  Result<CompletionResult> Ask(const std::string& extra_toml = "",
                               const std::string& api = "anthropic-messages", bool https = false,
                               CompletionRequest request = {}, int max_retries = 2,
                               int timeout_s = 5) {
    std::string text =
        "[provider]\nname = \"loopback\"\nbase_url = \"" + server_.Url(https) + "/api\"\napi = \"" +
        api + "\"\nkey_env = \"TEST_PROVIDER_KEY\"\n" +
        "models = { default = \"model-a\" }\nmax_retries = " + std::to_string(max_retries) +
        "\ntimeout_s = " + std::to_string(timeout_s) + "\n" + extra_toml;
    Result<ProviderConfig> c = ParseProviderConfig(text, dir_.File("pkg/attnverify.toml"));
    if (!c.ok()) return c.status();
    config_ = *c;
    ProviderClientOptions o;
    o.transport = &curl_;
    o.run_id = "run-http";
    o.environment = [] {
      return std::map<std::string, std::string>{{"TEST_PROVIDER_KEY", FakeKey()}};
    };
    o.sleep = [this](int64_t ms) { sleeps_.push_back(ms); };
    ProviderClient client(config_, o);
    if (request.messages.empty()) request.messages = {{"user", "what does split-k do?"}};
    request.stage = "connectivity";
    request.max_tokens = 64;
    return client.Complete(request);
  }

  std::vector<LedgerRow> Rows() {
    Result<Ledger> l = ReadLedger(dir_.File("pkg/evidence/token_ledger.csv"));
    return l.ok() ? l->rows : std::vector<LedgerRow>{};
  }

  TempDir dir_;
  ProviderServer server_;
  CurlHttpTransport curl_;
  ProviderConfig config_;
  std::vector<int64_t> sleeps_;
  std::string skip_reason_;
};

#define SERVE_OR_SKIP(...) \
  if (!Serve(__VA_ARGS__)) GTEST_SKIP() << skip_reason_

TEST_F(ProviderHttpTest, AnthropicAnswerWithUsage) {
  SERVE_OR_SKIP(json::array(
      {{{"reply", "anthropic"},
        {"usage",
         {{"input_tokens", 120}, {"output_tokens", 33}, {"cache_read_input_tokens", 7}}}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->response.text.find("Split-k"), std::string::npos);
  std::vector<json> got = server_.Requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["path"], "/api/v1/messages");
  EXPECT_EQ(got[0]["headers"]["x-api-key"], FakeKey());
  EXPECT_EQ(got[0]["headers"]["anthropic-version"], "2023-06-01");
  EXPECT_EQ(json::parse(got[0]["body"].get<std::string>())["max_tokens"], 64);
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].input_tokens, 120);
  EXPECT_EQ(rows[0].output_tokens, 33);
  EXPECT_EQ(rows[0].cache_read_tokens, 7);
  EXPECT_EQ(rows[0].total_tokens, 160);
  EXPECT_EQ(rows[0].request_id, "req_test_1");
  EXPECT_EQ(rows[0].http_status, 200);
  EXPECT_EQ(rows[0].endpoint, server_.Url() + "/api/v1/messages");
}

TEST_F(ProviderHttpTest, OpenAiAnswerWithUsage) {
  SERVE_OR_SKIP(json::array({{{"reply", "openai"},
                              {"usage",
                               {{"prompt_tokens", 40},
                                {"completion_tokens", 8},
                                {"prompt_tokens_details", {{"cached_tokens", 10}}}}}}}));
  Result<CompletionResult> r = Ask("", "openai-chat");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<json> got = server_.Requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["path"], "/api/v1/chat/completions");
  EXPECT_EQ(got[0]["headers"]["authorization"], "Bearer " + FakeKey());
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].input_tokens, 30);
  EXPECT_EQ(rows[0].cache_read_tokens, 10);
  EXPECT_EQ(rows[0].output_tokens, 8);
}

TEST_F(ProviderHttpTest, OverloadedThenUnavailableThenAnswered) {
  SERVE_OR_SKIP(
      json::array({{{"status", 529},
                    {"body",
                     {{"type", "error"},
                      {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}}},
                   {{"status", 503}, {"body", "upstream unavailable"}},
                   {{"reply", "anthropic"}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->attempts, 3);
  EXPECT_EQ(server_.Requests().size(), 3u);
  EXPECT_EQ(sleeps_.size(), 2u);
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].error_type, "overloaded");
  EXPECT_EQ(rows[1].error_type, "server_error");
  EXPECT_EQ(rows[1].http_status, 503);
  EXPECT_EQ(rows[2].error_type, "");
}

// LiteLLM's Anthropic mock sends no request-id header and the same message id in every
// answer: 7 requests counted as 1 (2,598 of 18,186 tokens), and the run budget let through
// a request it should have refused. Every attempt is its own row and counts.
TEST_F(ProviderHttpTest, AGatewayThatRepeatsItsAnswerIdHasEveryAttemptCounted) {
  SERVE_OR_SKIP(json::array({{{"reply", "anthropic"},
                              {"id", "msg_013Zva2CMHLNnXjNJJKqJ2EF"},
                              {"headers", {{"request-id", ""}}},
                              {"usage", {{"input_tokens", 2095}, {"output_tokens", 503}}}}}));
  const std::string budget = "max_total_tokens_per_run = 6000\n";
  ASSERT_TRUE(Ask(budget).ok());
  ASSERT_TRUE(Ask(budget).ok());
  // 5,196 spent + about 20 in + 64 out is under 6,000; 7,794 after the third is not.
  ASSERT_TRUE(Ask(budget).ok());
  Result<CompletionResult> refused = Ask(budget);
  ASSERT_FALSE(refused.ok()) << "sent although the run had spent 7,794 of 6,000 tokens";
  EXPECT_NE(refused.status().message().find("has spent 7794 tokens"), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(server_.Requests().size(), 3u);
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 3u);
  for (const LedgerRow& r : rows) EXPECT_EQ(r.request_id, "msg_013Zva2CMHLNnXjNJJKqJ2EF");
  Result<LedgerSummary> s =
      SummarizeLedgerFile(dir_.File("pkg/evidence/token_ledger.csv"), LedgerGroupBy::kStage);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->totals.requests, 3);
  EXPECT_EQ(s->totals.total_tokens, 3 * 2598);
  // Every byte the runs wrote, searched for the key and its base64.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_.path())) {
    if (!e.is_regular_file()) continue;
    const std::string bytes = testing::ReadAll(e.path().string());
    for (const std::string& form : {FakeKey(), Base64Encode(FakeKey(), false, false),
                                    Base64Encode(FakeKey(), true, false)}) {
      EXPECT_EQ(bytes.find(form), std::string::npos) << e.path();
    }
  }
}

TEST_F(ProviderHttpTest, ServiceUnavailableUntilGivingUp) {
  SERVE_OR_SKIP(json::array({{{"status", 503}, {"body", "down"}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "provider loopback: HTTP 503 (down) (gave up after 3 attempts)");
  EXPECT_EQ(server_.Requests().size(), 3u);
  EXPECT_EQ(Rows().size(), 3u);
}

TEST_F(ProviderHttpTest, RateLimitedWithRetryAfterWaitsAsTold) {
  SERVE_OR_SKIP(json::array({{{"status", 429}, {"headers", {{"retry-after", "3"}}}, {"body", ""}},
                             {{"reply", "anthropic"}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(sleeps_, (std::vector<int64_t>{3000}));
  ASSERT_EQ(Rows().size(), 2u);
  EXPECT_EQ(Rows()[0].error_type, "rate_limited");
}

TEST_F(ProviderHttpTest, RateLimitedWithoutRetryAfterIsNotRetried) {
  SERVE_OR_SKIP(json::array(
      {{{"status", 429},
        {"body",
         {{"error", {{"type", "rate_limit_error"}, {"message", "monthly spend limit"}}}}}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HTTP 429 (rate_limit_error: monthly spend limit) without "
                                      "retry-after"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(server_.Requests().size(), 1u);
  ASSERT_EQ(Rows().size(), 1u);
  EXPECT_EQ(Rows()[0].error_type, "quota_exceeded");
}

TEST_F(ProviderHttpTest, UnauthorizedSaysTheKeyWasRefusedWithoutPrintingIt) {
  SERVE_OR_SKIP(json::array(
      {{{"status", 401},
        {"body",
         {{"type", "error"},
          {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key"}}}}}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the provider refused the key"), std::string::npos);
  EXPECT_NE(r.status().message().find(KeyId(FakeKey())), std::string::npos);
  EXPECT_EQ(r.status().message().find(FakeKey()), std::string::npos);
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(Rows()[0].http_status, 401);
}

TEST_F(ProviderHttpTest, RequestTooLargeIsNotRetried) {
  SERVE_OR_SKIP(json::array(
      {{{"status", 413},
        {"body", {{"error", {{"type", "request_too_large"}, {"message", "too big"}}}}}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HTTP 413"), std::string::npos);
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(Rows()[0].error_type, "request_too_large");
}

TEST_F(ProviderHttpTest, ARedirectToAnotherHostIsNotFollowed) {
  SERVE_OR_SKIP(json::array({{{"status", 302},
                              {"headers", {{"location", "https://collector.example/v1/messages"}}},
                              {"body", ""}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HTTP 302 redirect to host collector.example; redirects "
                                      "are never followed"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(Rows()[0].error_type, "redirect");
}

TEST_F(ProviderHttpTest, MalformedJsonIsAnErrorNotACrash) {
  SERVE_OR_SKIP(json::array({{{"status", 200}, {"body", "{\"content\": [ {\"type\": \"te"}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HTTP 200 with a malformed body: the body is not JSON"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(Rows()[0].error_type, "malformed_response");
}

TEST_F(ProviderHttpTest, ATwentyMegabyteBodyIsCutOff) {
  SERVE_OR_SKIP(json::array({{{"status", 200}, {"body_size", 20'000'000}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("8 MiB cap"), std::string::npos) << r.status().message();
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(Rows()[0].error_type, "response_too_large");
}

TEST_F(ProviderHttpTest, ASlowAnswerPastTheTimeoutIsRetriedThenReported) {
  SERVE_OR_SKIP(json::array({{{"reply", "anthropic"}, {"delay_s", 3}}}));
  Result<CompletionResult> r = Ask("", "anthropic-messages", false, {}, /*max_retries=*/1,
                                   /*timeout_s=*/1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no answer within timeout_s = 1 s (gave up after 2 "
                                      "attempts)"),
            std::string::npos)
      << r.status().message();
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].error_type, "timeout");
  EXPECT_EQ(rows[0].http_status, 0);
  EXPECT_GE(rows[0].latency_ms, 900);
  EXPECT_EQ(sleeps_.size(), 1u);
}

TEST_F(ProviderHttpTest, AConnectionResetIsRetried) {
  SERVE_OR_SKIP(json::array({{{"reset", true}}, {{"reply", "anthropic"}}}));
  Result<CompletionResult> r = Ask();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->attempts, 2);
  std::vector<LedgerRow> rows = Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].error_type, "connection");
  EXPECT_EQ(rows[0].http_status, 0);
}

TEST_F(ProviderHttpTest, AKeyOrSecretInThePromptNeverReachesTheServer) {
  SERVE_OR_SKIP(json::array({{{"reply", "anthropic"}}}));
  CompletionRequest q;
  const std::string aws = std::string("AKIA") + "QQQQ" + "WWWWEEEERRRR";
  q.messages = {{"user", "context: key=" + FakeKey() + " aws=" + aws}};
  Result<CompletionResult> r = Ask("", "anthropic-messages", false, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<json> got = server_.Requests();
  ASSERT_EQ(got.size(), 1u);
  const std::string body = got[0]["body"];
  EXPECT_EQ(body.find(FakeKey()), std::string::npos) << body;
  EXPECT_EQ(body.find(aws), std::string::npos) << body;
  EXPECT_NE(body.find("[REDACTED:provider_key]"), std::string::npos);
  EXPECT_NE(body.find("[REDACTED:aws_access_key]"), std::string::npos);
  // The key reached the server once, in its header, nowhere else.
  std::string log = server_.RawLog();
  size_t first = log.find(FakeKey());
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(log.find(FakeKey(), first + 1), std::string::npos);
  EXPECT_EQ(Rows()[0].redactions, 2);
}

class ProviderHttpsTest : public ProviderHttpTest {
 protected:
  bool ServeTls() {
    tls_ = testing::MakeSelfSignedCertificate(tls_dir_.path());
    if (!tls_.error.empty()) {
      skip_reason_ = tls_.error;
      return false;
    }
    return Serve(json::array({{{"reply", "anthropic"}}}), &tls_);
  }
  TempDir tls_dir_;
  testing::TlsFiles tls_;
};

TEST_F(ProviderHttpsTest, SelfSignedFailsWithoutCaBundleAndPassesWithIt) {
  if (!ServeTls()) GTEST_SKIP() << skip_reason_;
  Result<CompletionResult> untrusted = Ask("", "anthropic-messages", true);
  ASSERT_FALSE(untrusted.ok());
  EXPECT_NE(untrusted.status().message().find("TLS verification failed"), std::string::npos)
      << untrusted.status().message();
  EXPECT_TRUE(server_.Requests().empty());
  ASSERT_EQ(Rows().size(), 1u);
  EXPECT_EQ(Rows()[0].error_type, "tls");

  Result<CompletionResult> trusted =
      Ask("ca_bundle = \"" + tls_.cert + "\"\n", "anthropic-messages", true);
  ASSERT_TRUE(trusted.ok()) << trusted.status().message();
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(ProviderHttpsTest, PinnedPublicKey) {
  if (!ServeTls()) GTEST_SKIP() << skip_reason_;
  const std::string ca = "ca_bundle = \"" + tls_.cert + "\"\n";
  const std::string wrong = "sha256//" + std::string(43, 'A') + "=";
  Result<CompletionResult> bad =
      Ask(ca + "pinned_public_key = \"" + wrong + "\"\n", "anthropic-messages", true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("does not match [provider] pinned_public_key"),
            std::string::npos)
      << bad.status().message();
  EXPECT_TRUE(server_.Requests().empty());
  EXPECT_EQ(Rows()[0].error_type, "pinned_key_mismatch");

  Result<CompletionResult> good =
      Ask(ca + "pinned_public_key = \"" + tls_.pin + "\"\n", "anthropic-messages", true);
  ASSERT_TRUE(good.ok()) << good.status().message();
}

}  // namespace
}  // namespace av
