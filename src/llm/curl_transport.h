// The real HttpTransport: libcurl, one easy handle per Post. Protocols are limited to
// https (and http when the request says its loopback URL allows it), redirects are not
// followed, TLS verification is always on, the proxy is exactly HttpRequest::proxy (the
// http_proxy/HTTPS_PROXY/ALL_PROXY variables are ignored), and the body is capped.
// doc/provider.md says why. Any number of objects; each Post is independent.
#pragma once

#include "llm/http_transport.h"

namespace av {

class CurlHttpTransport final : public HttpTransport {
 public:
  HttpResponse Post(const HttpRequest& request) override;
};

}  // namespace av
