#include "llm/http_transport.h"

namespace av {

std::string_view TransportErrorName(TransportError e) {
  switch (e) {
    case TransportError::kNone:
      return "";
    case TransportError::kTimeout:
      return "timeout";
    case TransportError::kConnection:
      return "connection";
    case TransportError::kTls:
      return "tls";
    case TransportError::kPinMismatch:
      return "pinned_key_mismatch";
    case TransportError::kTooLarge:
      return "response_too_large";
    case TransportError::kRefused:
      return "refused_locally";
    case TransportError::kInterrupted:
      return "interrupted";
    case TransportError::kOther:
      return "transport";
  }
  return "transport";
}

HttpResponse MakeHttpResponse(int status, std::string body,
                              std::map<std::string, std::string> headers) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

}  // namespace av
