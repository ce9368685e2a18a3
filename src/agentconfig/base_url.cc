#include "agentconfig/base_url.h"

#include <algorithm>
#include <cctype>

#include "llm/base_url.h"

namespace av {

bool SplitUrl(std::string_view url, UrlParts* out) {
  *out = UrlParts();
  size_t colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return false;
  for (char c : url.substr(0, colon)) {
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return false;
  }
  for (char c : url.substr(0, colon))
    out->scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = url.substr(colon + 3);
  size_t hash = rest.find('#');
  if (hash != std::string_view::npos) {
    out->fragment = std::string(rest.substr(hash + 1));
    rest = rest.substr(0, hash);
  }
  size_t q = rest.find('?');
  if (q != std::string_view::npos) {
    out->query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  out->path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    out->userinfo = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  // [v6 address]:port or host:port
  size_t close = authority.rfind(']');
  size_t port = authority.rfind(':');
  if (port != std::string_view::npos && (close == std::string_view::npos || close < port)) {
    out->port = std::string(authority.substr(port + 1));
    authority = authority.substr(0, port);
  }
  for (char c : authority)
    out->host += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !out->host.empty();
}

std::vector<UrlProblem> CheckBaseUrl(std::string_view url) {
  std::vector<UrlProblem> out;
  if (url.empty()) return {{true, "is empty", "is empty"}};
  for (char c : url) {
    if (std::isspace(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) < 0x20) {
      out.push_back({true, "holds a blank",
                     "holds a blank or control character (requests would go elsewhere)"});
      break;
    }
  }
  UrlParts u;
  if (!SplitUrl(url, &u)) {
    out.push_back({true, "is not an absolute URL", "is not an absolute URL (scheme://host/path)"});
    return out;
  }
  if (u.scheme == "http") {
    if (IsLoopbackHost(u.host)) {
      out.push_back({false, "uses plain http",
                     "uses plain http; accepted only because the host is loopback"});
    } else {
      out.push_back({true, "uses plain http",
                     "uses plain http to " + u.host +
                         ": the key would cross the network "
                         "unencrypted (https is required)"});
    }
  } else if (u.scheme != "https") {
    out.push_back(
        {true, "is not https", "uses scheme \"" + u.scheme + "\"; only https is accepted"});
  }
  if (!u.userinfo.empty()) {
    out.push_back({true, "carries user info",
                   "carries user info before the host (credentials do not belong in a URL)"});
  }
  if (!u.query.empty() || url.find('?') != std::string_view::npos) {
    bool utm = u.query.find("utm_") != std::string::npos;
    out.push_back({true, utm ? "carries UTM parameters" : "carries a query string",
                   std::string("carries a query string") + (utm ? " with UTM parameters" : "") +
                       " (?" + u.query +
                       "): query and UTM parameters belong to web links; in a Base URL "
                       "they break the request path or the authentication"});
  }
  if (!u.fragment.empty() || url.find('#') != std::string_view::npos) {
    out.push_back({true, "carries a fragment", "carries a fragment (#" + u.fragment + ")"});
  }
  // Never more lenient than the provider's own reader: what it refuses is an error here.
  Result<BaseUrl> judged = ParseBaseUrl(url);
  bool any_error = std::any_of(out.begin(), out.end(), [](const UrlProblem& p) { return p.error; });
  if (!judged.ok() && !any_error) {
    out.push_back({true, "is refused by [provider]'s rules", judged.status().message()});
  }
  return out;
}

namespace {

std::string_view StripSlash(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

}  // namespace

std::string CodexBaseUrlFor(std::string_view base) { return std::string(StripSlash(base)) + "/v1"; }

int CompareCodexBaseUrl(std::string_view codex, std::string_view base) {
  std::string_view c = StripSlash(codex);
  if (c == CodexBaseUrlFor(base)) return 0;
  if (c == StripSlash(base)) return 1;
  return 2;
}

}  // namespace av
