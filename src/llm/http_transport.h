// HttpTransport: the seam through which the provider client sends one HTTP POST and
// gets one answer. CurlHttpTransport (curl_transport.h) is the real one; tests use
// FakeHttpTransport, and record/replay wraps either (cassette.h). A transport never
// follows a redirect, never retries and never logs a header value it was given: the
// client decides what to do with every answer. One Post at a time per object.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace av {

struct HttpRequest {
  std::string url;
  // Header name and value; the values of authentication headers are never traced.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int timeout_ms = 120'000;
  std::string ca_bundle;             // PEM file of trusted CAs; empty: the system store
  std::string pinned_public_key;     // "sha256//<base64>"; empty: no pinning
  std::string proxy;                 // empty: no proxy at all, whatever the environment says
  bool allow_loopback_http = false;  // http:// allowed (the URL was checked to be loopback)
  size_t max_response_bytes = 8 << 20;
  // Called with one line of connection trace at a time (--verbose); may be empty.
  std::function<void(std::string_view)> trace;
};

// Why no HTTP answer came back (or the answer was not taken).
enum class TransportError {
  kNone,         // an HTTP status arrived; see HttpResponse::status
  kTimeout,      // timeout_ms passed
  kConnection,   // refused, reset, closed early, name not resolved
  kTls,          // the certificate did not verify, or the handshake failed
  kPinMismatch,  // the server's public key is not pinned_public_key
  kTooLarge,     // the body passed max_response_bytes
  kRefused,      // the transport would not send it (protocol, a cassette miss, ...)
  kInterrupted,  // SIGINT, SIGTERM or SIGHUP arrived (llm/termination_signals.h)
  kOther,
};

// "timeout", "connection", "tls", ... (the ledger's error_type vocabulary).
std::string_view TransportErrorName(TransportError e);

struct HttpResponse {
  TransportError error = TransportError::kNone;
  std::string error_message;  // the transport's words when error != kNone
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower case; the last value wins
  std::string body;
  int64_t latency_ms = 0;
  bool replayed = false;  // served from a cassette

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual HttpResponse Post(const HttpRequest& request) = 0;
};

// Answers from a handler and keeps every request it was given (tests).
class FakeHttpTransport final : public HttpTransport {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  explicit FakeHttpTransport(Handler handler) : handler_(std::move(handler)) {}
  HttpResponse Post(const HttpRequest& request) override {
    requests_.push_back(request);
    return handler_(request);
  }
  const std::vector<HttpRequest>& requests() const { return requests_; }

 private:
  Handler handler_;
  std::vector<HttpRequest> requests_;
};

// A response for fakes: `status`, `body`, headers given lower case.
HttpResponse MakeHttpResponse(int status, std::string body,
                              std::map<std::string, std::string> headers = {});

}  // namespace av
