// Record and replay of provider exchanges. A cassette is a folder of JSON files, one
// per exchange, named by the sha256 of the canonical request body (compact JSON,
// sorted keys): recording stores the request, the status, a few headers and the
// response body, all redacted; replay answers from the folder with no network, and a
// request that is not there is an error. doc/provider.md describes the file. One
// transport object per thread.
#pragma once

#include <string>

#include "core/status.h"
#include "llm/http_transport.h"
#include "llm/redact.h"

namespace av {

// sha256 of CanonicalJson(body) (of the body itself when it is not JSON).
std::string CassetteKey(const std::string& body);

// Passes every request to `inner` and writes DIR/<key>.json for each HTTP answer
// (transport errors are not recorded). A cassette that cannot be written turns the
// answer into a kRefused error, so a recording run never silently misses one.
class RecordingTransport final : public HttpTransport {
 public:
  RecordingTransport(HttpTransport* inner, std::string dir, const RedactionContext* ctx)
      : inner_(inner), dir_(std::move(dir)), ctx_(ctx) {}
  HttpResponse Post(const HttpRequest& request) override;

 private:
  HttpTransport* inner_;
  std::string dir_;
  const RedactionContext* ctx_;
};

// Serves DIR/<key>.json; a miss or a malformed file is a kRefused error naming it.
class ReplayTransport final : public HttpTransport {
 public:
  explicit ReplayTransport(std::string dir) : dir_(std::move(dir)) {}
  HttpResponse Post(const HttpRequest& request) override;

 private:
  std::string dir_;
};

}  // namespace av
