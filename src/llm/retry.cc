#include "llm/retry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>

namespace av {
namespace {

bool ParseNonNegative(const std::string& text, double* out) {
  if (text.empty() || text.size() > 20) return false;
  size_t dots = 0;
  for (char c : text) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  if (dots > 1 || text == ".") return false;
  *out = std::stod(text);
  return true;
}

// "Wed, 21 Oct 2015 07:28:00 GMT" (RFC 9110 IMF-fixdate) as Unix seconds; -1 otherwise.
int64_t ParseHttpDate(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return -1;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

std::string ErrorTypeForStatus(int status) {
  if (status >= 200 && status < 300) return "";
  if (status >= 300 && status < 400) return "redirect";
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limited";
    case 529:
      return "overloaded";
    case 500:
    case 502:
    case 503:
    case 504:
      return "server_error";
    default:
      return "http_error";
  }
}

int64_t RetryAfterMs(const std::map<std::string, std::string>& headers, int64_t now_unix) {
  double v = 0;
  auto ms = headers.find("retry-after-ms");
  if (ms != headers.end() && ParseNonNegative(ms->second, &v)) return static_cast<int64_t>(v);
  auto it = headers.find("retry-after");
  if (it == headers.end()) return -1;
  if (ParseNonNegative(it->second, &v)) return static_cast<int64_t>(std::ceil(v * 1000));
  int64_t when = ParseHttpDate(it->second);
  if (when < 0) return -1;
  return std::max<int64_t>(0, (when - now_unix) * 1000);
}

RetryDecision DecideRetry(const HttpResponse& response, int attempt, const RetryPolicy& policy,
                          double jitter, int64_t now_unix) {
  RetryDecision d;
  const bool attempts_left = attempt <= policy.max_retries;
  auto backoff = [&] {
    double nominal = static_cast<double>(policy.base_backoff_ms) * std::pow(2.0, attempt - 1);
    nominal = std::min(nominal, static_cast<double>(policy.max_backoff_ms));
    return static_cast<int64_t>(nominal * (0.5 + 0.5 * std::clamp(jitter, 0.0, 1.0)));
  };
  if (response.error != TransportError::kNone) {
    d.error_type = std::string(TransportErrorName(response.error));
    bool transient =
        response.error == TransportError::kTimeout || response.error == TransportError::kConnection;
    if (transient && attempts_left) {
      d.retry = true;
      d.delay_ms = backoff();
    }
    return d;
  }
  d.error_type = ErrorTypeForStatus(response.status);
  if (d.error_type.empty()) {
    d.success = true;
    return d;
  }
  const int s = response.status;
  if (s == 429) {
    // Without retry-after a 429 is a spend or quota cap: retrying only fails again.
    int64_t after = RetryAfterMs(response.headers, now_unix);
    if (after >= 0 && attempts_left) {
      d.retry = true;
      d.delay_ms = std::min(after, policy.max_retry_after_ms);
    }
    if (after < 0) d.error_type = "quota_exceeded";
    return d;
  }
  if ((s == 500 || s == 502 || s == 503 || s == 504 || s == 529) && attempts_left) {
    // A server that says when to come back is believed (capped); else backoff.
    int64_t after = RetryAfterMs(response.headers, now_unix);
    d.retry = true;
    d.delay_ms = after >= 0 ? std::min(after, policy.max_retry_after_ms) : backoff();
  }
  return d;
}

}  // namespace av
