#include "llm/cassette.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "llm/wire_format.h"

namespace av {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "attnverify-cassette-1";
// The headers a replay needs (request ids for the ledger, retry decisions, redirects).
constexpr const char* kKeptHeaders[] = {"content-type", "request-id",     "x-request-id",
                                        "retry-after",  "retry-after-ms", "location"};

std::string FileFor(const std::string& dir, const std::string& body) {
  return (std::filesystem::path(dir) / (CassetteKey(body) + ".json")).string();
}

HttpResponse Refused(std::string message) {
  HttpResponse r;
  r.error = TransportError::kRefused;
  r.error_message = std::move(message);
  return r;
}

}  // namespace

std::string CassetteKey(const std::string& body) {
  Result<std::string> canonical = CanonicalJson(body);
  return Sha256Hex(canonical.ok() ? *canonical : body);
}

HttpResponse RecordingTransport::Post(const HttpRequest& request) {
  HttpResponse response = inner_->Post(request);
  if (response.error != TransportError::kNone) return response;
  json file;
  file["format"] = kFormat;
  file["endpoint"] = RedactedText(request.url, *ctx_);
  Result<std::string> canonical = CanonicalJson(request.body);
  json body = canonical.ok() ? json::parse(*canonical, nullptr, false) : json(request.body);
  // The prompt was redacted before it was sent; the dump is redacted again as a whole.
  file["request"] = body;
  file["response"]["status"] = response.status;
  json headers = json::object();
  for (const char* name : kKeptHeaders) {
    std::string v = response.Header(name);
    if (!v.empty()) headers[name] = RedactedText(v, *ctx_);
  }
  file["response"]["headers"] = headers;
  file["response"]["body"] = RedactedText(response.body, *ctx_);
  std::string text =
      RedactedText(file.dump(2, ' ', false, json::error_handler_t::replace), *ctx_) + "\n";
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  Status st = WriteFileAtomically(FileFor(dir_, request.body), text);
  if (!st.ok()) return Refused("cannot record the exchange: " + st.message());
  return response;
}

HttpResponse ReplayTransport::Post(const HttpRequest& request) {
  const std::string path = FileFor(dir_, request.body);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Refused("the request (sha256 " + CassetteKey(request.body) + ") is not in cassette " +
                   dir_ + "; record it first with --record " + dir_);
  }
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) return Refused(text.status().message());
  if (!JsonDepthWithin(*text, 64)) return Refused(path + ": not a cassette file (nests too deep)");
  json file = json::parse(*text, nullptr, false);
  const json* response = nullptr;
  if (file.is_object() && file.contains("format") && file["format"].is_string() &&
      file["format"].get<std::string>() == kFormat && file.contains("response")) {
    response = &file["response"];
  }
  if (response == nullptr || !response->is_object() || !response->contains("status") ||
      !(*response)["status"].is_number_integer() || !response->contains("body") ||
      !(*response)["body"].is_string()) {
    return Refused(path + ": not a cassette file (" + kFormat + ": response.status, .body)");
  }
  HttpResponse out;
  out.status = (*response)["status"].get<int>();
  out.body = (*response)["body"].get<std::string>();
  out.replayed = true;
  if (response->contains("headers") && (*response)["headers"].is_object()) {
    for (const auto& [name, value] : (*response)["headers"].items()) {
      if (value.is_string()) out.headers[name] = value.get<std::string>();
    }
  }
  if (out.status < 100 || out.status > 999) return Refused(path + ": response.status out of range");
  return out;
}

}  // namespace av
