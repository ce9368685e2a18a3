// Reports name the package as commands name it, never by the machine's absolute paths:
// acceptance.md after `run` carried the GPU box's absolute config path in its verify lines.
#include "report/checklist_portable.h"

#include <gtest/gtest.h>

namespace av::checklist {
namespace {

const std::string kPackage = "/home/gpu/proj/attention-verify";

TEST(PortableReport, AbsoluteConfigInVerifyCommandsBecomesTheDisplayPath) {
  EXPECT_EQ(PortableText("attnverify numerics --config " + kPackage + "/attnverify.toml",
                         kPackage, "attnverify.toml", "attention-verify/attnverify.toml"),
            "attnverify numerics --config attention-verify/attnverify.toml");
  EXPECT_EQ(PortableText("attnverify build --config '" + kPackage + "/attnverify.toml' --base X",
                         kPackage, "attnverify.toml", "attention-verify/attnverify.toml"),
            "attnverify build --config 'attention-verify/attnverify.toml' --base X");
}

TEST(PortableReport, PackageFilesBecomeRelativeAndOtherPathsStay) {
  EXPECT_EQ(PortableText("see " + kPackage + "/logs/build.log: line 3", kPackage,
                         "attnverify.toml", "attention-verify/attnverify.toml"),
            "see attention-verify/logs/build.log: line 3");
  // A sibling folder whose name starts with the package's is not the package.
  EXPECT_EQ(PortableText(kPackage + "2/x.csv", kPackage, "attnverify.toml",
                         "attention-verify/attnverify.toml"),
            kPackage + "2/x.csv");
  // A config named from inside the package: its files are named from there.
  EXPECT_EQ(PortableText("--cases " + kPackage + "/work/cases", kPackage, "attnverify.toml",
                         "attnverify.toml"),
            "--cases work/cases");
  // An absolute display path (the user gave one): nothing to make relative to.
  EXPECT_EQ(PortableText("--config " + kPackage + "/attnverify.toml", kPackage,
                         "attnverify.toml", "/elsewhere/attnverify.toml"),
            "--config " + kPackage + "/attnverify.toml");
}

TEST(PortableReport, EveryCommandOfTheReportIsRewritten) {
  ChecklistReport r;
  r.items.resize(1);
  Check c;
  c.missing_command = "attnverify numerics --config " + kPackage + "/attnverify.toml";
  c.citations.push_back({"evidence/perf.json", "", c.missing_command, ""});
  r.items[0].checks.push_back(c);
  Finding f;
  f.verify = {"attnverify", "build", "--config", kPackage + "/attnverify.toml"};
  r.items[0].findings.push_back(f);
  r.findings.push_back(f);
  EvidenceFile e;
  e.command = c.missing_command;
  r.evidence.push_back(e);
  PortableReport(kPackage, "attnverify.toml", "attention-verify/attnverify.toml", &r);
  const std::string want = "attnverify numerics --config attention-verify/attnverify.toml";
  EXPECT_EQ(r.items[0].checks[0].missing_command, want);
  EXPECT_EQ(r.items[0].checks[0].citations[0].command, want);
  EXPECT_EQ(r.items[0].findings[0].verify[3], "attention-verify/attnverify.toml");
  EXPECT_EQ(r.findings[0].verify[3], "attention-verify/attnverify.toml");
  EXPECT_EQ(r.evidence[0].command, want);
}

}  // namespace
}  // namespace av::checklist
