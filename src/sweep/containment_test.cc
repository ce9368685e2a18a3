// The sweep against a hostile candidate, through a FakeProcessRunner whose handler plays
// the candidate (no sandbox: what the library does on its own). A symbolic link planted in
// the work folder is never followed (H6); a candidate that rewrites another stage's
// evidence fails every case (H2); the reference uses attnverify's checked copy of the
// inputs (H3); a sparse 10 GB output tail is refused unread (L4); a prepare that ran out
// of disk is an error that keeps the earlier evidence, not a FAIL (L5).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/numerics_config.h"
#include "sweep/numerics_run.h"
#include "sweep/shapes_config.h"
#include "sweep/sweep_test_util.h"
#include "tensor/npy.h"
#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

class SweepContainmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(WriteFileAtomically(dir_.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}], "dtypes": ["f32"]}]})")
                    .ok());
    ASSERT_TRUE(WriteFileAtomically(
                    dir_.File("tol.json"),
                    R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})")
                    .ok());
    fs::create_directories(dir_.File("pkg"));
    fs::create_directories(dir_.File("victim/sub"));
    std::ofstream(dir_.File("victim/thesis.tex")) << "precious";
    std::ofstream(dir_.File("victim/sub/data.csv")) << "precious too";
  }
  NumericsOptions Options(const std::string& extra = "") {
    EXPECT_TRUE(WriteFileAtomically(dir_.File("pkg/attnverify.toml"),
                                    "[numerics]\nshapes = \"../shapes.json\"\ntolerances = "
                                    "\"../tol.json\"\n[candidate]\ncommand = [\"cand\", "
                                    "\"{case_dir}\"]\ntimeout_s = 5\n" +
                                        extra)
                    .ok());
    auto cfg = LoadNumericsConfig(dir_.File("pkg/attnverify.toml"));
    EXPECT_TRUE(cfg.ok()) << cfg.status().message();
    NumericsOptions o;
    o.config = *cfg;
    return o;
  }
  // The one case's folder: numerics names case folders by their shuffled place, and a
  // sweep of one case (nothing to draw: a single shape) has only place 0.
  static std::string CaseFolder() { return "c0000"; }
  // d = a b^T, as the correct candidate writes it (times `sign`).
  static void WriteGemm(const std::string& case_dir, double sign = 1) {
    Tensor d = testing::GemmOfCase(case_dir, [&](int64_t, int64_t, double s) { return sign * s; });
    ASSERT_TRUE(WriteSafetensors(case_dir + "/out/outputs.safetensors", {{"d", d}}, {}).ok());
  }
  bool VictimIntact() {
    return *ReadFileToString(dir_.File("victim/thesis.tex")) == "precious" &&
           *ReadFileToString(dir_.File("victim/sub/data.csv")) == "precious too" &&
           std::distance(fs::directory_iterator(dir_.File("victim")), fs::directory_iterator()) ==
               2;
  }
  testing::TempDir dir_;
};

// Regression (H6): a committed symlink at work/cases/<id> made numerics empty the folder
// it pointed to and write case files into it.
TEST_F(SweepContainmentTest, SymlinkedCaseFolderIsReplacedAndNothingOutsideIsTouched) {
  NumericsOptions o = Options();
  fs::create_directories(dir_.File("pkg/work/cases"));
  fs::create_symlink("../../../victim", dir_.File("pkg/work/cases/" + CaseFolder()));
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    WriteGemm(req.argv[1]);
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kPass) << run->cases[0].reason;
  EXPECT_TRUE(VictimIntact());
  EXPECT_FALSE(fs::is_symlink(dir_.File("pkg/work/cases/" + CaseFolder())));
  ASSERT_EQ(run->warnings.size(), 1u);
  EXPECT_NE(run->warnings[0].find("was a symbolic link (to ../../../victim): replaced by a real "
                                  "folder"),
            std::string::npos)
      << run->warnings[0];
}

TEST_F(SweepContainmentTest, SymlinkedCasesFolderIsReplacedAndALinkedWorkFolderRefused) {
  NumericsOptions o = Options();
  fs::create_directories(dir_.File("pkg/work"));
  fs::create_symlink("../../victim", dir_.File("pkg/work/cases"));
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    WriteGemm(req.argv[1]);
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kPass) << run->cases[0].reason;
  EXPECT_TRUE(VictimIntact());

  fs::remove_all(dir_.File("pkg/work"));
  fs::create_symlink("../victim", dir_.File("pkg/work"));
  auto refused = RunNumericsSweep(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(refused.status().message().find("is a symbolic link (to ../victim)"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(VictimIntact());
}

// Regression (H2), without a sandbox: the candidate rewrote evidence/resources.json and
// the report accepted the forgery. The package snapshot now fails every case.
TEST_F(SweepContainmentTest, ACandidateThatRewritesAnotherStagesEvidenceFailsEveryCase) {
  NumericsOptions o = Options();
  fs::create_directories(dir_.File("pkg/evidence"));
  ASSERT_TRUE(WriteFileAtomically(dir_.File("pkg/evidence/resources.json"),
                                  "{\"status\": "
                                  "\"fail\"}")
                  .ok());
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    WriteGemm(req.argv[1]);
    std::ofstream(dir_.File("pkg/evidence/resources.json"), std::ios::trunc) << "{\"status\": "
                                                                                "\"ok\"}";
    std::ofstream(dir_.File("pkg/evidence/review.json")) << "{}";
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->package_changes, (std::vector<std::string>{"evidence/resources.json changed",
                                                            "evidence/review.json created"}));
  ASSERT_EQ(run->cases.size(), 1u);
  EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kFail);
  EXPECT_EQ(run->cases[0].reason,
            "package files changed while the candidate ran (only its out/ folders may): "
            "evidence/resources.json changed, evidence/review.json created");
  EXPECT_EQ(run->failed(), 1);
}

TEST_F(SweepContainmentTest, AnHonestCandidateChangesNothingThatIsChecked) {
  NumericsOptions o = Options();
  fs::create_directories(dir_.File("pkg/evidence"));
  ASSERT_TRUE(WriteFileAtomically(dir_.File("pkg/evidence/resources.json"), "{}").ok());
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    WriteGemm(req.argv[1], -1);  // wrong, so a heatmap is written into evidence/
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_TRUE(run->package_changes.empty()) << run->package_changes[0];
  EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kFail);
  EXPECT_EQ(run->cases[0].reason.rfind("d: ", 0), 0u) << run->cases[0].reason;
  EXPECT_FALSE(run->cases[0].heatmaps.empty());
}

// Regression (H3): the inputs were checked, then read again for the reference, so a
// process left behind could swap them in between. The reference now reads attnverify's
// own checked copy: a change to the file after the check (in place, as a mapping would
// see it) reaches neither the copy nor the reference.
TEST_F(SweepContainmentTest, TheCheckedCopyOfTheInputsIsWhatTheReferenceReads) {
  auto shapes = LoadShapesConfig(dir_.File("shapes.json"));
  auto all = ExpandCases(*shapes);
  auto built = BuildCase((*all)[0]);
  ASSERT_TRUE(built.ok());
  auto wc = WriteCase(dir_.File("work"), (*all)[0], *built);
  ASSERT_TRUE(wc.ok()) << wc.status().message();
  auto checked = ReadCheckedInputs(*wc);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  const std::string before((*checked)->view());
  // Negate every byte of the file in place, same inode, same length.
  int fd = ::open(wc->inputs_path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  std::string forged = before;
  for (char& c : forged) c = static_cast<char>(~c);
  ASSERT_EQ(::pwrite(fd, forged.data(), forged.size(), 0), static_cast<ssize_t>(forged.size()));
  ::close(fd);
  EXPECT_EQ((*checked)->view(), before);
  auto again = ReadCheckedInputs(*wc);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message().rfind("the candidate changed inputs.safetensors (sha256 " +
                                               wc->inputs_sha256.substr(0, 12) + " -> ",
                                           0),
            0u)
      << again.status().message();
}

TEST_F(SweepContainmentTest, InputsReplacedByALinkOrAFifoFailTheCase) {
  for (int variant = 0; variant < 2; ++variant) {
    NumericsOptions o = Options();
    FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
      WriteGemm(req.argv[1]);
      const std::string in = req.argv[1] + "/inputs.safetensors";
      fs::remove(in);
      if (variant == 0) fs::create_symlink("/dev/zero", in);
      if (variant == 1) {
        EXPECT_EQ(::mkfifo(in.c_str(), 0644), 0);
      }
      return MakeExitedResult(0, "", "");
    });
    o.runner = &runner;
    auto run = RunNumericsSweep(o);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kFail);
    EXPECT_NE(run->cases[0].reason.find(variant == 0 ? "is a symbolic link" : "is a FIFO"),
              std::string::npos)
        << run->cases[0].reason;
  }
}

// Regression (L4): a 10 GB sparse tail on d.npy was hashed in full (20-60 s per case).
TEST_F(SweepContainmentTest, AnOutputLargerThanItsTensorsIsRefusedUnread) {
  NumericsOptions o = Options();
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    const std::string p = req.argv[1] + "/out/d.npy";
    EXPECT_TRUE(WriteNpy(p, Tensor::Zeros(DType::kF32, {3, 5})).ok());
    EXPECT_EQ(::truncate(p.c_str(), off_t{10} << 30), 0);
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->cases[0].reason,
            "unreadable output: out/d.npy is 10737418240 bytes, more than its tensors need (60 "
            "bytes) plus 16 MiB for the header: refused unread");
}

// Regression (L5): a prepare that failed because the disk was full failed every case
// ("rejected") and replaced the earlier evidence; it is now an I/O error (exit 2), and a
// prepare that fails for the candidate's own reasons still fails every case.
TEST_F(SweepContainmentTest, APrepareThatRanOutOfDiskIsAnErrorNotAFail) {
  NumericsOptions o = Options("prepare = [\"make\"]\n");
  FakeProcessRunner full([&](const ProcessRequest& req) -> Result<ProcessResult> {
    return MakeExitedResult(1, "",
                            "/usr/bin/ld: final link failed: No space left on device\n"
                            "collect2: error: ld returned 1 exit status\n");
  });
  o.runner = &full;
  auto run = RunNumericsSweep(o);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kIoError);
  EXPECT_EQ(run.status().message().rfind(
                "candidate prepare failed for lack of disk space (its output says \"No space "
                "left on device\"): make: exit 1",
                0),
            0u)
      << run.status().message();

  FakeProcessRunner broken([&](const ProcessRequest& req) -> Result<ProcessResult> {
    return MakeExitedResult(2, "", "kernel.cu(3): error: expected a \";\"\n");
  });
  o.runner = &broken;
  auto failed = RunNumericsSweep(o);
  ASSERT_TRUE(failed.ok()) << failed.status().message();
  EXPECT_EQ(failed->cases[0].reason, "candidate prepare failed: make: exit 2");
}

}  // namespace
}  // namespace av
