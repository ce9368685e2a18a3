#include "agent/agent_answer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "llm/wire_format.h"

namespace av {
namespace {

using nlohmann::json;

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

Status Bad(const std::string& path, const std::string& what) {
  return InvalidInput(path + ": " + what);
}

Status String(const json& obj, const std::string& key, const std::string& path, bool required,
              std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    return required ? Bad(path + "." + key, "missing") : Status::Ok();
  }
  if (!it->is_string()) return Bad(path + "." + key, "not a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status Integer(const json& obj, const std::string& key, const std::string& path, bool required,
               int64_t lo, int64_t hi, int64_t* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    return required ? Bad(path + "." + key, "missing") : Status::Ok();
  }
  if (!it->is_number_integer() && !it->is_number_unsigned()) {
    return Bad(path + "." + key, "not an integer");
  }
  int64_t v = it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX}
                  ? INT64_MAX
                  : it->get<int64_t>();
  if (v < lo || v > hi) {
    return Bad(path + "." + key,
               "out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  }
  *out = v;
  return Status::Ok();
}

Result<AgentFinding> ParseFinding(const json& j, const std::string& path) {
  if (!j.is_object()) return Bad(path, "not an object");
  AgentFinding f;
  AV_RETURN_IF_ERROR(String(j, "file", path, false, &f.file));
  AV_RETURN_IF_ERROR(Integer(j, "line", path, false, 0, int64_t{1} << 31, &f.line));
  f.end_line = f.line;
  AV_RETURN_IF_ERROR(Integer(j, "end_line", path, false, 0, int64_t{1} << 31, &f.end_line));
  if (f.end_line < f.line) return Bad(path + ".end_line", "before line");
  AV_RETURN_IF_ERROR(String(j, "side", path, false, &f.side));
  if (f.side != "new" && f.side != "old") return Bad(path + ".side", "not \"new\" or \"old\"");
  int64_t item = 0;
  AV_RETURN_IF_ERROR(Integer(j, "item", path, true, 1, 8, &item));
  f.item = static_cast<int>(item);
  std::string severity;
  AV_RETURN_IF_ERROR(String(j, "severity", path, true, &severity));
  std::optional<Severity> s = ParseAgentSeverity(severity);
  if (!s) return Bad(path + ".severity", "not \"high\", \"medium\" or \"low\"");
  f.severity = *s;
  AV_RETURN_IF_ERROR(String(j, "claim", path, true, &f.claim));
  if (Trim(f.claim).empty()) return Bad(path + ".claim", "empty");
  AV_RETURN_IF_ERROR(String(j, "evidence", path, false, &f.evidence));
  AV_RETURN_IF_ERROR(String(j, "command", path, false, &f.command));
  AV_RETURN_IF_ERROR(String(j, "failure_class", path, false, &f.failure_class));
  if (!f.failure_class.empty()) {
    const std::vector<std::string>& known = FailureClasses();
    if (std::find(known.begin(), known.end(), f.failure_class) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "\"" : ", \"") + k + "\"";
      return Bad(path + ".failure_class", "not one of " + list);
    }
  }
  return f;
}

Result<AgentCheck> ParseCheck(const json& j, const std::string& path) {
  if (!j.is_object()) return Bad(path, "not an object");
  AgentCheck c;
  int64_t item = 0;
  AV_RETURN_IF_ERROR(Integer(j, "item", path, true, 1, 8, &item));
  c.item = static_cast<int>(item);
  std::string status;
  AV_RETURN_IF_ERROR(String(j, "status", path, true, &status));
  std::optional<CheckStatus> s = ParseAgentCheckStatus(status);
  if (!s) return Bad(path + ".status", "not \"ok\", \"missing\" or \"fail\"");
  c.status = *s;
  AV_RETURN_IF_ERROR(String(j, "needs", path, false, &c.needs));
  AV_RETURN_IF_ERROR(String(j, "command", path, false, &c.command));
  return c;
}

}  // namespace

const std::vector<std::string>& FailureClasses() {
  static const std::vector<std::string> classes = {"numerical", "shape", "compile_cache",
                                                   "other"};
  return classes;
}

std::string_view StripJsonFence(std::string_view text) {
  std::string_view t = Trim(text);
  if (t.substr(0, 3) != "```") return t;
  size_t eol = t.find('\n');
  if (eol == std::string_view::npos) return t;
  std::string_view tag = Trim(t.substr(3, eol - 3));
  if (!tag.empty() && tag != "json") return t;
  std::string_view body = t.substr(eol + 1);
  size_t close = body.rfind("```");
  if (close == std::string_view::npos) return t;
  if (!Trim(body.substr(close + 3)).empty()) return t;  // text after the fence
  return Trim(body.substr(0, close));
}

Result<AgentAnswer> ParseAgentAnswer(std::string_view text) {
  if (text.size() > kMaxAnswerBytes) {
    return InvalidInput("answer is " + std::to_string(text.size()) + " bytes (at most " +
                        std::to_string(kMaxAnswerBytes) + ")");
  }
  std::string_view body = StripJsonFence(text);
  if (body.empty()) return InvalidInput("empty answer: one JSON object was asked for");
  if (!JsonDepthWithin(body, 16)) return InvalidInput("not JSON of depth 16 or less");
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Parsed once more, with exceptions, only to learn the byte where it breaks.
    try {
      json again = json::parse(body);
      (void)again;
    } catch (const json::parse_error& e) {
      return InvalidInput(std::string("not JSON: syntax error at byte ") + std::to_string(e.byte) +
                          " (one JSON object was asked for)");
    }
    return InvalidInput("not JSON (one JSON object was asked for)");
  }
  if (!j.is_object()) return InvalidInput("$: not an object (one JSON object was asked for)");
  AgentAnswer answer;
  auto findings = j.find("findings");
  if (findings == j.end()) return InvalidInput("$.findings: missing");
  if (!findings->is_array()) return InvalidInput("$.findings: not an array");
  if (findings->size() > kMaxAnswerFindings) {
    return InvalidInput("$.findings: " + std::to_string(findings->size()) + " findings (at most " +
                        std::to_string(kMaxAnswerFindings) + ")");
  }
  for (size_t i = 0; i < findings->size(); ++i) {
    AV_ASSIGN_OR_RETURN(AgentFinding f,
                        ParseFinding((*findings)[i], "$.findings[" + std::to_string(i) + "]"));
    answer.findings.push_back(std::move(f));
  }
  auto checks = j.find("checks");
  if (checks != j.end() && !checks->is_null()) {
    if (!checks->is_array()) return InvalidInput("$.checks: not an array");
    if (checks->size() > kMaxAnswerFindings) return InvalidInput("$.checks: too many checks");
    for (size_t i = 0; i < checks->size(); ++i) {
      AV_ASSIGN_OR_RETURN(AgentCheck c,
                          ParseCheck((*checks)[i], "$.checks[" + std::to_string(i) + "]"));
      answer.checks.push_back(std::move(c));
    }
  }
  return answer;
}

}  // namespace av
