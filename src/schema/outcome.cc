#include "schema/outcome.h"

#include <array>
#include <utility>

namespace av {
namespace {

// One table per enum: the names in enum order.
constexpr std::array<const char*, 3> kCaseVerdicts = {"pass", "fail", "error"};
constexpr std::array<const char*, 3> kInvarianceVerdicts = {"pass", "fail", "flagged"};
constexpr std::array<const char*, 4> kStageStatuses = {"ok", "rejected", "error", "skipped"};
constexpr std::array<const char*, 4> kCheckStatuses = {"PASS", "FAIL", "MISSING", "N/A"};
constexpr std::array<const char*, 4> kGateStatuses = {"pass", "fail", "missing", "n/a"};
constexpr std::array<const char*, 5> kAgentRoundStatuses = {"ok", "failed", "retried", "skipped",
                                                            "not_run"};
constexpr std::array<const char*, 3> kVerdicts = {"accepted", "rejected", "incomplete"};
constexpr std::array<const char*, 3> kSeverities = {"error", "warning", "note"};
constexpr std::array<const char*, 3> kAgentSeverities = {"high", "medium", "low"};
constexpr std::array<const char*, 3> kAgentCheckStatuses = {"ok", "fail", "missing"};

template <typename E, size_t N>
const char* NameOf(const std::array<const char*, N>& names, E value) {
  const size_t i = static_cast<size_t>(value);
  return i < N ? names[i] : "?";
}

template <typename E, size_t N>
std::optional<E> ParseOf(const std::array<const char*, N>& names, std::string_view word) {
  for (size_t i = 0; i < N; ++i) {
    if (word == names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

const char* CaseVerdictName(CaseVerdict v) { return NameOf(kCaseVerdicts, v); }
const char* InvarianceVerdictName(InvarianceVerdict v) { return NameOf(kInvarianceVerdicts, v); }
const char* StageStatusName(StageStatus s) { return NameOf(kStageStatuses, s); }
const char* CheckStatusName(CheckStatus s) { return NameOf(kCheckStatuses, s); }
const char* GateStatusName(CheckStatus s) { return NameOf(kGateStatuses, s); }
const char* AgentRoundStatusName(AgentRoundStatus s) { return NameOf(kAgentRoundStatuses, s); }
const char* ReportVerdictName(ReportVerdict v) { return NameOf(kVerdicts, v); }
const char* SeverityName(Severity s) { return NameOf(kSeverities, s); }
const char* AgentSeverityName(Severity s) { return NameOf(kAgentSeverities, s); }
const char* AgentCheckStatusName(CheckStatus s) { return NameOf(kAgentCheckStatuses, s); }

std::optional<CaseVerdict> ParseCaseVerdict(std::string_view w) {
  return ParseOf<CaseVerdict>(kCaseVerdicts, w);
}
std::optional<InvarianceVerdict> ParseInvarianceVerdict(std::string_view w) {
  return ParseOf<InvarianceVerdict>(kInvarianceVerdicts, w);
}
std::optional<StageStatus> ParseStageStatus(std::string_view w) {
  return ParseOf<StageStatus>(kStageStatuses, w);
}
std::optional<CheckStatus> ParseCheckStatus(std::string_view w) {
  return ParseOf<CheckStatus>(kCheckStatuses, w);
}
std::optional<CheckStatus> ParseGateStatus(std::string_view w) {
  return ParseOf<CheckStatus>(kGateStatuses, w);
}
std::optional<ReportVerdict> ParseReportVerdict(std::string_view w) {
  return ParseOf<ReportVerdict>(kVerdicts, w);
}
std::optional<Severity> ParseSeverity(std::string_view w) {
  return ParseOf<Severity>(kSeverities, w);
}
std::optional<Severity> ParseAgentSeverity(std::string_view w) {
  return ParseOf<Severity>(kAgentSeverities, w);
}
std::optional<CheckStatus> ParseAgentCheckStatus(std::string_view w) {
  return ParseOf<CheckStatus>(kAgentCheckStatuses, w);
}

const char* CaseVerdictWords() { return "\"pass\", \"fail\" or \"error\""; }
const char* InvarianceVerdictWords() { return "\"pass\", \"fail\" or \"flagged\""; }
const char* StageStatusWords() { return "\"ok\", \"rejected\", \"error\" or \"skipped\""; }
const char* SeverityWords() { return "\"error\", \"warning\" or \"note\""; }

}  // namespace av
