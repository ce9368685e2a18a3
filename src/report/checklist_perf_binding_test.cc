// perf.json and the run binding: no stage of `attnverify run` writes it, so it is judged as
// imported, but a /2 file whose provenance names another config (or this config with
// other bytes) is refused: 4.perf and 3.bank_conflicts MISSING with the reason, never PASS.
// A /1 file (no provenance) is judged as before.
#include <gtest/gtest.h>

#include "profile/perf_model.h"
#include "report/checklist_test_util.h"

namespace av {
namespace {

using report_testing::Compute;
using report_testing::FindCheck;

const std::string kConfigSha = "c0ffee" + std::string(58, '0');

profile::KernelProfile Kernel(const std::string& label, double ns) {
  profile::KernelProfile k;
  k.label = label;
  k.shape = "b16";
  k.tool = "ncu";
  k.name = profile::NormaliseKernelName("void flash::splitk_kernel<(int)64>(Params)");
  k.source_sha256 = label;
  for (int i = 0; i < 5; ++i) {
    profile::Launch l;
    l.figures[profile::fig::kDuration] = {ns + i, "ns", "", "ns"};
    l.figures[profile::fig::kBankLd] = {10, "", "", ""};
    k.launches.push_back(l);
  }
  return k;
}

// A faster head in perf.json, written under `config` with `sha` (no provenance when
// `config` is empty), judged against attnverify.toml whose bytes have kConfigSha.
Evidence PerfUnder(const std::string& config, const std::string& sha) {
  Evidence ev;
  ev.perf_doc = profile::PerfDoc{{Kernel("base", 1000), Kernel("head", 970)}};
  ev.perf = EvidenceFile{};
  ev.perf->path = "evidence/perf.json";
  ev.perf->sha256 = "ab12";
  if (!config.empty()) {
    ev.perf->has_provenance = true;
    ev.perf->run_id = ev.perf->provenance.run_id = "20261201T093000Z-3f9a1c";
    ev.perf->stage = ev.perf->provenance.stage = "profile";
    ev.perf->provenance.config = config;
    ev.perf->provenance.inputs = {{config, sha}, {"ncu_head.csv", std::string(64, 'a')}};
  }
  ev.run.emplace();
  ev.run->file.path = "evidence/run.json";
  RunTrust t;
  t.seal = SealState::kValid;
  t.note = "sealed with this machine's key k1";
  t.config = "attnverify.toml";
  t.config_sha256 = kConfigSha;
  ev.run->trust = t;
  return ev;
}

const std::string kGpu = "[policy]\ngpu_evidence = true\n";

TEST(ChecklistPerfBinding, PerfWrittenUnderThisConfigIsJudged) {
  ChecklistReport r = Compute(PerfUnder("attnverify.toml", kConfigSha), kGpu);
  EXPECT_EQ(FindCheck(r, "4.perf")->status, CheckStatus::kPass) << FindCheck(r, "4.perf")->summary;
  EXPECT_EQ(FindCheck(r, "3.bank_conflicts")->status, CheckStatus::kPass);
}

TEST(ChecklistPerfBinding, PerfWithoutProvenanceIsJudgedAsImported) {
  ChecklistReport r = Compute(PerfUnder("", ""), kGpu);
  EXPECT_EQ(FindCheck(r, "4.perf")->status, CheckStatus::kPass) << FindCheck(r, "4.perf")->summary;
}

TEST(ChecklistPerfBinding, PerfWrittenUnderAnotherConfigIsRefused) {
  for (auto [config, sha, why] :
       {std::tuple{"av_old.toml", kConfigSha,
                   "written under the config av_old.toml, and this report judges attnverify.toml"},
        {"attnverify.toml", std::string(64, 'e'), "written under another attnverify.toml"}}) {
    ChecklistReport r = Compute(PerfUnder(config, sha), kGpu);
    for (const char* id : {"4.perf", "3.bank_conflicts"}) {
      const Check* c = FindCheck(r, id);
      EXPECT_EQ(c->status, CheckStatus::kMissing) << id;
      EXPECT_NE(c->summary.find(std::string("evidence/perf.json is not used: it was ") + why),
                std::string::npos)
          << c->summary;
      EXPECT_NE(c->summary.find("import the profiles again"), std::string::npos) << c->summary;
      EXPECT_NE(c->missing_command.find("attnverify profile"), std::string::npos);
    }
    EXPECT_TRUE(r.perf.empty());
    EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
    bool listed = false;
    for (const EvidenceFile& f : r.evidence)
      listed |= f.path == "evidence/perf.json" && f.refused.find(why) != std::string::npos;
    EXPECT_TRUE(listed);
  }
}

}  // namespace
}  // namespace av
