// The JUnit parser on files pytest wrote with the pytest_attnverify plugin
// (testdata/report/junit/, README there says how) and on hostile ones: DTDs and unknown
// entities refused, mismatched tags, depth and size limits, each with FILE:LINE.
#include "report/junit.h"

#include <gtest/gtest.h>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string Fixture(const std::string& rel) {
  Result<std::string> text =
      ReadFileToString(testing::SourceDir() + "/testdata/report/junit/" + rel);
  EXPECT_TRUE(text.ok()) << rel;
  return text.ok() ? *text : "";
}

TEST(JUnitParser, ReadsThePluginsPropertiesFromARealPytestFile) {
  Result<JUnitReport> r = ParseJUnitXml(Fixture("pass/pytest.xml"), "pytest.xml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->cases.size(), 5u);
  EXPECT_EQ(r->cases[0].name, "test_main_attention[attn.causal=true.s_k=20.s_q=3.bf16.s0]");
  EXPECT_EQ(r->cases[0].av_case, "attn.causal=true.s_k=20.s_q=3.bf16.s0");
  EXPECT_EQ(r->cases[0].av_verdict, "pass");
  EXPECT_FALSE(r->cases[0].failed);
  EXPECT_EQ(r->cases[0].line, 1);
}

TEST(JUnitParser, AFailingCaseHasItsVerdictReasonAndFailure) {
  Result<JUnitReport> r = ParseJUnitXml(Fixture("fail/pytest.xml"), "pytest.xml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->cases.size(), 5u);
  for (const JUnitCase& c : r->cases) {
    EXPECT_EQ(c.av_verdict, "fail") << c.name;
    EXPECT_TRUE(c.failed) << c.name;
  }
  // &gt; decoded in the attribute.
  EXPECT_NE(r->cases[0].av_reason.find("0.0343289 > k * max"), std::string::npos)
      << r->cases[0].av_reason;
}

TEST(JUnitParser, HandWrittenSubsetWithCommentsCdataAndReferences) {
  const std::string xml =
      "<?xml version='1.0'?>\n<!-- by hand -->\n<testsuite name='s'>\n"
      "  <testcase name=\"a &amp; b &#65;&#x42;\" classname='t'>\n"
      "    <system-out><![CDATA[<not a tag>]]></system-out>\n"
      "    <skipped message='no'/>\n"
      "  </testcase>\n  <testcase name='c'/>\n</testsuite>\n";
  Result<JUnitReport> r = ParseJUnitXml(xml, "x.xml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->cases.size(), 2u);
  EXPECT_EQ(r->cases[0].name, "a & b AB");
  EXPECT_EQ(r->cases[0].line, 4);
  EXPECT_TRUE(r->cases[0].skipped);
  EXPECT_EQ(r->cases[1].name, "c");
  EXPECT_EQ(r->cases[1].line, 8);
  EXPECT_TRUE(r->cases[1].av_case.empty());
}

void ExpectError(const std::string& xml, const std::string& what) {
  Result<JUnitReport> r = ParseJUnitXml(xml, "bad.xml");
  ASSERT_FALSE(r.ok()) << xml;
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().rfind("bad.xml", 0), 0u) << r.status().message();
}

TEST(JUnitParser, HostileFilesAreErrorsWithFileAndLine) {
  ExpectError(
      "<?xml version='1.0'?>\n<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>\n"
      "<testsuites>&e;</testsuites>",
      "bad.xml:2: a DOCTYPE");
  ExpectError("<testsuites>\n<testcase name='&e;'/></testsuites>", "bad.xml:2: unknown entity &e;");
  ExpectError("<testsuites>\n<testcase>\n</testsuite>",
              "bad.xml:3: </testsuite> closes <testcase>");
  ExpectError("<testsuites>\n<testcase>", "bad.xml:2: <testcase> is never closed");
  ExpectError("<html></html>", "not <testsuites> or <testsuite>");
  ExpectError("", "no element");
  ExpectError("<testsuites a='1' a='2'/>", "given twice");
  ExpectError("<testsuites a=1/>", "quoted value");
  ExpectError("<testsuites/><testsuites/>", "second root");
  ExpectError("<testsuites>&#x110000;</testsuites>", "out of range");
  ExpectError("<testsuites a='&'/>", "bare '&'");
  std::string deep = "<testsuites>";
  for (int i = 0; i < 100; ++i) deep += "<a>";
  ExpectError(deep, "deeper than 64");
  ExpectError(std::string(kMaxJUnitBytes + 1, ' '), "larger than 64 MiB");
}

TEST(JUnitParser, EveryPrefixOfARealFileIsAnErrorOrParsesNeverACrash) {
  const std::string xml = Fixture("fail/pytest.xml");
  for (size_t n = 0; n < xml.size(); n += 97) {
    Result<JUnitReport> r = ParseJUnitXml(xml.substr(0, n), "p.xml");
    if (r.ok()) EXPECT_LE(r->cases.size(), 5u);
  }
}

}  // namespace
}  // namespace av
