#include "llm/retry.h"

#include <gtest/gtest.h>

namespace av {
namespace {

HttpResponse Answer(int status, std::map<std::string, std::string> headers = {}) {
  return MakeHttpResponse(status, "", std::move(headers));
}

HttpResponse TransportFailure(TransportError e) {
  HttpResponse r;
  r.error = e;
  return r;
}

TEST(RetryTest, NeverRetriedStatuses) {
  RetryPolicy p;
  for (int s : {400, 401, 403, 404, 413, 301, 302, 307, 418, 501}) {
    RetryDecision d = DecideRetry(Answer(s), 1, p, 0.5, 0);
    EXPECT_FALSE(d.retry) << s;
    EXPECT_FALSE(d.success) << s;
    EXPECT_FALSE(d.error_type.empty()) << s;
  }
  EXPECT_EQ(DecideRetry(Answer(401), 1, p, 0, 0).error_type, "unauthorized");
  EXPECT_EQ(DecideRetry(Answer(413), 1, p, 0, 0).error_type, "request_too_large");
  EXPECT_EQ(DecideRetry(Answer(302), 1, p, 0, 0).error_type, "redirect");
}

TEST(RetryTest, A429WithoutRetryAfterIsASpendCap) {
  RetryDecision d = DecideRetry(Answer(429), 1, RetryPolicy{}, 0.5, 0);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.error_type, "quota_exceeded");
  // Unreadable retry-after is no retry-after.
  EXPECT_FALSE(DecideRetry(Answer(429, {{"retry-after", "soon"}}), 1, RetryPolicy{}, 0.5, 0).retry);
}

TEST(RetryTest, A429WithRetryAfterIsHonouredAndCapped) {
  RetryPolicy p;
  RetryDecision d = DecideRetry(Answer(429, {{"retry-after", "7"}}), 1, p, 0.9, 0);
  EXPECT_TRUE(d.retry);
  EXPECT_EQ(d.delay_ms, 7000);
  EXPECT_EQ(d.error_type, "rate_limited");
  EXPECT_EQ(DecideRetry(Answer(429, {{"retry-after", "3600"}}), 1, p, 0, 0).delay_ms,
            p.max_retry_after_ms);
  EXPECT_EQ(DecideRetry(Answer(429, {{"retry-after-ms", "250"}}), 1, p, 0, 0).delay_ms, 250);
  // An HTTP-date 30 s after "now".
  EXPECT_EQ(DecideRetry(Answer(429, {{"retry-after", "Thu, 01 Jan 1970 00:00:30 GMT"}}), 1, p, 0, 0)
                .delay_ms,
            30'000);
}

TEST(RetryTest, ServerErrorsBackOffExponentiallyWithJitter) {
  RetryPolicy p;
  for (int s : {500, 502, 503, 504, 529}) {
    RetryDecision d = DecideRetry(Answer(s), 1, p, 0.0, 0);
    EXPECT_TRUE(d.retry) << s;
    EXPECT_EQ(d.delay_ms, p.base_backoff_ms / 2) << s;
  }
  EXPECT_EQ(DecideRetry(Answer(529), 1, p, 0, 0).error_type, "overloaded");
  EXPECT_EQ(DecideRetry(Answer(503), 1, p, 0, 0).error_type, "server_error");
  EXPECT_EQ(DecideRetry(Answer(503), 3, p, 0.999999, 0).delay_ms, 4 * p.base_backoff_ms - 1);
  EXPECT_EQ(DecideRetry(Answer(503), 4, p, 0.0, 0).delay_ms, 4 * p.base_backoff_ms);
  p.max_retries = 10;
  EXPECT_LE(DecideRetry(Answer(503), 10, p, 0.999, 0).delay_ms, p.max_backoff_ms);
  // A 503 that says when to come back is believed.
  EXPECT_EQ(DecideRetry(Answer(503, {{"retry-after", "2"}}), 1, p, 0.0, 0).delay_ms, 2000);
}

TEST(RetryTest, TransportErrors) {
  RetryPolicy p;
  EXPECT_TRUE(DecideRetry(TransportFailure(TransportError::kTimeout), 1, p, 0, 0).retry);
  EXPECT_TRUE(DecideRetry(TransportFailure(TransportError::kConnection), 1, p, 0, 0).retry);
  for (TransportError e : {TransportError::kTls, TransportError::kPinMismatch,
                           TransportError::kTooLarge, TransportError::kRefused}) {
    RetryDecision d = DecideRetry(TransportFailure(e), 1, p, 0, 0);
    EXPECT_FALSE(d.retry) << TransportErrorName(e);
    EXPECT_EQ(d.error_type, TransportErrorName(e));
  }
}

TEST(RetryTest, NoRetryPastMaxRetries) {
  RetryPolicy p;
  p.max_retries = 2;
  EXPECT_TRUE(DecideRetry(Answer(529), 2, p, 0, 0).retry);
  EXPECT_FALSE(DecideRetry(Answer(529), 3, p, 0, 0).retry);
  EXPECT_FALSE(DecideRetry(Answer(429, {{"retry-after", "1"}}), 3, p, 0, 0).retry);
  EXPECT_TRUE(DecideRetry(Answer(200), 3, p, 0, 0).success);
}

}  // namespace
}  // namespace av
