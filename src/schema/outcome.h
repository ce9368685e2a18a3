// The outcomes attnverify judges, as enums. Each has one Name (the word written in JSON
// and shown to people) and one Parse (the only place a word becomes an outcome), so that
// code compares values, never strings. Pure; any thread.
#pragma once

#include <optional>
#include <string_view>

namespace av {

// A numerics case: "pass", "fail" (the candidate's fault), "error" (attnverify's
// reference failed: the case was not judged).
enum class CaseVerdict { kPass, kFail, kError };
// An invariance check of one group: "pass", "fail", "flagged" (worth a look, not a failure).
enum class InvarianceVerdict { kPass, kFail, kFlagged };
// A stage of `attnverify run`: "ok" (exit 0), "rejected" (exit 1: its evidence says no),
// "error" (exit 2/3, crash, timeout, could not start), "skipped".
enum class StageStatus { kOk, kRejected, kError, kSkipped };
// A check of the acceptance checklist: "PASS", "FAIL", "MISSING", or "N/A": the check does
// not apply to this change, which cited evidence shows (no GEMM op swept and no GEMM code
// changed; one kernel path and no path selection changed). N/A never blocks the verdict;
// a check that may apply and has no evidence stays MISSING.
enum class CheckStatus { kPass, kFail, kMissing, kNotApplicable };
// The report's verdict: accepted, rejected, incomplete (ReportVerdictName has the words).
enum class ReportVerdict { kAccepted, kRejected, kIncomplete };
// One request of the agent reviewer: "ok", "failed", "retried" (its answer was refused and
// the next try sent), "skipped" (nothing to send), "not_run" (an earlier request failed).
enum class AgentRoundStatus { kOk, kFailed, kRetried, kSkipped, kNotRun };
// A finding's (or a compiler diagnostic's) severity: "error", "warning", "note".
enum class Severity { kError, kWarning, kNote };

const char* CaseVerdictName(CaseVerdict v);
const char* InvarianceVerdictName(InvarianceVerdict v);
const char* StageStatusName(StageStatus s);
const char* CheckStatusName(CheckStatus s);
// A build gate (resources.json) or perf gate (perf.json) is a check too, written in
// lower case there: "pass", "fail", "missing" (and "n/a").
const char* GateStatusName(CheckStatus s);
const char* AgentRoundStatusName(AgentRoundStatus s);
const char* ReportVerdictName(ReportVerdict v);
const char* SeverityName(Severity s);
// The agent reviewer's words for the same scale (doc/formats/agent-findings.md): "high"
// (kError), "medium" (kWarning), "low" (kNote).
const char* AgentSeverityName(Severity s);
// The agent reviewer's words for a check's status: "ok" (kPass), "missing" (kMissing),
// "fail" (kFail).
const char* AgentCheckStatusName(CheckStatus s);

// nullopt for any other word (case-sensitive: the files are written by attnverify).
std::optional<CaseVerdict> ParseCaseVerdict(std::string_view word);
std::optional<InvarianceVerdict> ParseInvarianceVerdict(std::string_view word);
std::optional<StageStatus> ParseStageStatus(std::string_view word);
std::optional<CheckStatus> ParseCheckStatus(std::string_view word);
std::optional<CheckStatus> ParseGateStatus(std::string_view word);
std::optional<ReportVerdict> ParseReportVerdict(std::string_view word);
std::optional<Severity> ParseSeverity(std::string_view word);
std::optional<Severity> ParseAgentSeverity(std::string_view word);
std::optional<CheckStatus> ParseAgentCheckStatus(std::string_view word);

// "\"pass\", \"fail\" or \"error\"": the words Parse accepts, for error messages.
const char* CaseVerdictWords();
const char* InvarianceVerdictWords();
const char* StageStatusWords();
const char* SeverityWords();

}  // namespace av
