#include "schema/outcome.h"

#include <gtest/gtest.h>

#include <string>

namespace av {
namespace {

// Every enum value has a name, and Parse reads that name back as the same value.
template <typename E>
void ExpectRoundTrip(std::initializer_list<E> values, const char* (*name)(E),
                     std::optional<E> (*parse)(std::string_view)) {
  for (E v : values) {
    ASSERT_STRNE(name(v), "?");
    EXPECT_EQ(parse(name(v)), v) << name(v);
  }
}

TEST(Outcome, NamesParseBack) {
  ExpectRoundTrip({CaseVerdict::kPass, CaseVerdict::kFail, CaseVerdict::kError}, CaseVerdictName,
                  ParseCaseVerdict);
  ExpectRoundTrip({InvarianceVerdict::kPass, InvarianceVerdict::kFail, InvarianceVerdict::kFlagged},
                  InvarianceVerdictName, ParseInvarianceVerdict);
  ExpectRoundTrip(
      {StageStatus::kOk, StageStatus::kRejected, StageStatus::kError, StageStatus::kSkipped},
      StageStatusName, ParseStageStatus);
  const auto checks = {CheckStatus::kPass, CheckStatus::kFail, CheckStatus::kMissing,
                       CheckStatus::kNotApplicable};
  ExpectRoundTrip(checks, CheckStatusName, ParseCheckStatus);
  ExpectRoundTrip(checks, GateStatusName, ParseGateStatus);
  ExpectRoundTrip({ReportVerdict::kAccepted, ReportVerdict::kRejected, ReportVerdict::kIncomplete},
                  ReportVerdictName, ParseReportVerdict);
  ExpectRoundTrip({Severity::kError, Severity::kWarning, Severity::kNote}, SeverityName,
                  ParseSeverity);
}

TEST(Outcome, TheWordsAreTheFilesWords) {
  EXPECT_STREQ(CaseVerdictName(CaseVerdict::kError), "error");
  EXPECT_STREQ(StageStatusName(StageStatus::kRejected), "rejected");
  EXPECT_STREQ(CheckStatusName(CheckStatus::kMissing), "MISSING");
  EXPECT_STREQ(CheckStatusName(CheckStatus::kNotApplicable), "N/A");
  EXPECT_STREQ(GateStatusName(CheckStatus::kNotApplicable), "n/a");
  // The agent's answers never say a check does not apply.
  EXPECT_FALSE(ParseAgentCheckStatus("n/a"));
  EXPECT_FALSE(ParseAgentCheckStatus("N/A"));
  EXPECT_STREQ(ReportVerdictName(ReportVerdict::kIncomplete), "incomplete");
  EXPECT_STREQ(SeverityName(Severity::kWarning), "warning");
  // Only the exact words: the files are written by attnverify.
  EXPECT_FALSE(ParseCaseVerdict("PASS"));
  EXPECT_FALSE(ParseSeverity("fatal"));
  EXPECT_FALSE(ParseStageStatus(""));
}

}  // namespace
}  // namespace av
