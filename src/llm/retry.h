// What to do after one attempt: done, retry after a delay, or stop with an error type.
// The rules (doc/provider.md): 429 with retry-after is retried after that many seconds,
// capped; 500/502/503/504/529, timeouts and connection errors are retried with jittered
// exponential backoff; everything else (400, 401, 403, 404, 413, a 429 without
// retry-after, 3xx, TLS errors, ...) is never retried. Pure; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "llm/http_transport.h"

namespace av {

struct RetryPolicy {
  int max_retries = 4;             // attempts = max_retries + 1
  int64_t base_backoff_ms = 1000;  // first backoff, before jitter
  int64_t max_backoff_ms = 30'000;
  int64_t max_retry_after_ms = 60'000;  // a longer retry-after is waited this long
};

struct RetryDecision {
  bool success = false;  // a 2xx answer
  bool retry = false;
  int64_t delay_ms = 0;
  // The ledger's error_type: "" on success, else "rate_limited", "overloaded",
  // "server_error", "timeout", "connection", "unauthorized", ... (token-ledger-csv.md).
  std::string error_type;
};

// The error_type of an HTTP status ("" for 2xx).
std::string ErrorTypeForStatus(int status);

// Seconds (or an HTTP-date, relative to `now_unix`) from retry-after / retry-after-ms;
// -1 when absent or unreadable.
int64_t RetryAfterMs(const std::map<std::string, std::string>& headers, int64_t now_unix);

// `attempt` counts from 1; `jitter` in [0, 1) scales the backoff between half and all
// of its nominal value.
RetryDecision DecideRetry(const HttpResponse& response, int attempt, const RetryPolicy& policy,
                          double jitter, int64_t now_unix);

}  // namespace av
