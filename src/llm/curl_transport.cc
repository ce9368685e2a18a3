#include "llm/curl_transport.h"

#include <curl/curl.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/version.h"
#include "llm/termination_signals.h"

namespace av {
namespace {

struct Sink {
  HttpResponse* response;
  size_t cap;
  bool too_large = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  Sink* sink = static_cast<Sink*>(user);
  size_t bytes = size * n;
  if (sink->response->body.size() + bytes > sink->cap) {
    sink->too_large = true;
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
  sink->response->body.append(data, bytes);
  return bytes;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  HttpResponse* response = static_cast<HttpResponse*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    response->headers.clear();  // a 100 Continue came first; keep the final answer's
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return size * n;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (response->headers.size() < 200) response->headers[name] = Trim(line.substr(colon + 1));
  return size * n;
}

bool IsSecretHeader(std::string_view line) {
  std::string lower(line.substr(0, std::min<size_t>(line.size(), 32)));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.starts_with("x-api-key:") || lower.starts_with("authorization:") ||
         lower.starts_with("proxy-authorization:") || lower.starts_with("api-key:");
}

// Connection text and headers, one line at a time; authentication values masked
// here, everything else redacted again by the caller's trace function.
int OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* user) {
  const HttpRequest* request = static_cast<const HttpRequest*>(user);
  const char* mark = type == CURLINFO_TEXT         ? "* "
                     : type == CURLINFO_HEADER_OUT ? "> "
                     : type == CURLINFO_HEADER_IN  ? "< "
                                                   : nullptr;
  if (mark == nullptr) return 0;  // bodies and TLS records are not traced
  std::string_view text(data, size);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) {
      std::string out = mark;
      if (IsSecretHeader(line)) {
        out += std::string(line.substr(0, line.find(':') + 1)) + " [REDACTED:auth_header]";
      } else {
        out += line;
      }
      request->trace(out);
    }
    start = end + 1;
  }
  return 0;
}

// Called by curl at least once a second while the transfer runs (and after every poll a
// signal interrupted): a termination signal ends the transfer.
int OnProgress(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return PendingTerminationSignal() != 0 ? 1 : 0;
}

TransportError Classify(CURLcode code, bool too_large) {
  if (too_large) return TransportError::kTooLarge;
  if (code == CURLE_ABORTED_BY_CALLBACK) return TransportError::kInterrupted;
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransportError::kConnection;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return TransportError::kTls;
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      return TransportError::kPinMismatch;
    case CURLE_FILESIZE_EXCEEDED:
      return TransportError::kTooLarge;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return TransportError::kRefused;
    default:
      return TransportError::kOther;
  }
}

struct CurlDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
// The header copies hold the key: overwritten before they are freed.
struct SlistDeleter {
  void operator()(curl_slist* l) const {
    for (curl_slist* n = l; n != nullptr; n = n->next) {
      if (n->data != nullptr) OPENSSL_cleanse(n->data, std::strlen(n->data));
    }
    curl_slist_free_all(l);
  }
};

}  // namespace

HttpResponse CurlHttpTransport::Post(const HttpRequest& request) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResponse response;
  std::unique_ptr<CURL, CurlDeleter> handle(curl_easy_init());
  if (!handle) {
    response.error = TransportError::kOther;
    response.error_message = "libcurl could not start a transfer";
    return response;
  }
  CURL* h = handle.get();
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const auto& [name, value] : request.headers) {
    std::string line = name + ": " + value;
    curl_slist* next = curl_slist_append(headers.get(), line.c_str());
    if (next == nullptr) {
      response.error = TransportError::kOther;
      response.error_message = "out of memory building the request headers";
      return response;
    }
    (void)headers.release();
    headers.reset(next);
  }
  // No "Expect: 100-continue" pause for bodies over 1 KiB.
  headers.reset(curl_slist_append(headers.release(), "Expect:"));

  char error_buffer[CURL_ERROR_SIZE] = {0};
  Sink sink{&response, request.max_response_bytes};
  const std::string user_agent = std::string("attnverify/") + ATTNVERIFY_VERSION;
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, request.allow_loopback_http ? "http,https" : "https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!request.ca_bundle.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, request.ca_bundle.c_str());
  if (!request.pinned_public_key.empty()) {
    curl_easy_setopt(h, CURLOPT_PINNEDPUBLICKEY, request.pinned_public_key.c_str());
  }
  // An empty string turns the proxy off, environment variables included.
  curl_easy_setopt(h, CURLOPT_PROXY, request.proxy.c_str());
  curl_easy_setopt(h, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_ms));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min(request.timeout_ms, 30'000)));
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_USERAGENT, user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(request.max_response_bytes));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  if (request.trace) {
    curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, &OnDebug);
    curl_easy_setopt(h, CURLOPT_DEBUGDATA, &request);
    curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
  }

  auto start = std::chrono::steady_clock::now();
  CURLcode code = curl_easy_perform(h);
  response.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  if (code != CURLE_OK) {
    response.error = Classify(code, sink.too_large);
    response.error_message = error_buffer[0] != 0 ? error_buffer : curl_easy_strerror(code);
    if (response.error == TransportError::kInterrupted) {
      response.error_message =
          "stopped by signal " + std::to_string(PendingTerminationSignal());
    }
    if (response.error == TransportError::kTooLarge) {
      response.error_message = "the response body passed the " +
                               std::to_string(request.max_response_bytes >> 20) + " MiB cap";
    }
    response.body.clear();
    response.status = 0;
    return response;
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace av
