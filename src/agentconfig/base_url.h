// The Base URL checks of the config audit: every problem of a URL, each as a finding
// (llm/base_url.h judges [provider]'s own Base URL and stops at the first; anything it
// refuses is an error here too): https only (http for loopback hosts, with a warning), no user
// info, no query string (UTM parameters belong to web links, never to a Base URL), no fragment, no
// blanks. And how two tools' Base URLs are compared: Codex appends "/responses" to its
// base_url while Claude Code appends "/v1/messages", so a Codex base_url of
// "{base}/v1" is the same gateway as a Claude Code "{base}". Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

struct UrlParts {
  std::string scheme, userinfo, host, port, path, query, fragment;
};

// False when `url` has no "scheme://host".
bool SplitUrl(std::string_view url, UrlParts* out);

struct UrlProblem {
  bool error = true;  // false: a warning
  std::string title;  // "carries a query string"
  std::string message;
};

std::vector<UrlProblem> CheckBaseUrl(std::string_view url);

// How `codex_base_url` relates to the pinned `base` of [provider]: 0 the same gateway
// ({base}/v1), 1 the same text without "/v1" (Codex would post to {base}/responses),
// 2 another URL.
int CompareCodexBaseUrl(std::string_view codex_base_url, std::string_view base);

// The OpenAI-style root Codex needs for `base`: base + "/v1".
std::string CodexBaseUrlFor(std::string_view base);

}  // namespace av
