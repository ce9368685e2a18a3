// 1.junit_agrees over files one pytest session wrote (testdata/report/junit/: pytest's
// --junitxml and the plugin's numerics.json): agreeing files PASS; a JUnit verdict that
// differs from numerics.json is shown and holds the verdict at incomplete; a JUnit "pass"
// never makes a case numerics.json failed pass.
#include <gtest/gtest.h>

#include "core/file.h"
#include "report/checklist_test_util.h"
#include "testing/test_util.h"

namespace av {
namespace {

using report_testing::Compute;
using report_testing::FindCheck;

std::string Fixture(const std::string& rel) {
  Result<std::string> text =
      ReadFileToString(testing::SourceDir() + "/testdata/report/junit/" + rel);
  EXPECT_TRUE(text.ok()) << rel;
  return text.ok() ? *text : "";
}

Evidence Session(const std::string& junit_run, const std::string& numerics_run) {
  Evidence ev;
  Result<NumericsEvidence> n =
      ParseNumericsEvidence(Fixture(numerics_run + "/numerics.json"), "evidence/numerics.json");
  EXPECT_TRUE(n.ok()) << n.status().message();
  if (n.ok()) ev.numerics = *n;
  Result<JUnitReport> j = ParseJUnitXml(Fixture(junit_run + "/pytest.xml"), "reports/pytest.xml");
  EXPECT_TRUE(j.ok()) << j.status().message();
  if (j.ok()) {
    ev.junit.emplace();
    static_cast<JUnitReport&>(*ev.junit) = *j;
    ev.junit->file.path = "reports/pytest.xml";
    ev.junit->file.sha256 = std::string(64, 'a');
  }
  return ev;
}

TEST(ChecklistJUnit, OneSessionsFilesAgree) {
  for (const char* run : {"pass", "fail"}) {
    ChecklistReport r = Compute(Session(run, run));
    const Check* c = FindCheck(r, "1.junit_agrees");
    ASSERT_NE(c, nullptr) << run;
    EXPECT_EQ(c->status, CheckStatus::kPass) << run << ": " << c->summary;
    EXPECT_NE(c->summary.find("5 JUnit cases"), std::string::npos) << c->summary;
    ASSERT_EQ(c->citations.size(), 2u);
    EXPECT_EQ(c->citations[0].file, "reports/pytest.xml");
    bool listed = false;  // among the evidence files, with its digest
    for (const EvidenceFile& f : r.evidence) listed |= f.path == "reports/pytest.xml";
    EXPECT_TRUE(listed);
  }
  EXPECT_EQ(FindCheck(Compute(Session("fail", "fail")), "1.base_cases")->status,
            CheckStatus::kFail);
}

TEST(ChecklistJUnit, AJUnitPassNeverMakesAFailedCasePass) {
  // pytest's file says every case passed; numerics.json says they failed.
  ChecklistReport r = Compute(Session("pass", "fail"));
  const Check* c = FindCheck(r, "1.junit_agrees");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kMissing);
  ASSERT_FALSE(c->details.empty()) << c->summary;
  EXPECT_NE(c->details[0].find("JUnit says pass, evidence/numerics.json says fail for "
                               "attn.causal=true.s_k=20.s_q=3.bf16.s0"),
            std::string::npos)
      << c->details[0];
  EXPECT_NE(c->details[0].find("reports/pytest.xml:1 test_main_attention["), std::string::npos);
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kFail);
  EXPECT_EQ(r.items[0].status, CheckStatus::kFail);
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistJUnit, AJUnitFailOnAPassingCaseHoldsTheVerdict) {
  ChecklistReport r = Compute(Session("fail", "pass"), "[policy]\nrequired = [1]\n");
  const Check* c = FindCheck(r, "1.junit_agrees");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kMissing);
  EXPECT_NE(c->summary.find("5 JUnit cases disagree"), std::string::npos) << c->summary;
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
  EXPECT_NE(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistJUnit, ACaseNumericsJsonDoesNotHoldOrNoPluginPropertiesIsMissing) {
  Evidence ev = Session("pass", "pass");
  ev.junit->cases[2].av_case = "attn.not_in_the_sweep";
  ChecklistReport r = Compute(ev);
  const Check* c = FindCheck(r, "1.junit_agrees");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kMissing) << c->summary;
  ASSERT_FALSE(c->details.empty()) << c->summary;
  EXPECT_NE(c->details[0].find("case attn.not_in_the_sweep is not in evidence/numerics.json"),
            std::string::npos)
      << c->details[0];

  for (JUnitCase& t : ev.junit->cases) t.av_case.clear();
  ChecklistReport none = Compute(ev);
  EXPECT_EQ(FindCheck(none, "1.junit_agrees")->status, CheckStatus::kMissing);
  EXPECT_NE(
      FindCheck(none, "1.junit_agrees")->summary.find("no <testcase> records attnverify_case"),
      std::string::npos);

  Evidence no_numerics = Session("pass", "pass");
  no_numerics.numerics.reset();
  EXPECT_EQ(FindCheck(Compute(no_numerics), "1.junit_agrees")->status, CheckStatus::kMissing);
}

TEST(ChecklistJUnit, WithoutAJUnitFileTheCheckIsAbsent) {
  Evidence ev = Session("pass", "pass");
  ev.junit.reset();
  EXPECT_EQ(FindCheck(Compute(ev), "1.junit_agrees"), nullptr);
}

TEST(ChecklistJUnit, LoadEvidenceReadsTheNamedFileAndRefusesAMissingOrBadOne) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("pytest.xml"), Fixture("pass/pytest.xml")).ok());
  EvidenceRequest req;
  req.package_dir = dir.path();
  req.junit = "pytest.xml";
  Result<Evidence> ev = LoadEvidence(req);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  ASSERT_TRUE(ev->junit.has_value());
  EXPECT_EQ(ev->junit->cases.size(), 5u);
  EXPECT_EQ(ev->junit->file.path, "pytest.xml");
  EXPECT_EQ(ev->junit->file.sha256.size(), 64u);

  req.junit = "absent.xml";
  Result<Evidence> absent = LoadEvidence(req);
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.status().message().find("absent.xml: no such JUnit file"), std::string::npos);

  ASSERT_TRUE(WriteFileAtomically(dir.File("bad.xml"), "<testsuites>\n<x></y>").ok());
  req.junit = dir.File("bad.xml");
  Result<Evidence> bad = LoadEvidence(req);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.xml:2:"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace av
