#include "llm/base_url.h"

#include <algorithm>
#include <cctype>

namespace av {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A dotted quad whose first octet is 127.
bool IsIpv4Loopback(std::string_view host) {
  int parts = 0;
  size_t start = 0;
  while (start <= host.size()) {
    size_t dot = host.find('.', start);
    if (dot == std::string_view::npos) dot = host.size();
    std::string_view part = host.substr(start, dot - start);
    if (!AllDigits(part) || part.size() > 3 || std::stoi(std::string(part)) > 255) return false;
    if (parts == 0 && part != "127") return false;
    ++parts;
    start = dot + 1;
  }
  return parts == 4;
}

bool ValidHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  std::string h = Lower(host);
  return h == "localhost" || h == "[::1]" || h == "::1" || IsIpv4Loopback(h);
}

std::string BaseUrl::Normalized() const {
  std::string out = scheme + "://" + host;
  if (port != 0) {
    out += ':';
    out += std::to_string(port);
  }
  return out + path;
}

Result<BaseUrl> ParseBaseUrl(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return InvalidInput("contains a space or control character");
    }
  }
  size_t sep = text.find("://");
  if (sep == std::string_view::npos) return InvalidInput("is not an absolute URL (scheme://host)");
  BaseUrl url;
  url.scheme = Lower(text.substr(0, sep));
  std::string_view rest = text.substr(sep + 3);
  if (url.scheme != "https" && url.scheme != "http") {
    return InvalidInput("has scheme \"" + url.scheme + "\"; only https is allowed");
  }
  if (rest.find('?') != std::string_view::npos) {
    return InvalidInput(
        "has a query string; a Base URL carries no query (UTM or other parameters belong to web "
        "links and break the path or the authentication)");
  }
  if (rest.find('#') != std::string_view::npos) return InvalidInput("has a fragment ('#...')");
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) {
    return InvalidInput(
        "has user info ('user@' or 'user:password@'); credentials never go in a URL");
  }
  if (authority.empty()) return InvalidInput("has no host");
  std::string_view host = authority;
  std::string_view port;
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return InvalidInput("has an unclosed IPv6 '['");
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return InvalidInput("has text after the IPv6 address");
      port = after.substr(1);
    }
    std::string_view inside = host.substr(1, host.size() - 2);
    if (inside.empty() || !std::all_of(inside.begin(), inside.end(), [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
        })) {
      return InvalidInput("has a malformed IPv6 address");
    }
  } else {
    size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    }
    if (host.empty()) return InvalidInput("has no host");
    if (!std::all_of(host.begin(), host.end(), ValidHostChar)) {
      return InvalidInput("has a host with characters other than letters, digits, '-', '.'");
    }
  }
  if (!port.empty() || (authority.back() == ':')) {
    if (!AllDigits(port) || port.size() > 5 || std::stoi(std::string(port)) < 1 ||
        std::stoi(std::string(port)) > 65535) {
      return InvalidInput("has a port that is not a number in 1..65535");
    }
    url.port = std::stoi(std::string(port));
  }
  url.host = Lower(host);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find("/../") != std::string_view::npos || path.ends_with("/..") ||
      path.find("/./") != std::string_view::npos || path.ends_with("/.")) {
    return InvalidInput("has '.' or '..' segments in its path");
  }
  if (path.find('%') != std::string_view::npos) {
    return InvalidInput("has percent-escapes in its path (write the path plainly)");
  }
  url.path = std::string(path);
  url.loopback = IsLoopbackHost(url.host);
  if (url.scheme == "http" && !url.loopback) {
    return InvalidInput("uses plain http to " + url.host +
                        "; only https is allowed (http only to a loopback host such as "
                        "127.0.0.1, for tests)");
  }
  return url;
}

std::string UrlHost(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return "";
  std::string_view rest = url.substr(sep + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = rest.rfind('@');
  if (at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest[0] == '[') return Lower(rest.substr(0, rest.find(']') + 1));
  return Lower(rest.substr(0, rest.find(':')));
}

}  // namespace av
