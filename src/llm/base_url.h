// A provider's Base URL taken apart and judged: https only (plain http only to a
// loopback host), no user info, no query string or fragment. The pinned endpoint is
// {base}/v1/messages or {base}/v1/chat/completions. Pure functions; any thread.
// doc/formats/attnverify-toml-provider.md lists the rules.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

struct BaseUrl {
  std::string scheme;  // "https" or "http", lower case
  std::string host;    // lower case; an IPv6 literal keeps its brackets: "[::1]"
  int port = 0;        // 0: the scheme's default
  std::string path;    // "" or "/api" (no trailing '/')
  bool loopback = false;

  // scheme://host[:port]path, normalised (what requests are built from).
  std::string Normalized() const;
};

// 127.0.0.0/8, ::1 and "localhost" (libcurl resolves localhost itself, never by DNS).
bool IsLoopbackHost(std::string_view host);

// Judges `text` as a Base URL; the message says what is wrong ("has a query string
// ..."). The caller adds the file:line and key.
Result<BaseUrl> ParseBaseUrl(std::string_view text);

// The host of an absolute URL (a redirect's Location), "" when it has none.
std::string UrlHost(std::string_view url);

}  // namespace av
