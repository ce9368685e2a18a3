// The oracle as referee of the fast reference (numerics_run_referee.h): a planted bug
// still fails after the oracle re-judges it, a case near its tolerance is re-judged, a
// broken fast reference ends in an internal error (no verdict), and oracle_sample picks
// the same cases on every run. Small gemm cases through a FakeProcessRunner candidate.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/file.h"
#include "sweep/numerics_config.h"
#include "sweep/numerics_run.h"
#include "sweep/numerics_run_referee.h"
#include "sweep/sweep_test_util.h"
#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

class NumericsRefereeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(WriteFileAtomically(dir_.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 4, "n": 2, "k": 9},
       {"m": 2, "n": 3, "k": 4}, {"m": 5, "n": 1, "k": 3}], "dtypes": ["f32"]}]})")
                    .ok());
    // allclose with atol 1e-3 only: an error of x uses x / 1e-3 of the tolerance.
    ASSERT_TRUE(
        WriteFileAtomically(
            dir_.File("tol.json"),
            R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose", "atol": 1e-3, "rtol": 0}}}}})")
            .ok());
  }

  // reference = "fast"; the candidate writes d = a bᵀ (float64 sums, stored as float32)
  // plus `error` at d[0, 0].
  Result<NumericsRun> Run(double error, int oracle_sample = 0,
                          std::function<void(const CaseSpec&, NamedTensors*)> hook = nullptr) {
    const std::string toml =
        "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"tol.json\"\nreference = \"fast\"\ndrawn_cases = 0\n"
        "oracle_sample = " +
        std::to_string(oracle_sample) + "\n[candidate]\ncommand = [\"cand\", \"{case_dir}\"]\n";
    EXPECT_TRUE(WriteFileAtomically(dir_.File("attnverify.toml"), toml).ok());
    Result<NumericsConfig> cfg = LoadNumericsConfig(dir_.File("attnverify.toml"));
    if (!cfg.ok()) return cfg.status();
    NumericsOptions o;
    o.config = *cfg;
    o.fast_reference_hook = std::move(hook);
    o.spill_fast_from_bytes = spill_from_;
    o.salt = 0x5eed;  // the same inputs in every run the tests compare
    FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
      const std::string dir = req.argv[1];
      Tensor d = testing::GemmOfCase(dir, [&](int64_t i, int64_t j, double s) {
        return s + (i == 0 && j == 0 ? error : 0.0);
      });
      EXPECT_TRUE(WriteSafetensors(dir + "/out/outputs.safetensors", {{"d", d}}, {}).ok());
      return MakeExitedResult(0, "", "");
    });
    o.runner = &runner;
    return RunNumericsSweep(o);
  }

  // Fast results of at least this many bytes wait in a file while the oracle runs; 0
  // spills every refereed case's (NumericsOptions::spill_fast_from_bytes).
  int64_t spill_from_ = NumericsOptions().spill_fast_from_bytes;
  testing::TempDir dir_;
};

// The small cases here stay in memory by default; spilled, their fast results are read
// back from a file for the agreement check, and every verdict, reason and metric is the
// same as when they stayed in memory. The nameless file leaves nothing in the work folder.
TEST_F(NumericsRefereeTest, SpilledFastResultsGiveTheSameJudgement) {
  for (double error : {0.5, 6e-4}) {
    spill_from_ = int64_t{1} << 40;
    auto held = Run(error);
    spill_from_ = 0;
    auto spilled = Run(error);
    ASSERT_TRUE(held.ok() && spilled.ok());
    ASSERT_EQ(held->cases.size(), spilled->cases.size());
    for (size_t i = 0; i < held->cases.size(); ++i) {
      const CaseResult &h = held->cases[i], &s = spilled->cases[i];
      EXPECT_EQ(s.refereed_by, "oracle") << s.spec.id;
      EXPECT_EQ(h.verdict, s.verdict) << s.spec.id;
      EXPECT_EQ(h.reason, s.reason) << s.spec.id;
      EXPECT_EQ(h.referee_reason, s.referee_reason) << s.spec.id;
      ASSERT_EQ(h.outputs.size(), 1u);
      ASSERT_EQ(s.outputs.size(), 1u);
      EXPECT_EQ(h.outputs[0].report.metrics.max_abs, s.outputs[0].report.metrics.max_abs);
    }
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_.path(), ec))
    EXPECT_EQ(e.path().filename().string().find("spill"), std::string::npos) << e.path();
}

TEST_F(NumericsRefereeTest, PlantedBugStillFailsAfterTheOracleRejudgesIt) {
  auto run = Run(/*error=*/0.5);
  ASSERT_TRUE(run.ok()) << run.status().message();
  for (const CaseResult& c : run->cases) {
    EXPECT_EQ(c.verdict, CaseVerdict::kFail) << c.spec.id;
    EXPECT_EQ(c.reference_impl, "fast") << c.reason;
    EXPECT_EQ(c.refereed_by, "oracle");
    EXPECT_EQ(c.referee_reason, "fail");
    ASSERT_EQ(c.outputs.size(), 1u);
    EXPECT_FALSE(c.outputs[0].report.passed);
    EXPECT_NE(c.reason.find("d: "), std::string::npos) << c.reason;
  }
}

TEST_F(NumericsRefereeTest, CaseWithinTheMarginIsRejudgedOthersAreNot) {
  // 6e-4 is 0.6 of the tolerance: over kRefereeMargin (0.5), so the oracle judges it.
  auto near = Run(/*error=*/6e-4);
  ASSERT_TRUE(near.ok()) << near.status().message();
  for (const CaseResult& c : near->cases) {
    EXPECT_EQ(c.verdict, CaseVerdict::kPass) << c.spec.id << ": " << c.reason;
    EXPECT_EQ(c.refereed_by, "oracle") << c.spec.id;
    EXPECT_EQ(c.referee_reason, "margin") << c.spec.id;
  }
  // 3e-4 is 0.3 of it: the fast reference's pass stands.
  auto clear = Run(/*error=*/3e-4);
  ASSERT_TRUE(clear.ok()) << clear.status().message();
  for (const CaseResult& c : clear->cases) {
    EXPECT_EQ(c.verdict, CaseVerdict::kPass) << c.spec.id << ": " << c.reason;
    EXPECT_EQ(c.refereed_by, "") << c.spec.id;
    EXPECT_EQ(c.reference_impl, "fast");
  }
}

TEST_F(NumericsRefereeTest, BrokenFastReferenceIsAnInternalErrorNotAVerdict) {
  // The hook moves the fast reference's d[0, 0] by 1e-2: the exact candidate then fails
  // against it, the oracle referees, and the two references disagree — whether the fast
  // results stayed in memory or waited in a file while the oracle ran.
  for (int64_t spill_from : {NumericsOptions().spill_fast_from_bytes, int64_t{0}}) {
    spill_from_ = spill_from;
    auto run = Run(/*error=*/0, /*oracle_sample=*/0, [](const CaseSpec&, NamedTensors* out) {
      for (auto& [name, t] : *out) {
        if (name != "d") continue;
        Tensor c = t.Contiguous();
        Tensor m = Tensor::Zeros(DType::kF64, c.shape());
        for (int64_t i = 0; i < c.numel(); ++i) {
          int64_t idx[] = {i / c.dim(1), i % c.dim(1)};
          m.SetDouble(idx, c.GetDouble(idx) + (i == 0 ? 1e-2 : 0.0));
        }
        t = m;
      }
    });
    ASSERT_TRUE(run.ok()) << run.status().message();
    ASSERT_FALSE(run->cases.empty());
    for (const CaseResult& c : run->cases) {
      EXPECT_EQ(c.verdict, CaseVerdict::kError) << c.spec.id;
      EXPECT_NE(c.verdict, CaseVerdict::kPass);
      EXPECT_EQ(c.refereed_by, "oracle");
      // The case id, the output, both references' values and the bound are in the message.
      EXPECT_NE(c.reason.find("internal error: case " + c.spec.id +
                              ", output d: the fast "
                              "reference disagrees with "
                              "the oracle"),
                std::string::npos)
          << c.reason;
      EXPECT_NE(c.reason.find("(fast "), std::string::npos) << c.reason;
      EXPECT_NE(c.reason.find(", oracle "), std::string::npos) << c.reason;
      EXPECT_NE(c.reason.find("(1e-05 x max(1, max|oracle|))"), std::string::npos) << c.reason;
    }
    EXPECT_EQ(run->passed(), 0);
  }
}

TEST_F(NumericsRefereeTest, OracleSamplePicksTheSameCasesEveryRun) {
  auto all = Run(/*error=*/0, /*oracle_sample=*/1);
  ASSERT_TRUE(all.ok()) << all.status().message();
  for (const CaseResult& c : all->cases) {
    EXPECT_EQ(c.verdict, CaseVerdict::kPass) << c.reason;
    EXPECT_EQ(c.referee_reason, "sample") << c.spec.id;
  }
  std::set<std::string> first, second, expected;
  for (int rep = 0; rep < 2; ++rep) {
    auto run = Run(/*error=*/0, /*oracle_sample=*/2);
    ASSERT_TRUE(run.ok()) << run.status().message();
    for (const CaseResult& c : run->cases) {
      if (c.refereed_by == "oracle") (rep == 0 ? first : second).insert(c.spec.id);
      if (rep == 0 && OracleSampled(c.spec.id, 2)) expected.insert(c.spec.id);
    }
  }
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, expected);
}

TEST(NumericsRefereeUnitTest, OracleSampledIsStableAndAboutOneInN) {
  int picked = 0;
  for (int i = 0; i < 6400; ++i) {
    const std::string id = "mla.b=" + std::to_string(i) + ".bf16.s0";
    const bool p = OracleSampled(id, 64);
    EXPECT_EQ(p, OracleSampled(id, 64));
    picked += p;
  }
  EXPECT_GT(picked, 50);  // 100 expected
  EXPECT_LT(picked, 150);
  EXPECT_FALSE(OracleSampled("x", 0));
  EXPECT_TRUE(OracleSampled("x", 1));
}

TEST(NumericsRefereeUnitTest, ReferencesAgreeWithinTheBoundOnly) {
  auto one = [](double x) {
    Tensor t = Tensor::Zeros(DType::kF64, {2});
    int64_t i0[] = {0}, i1[] = {1};
    t.SetDouble(i0, 3.0);
    t.SetDouble(i1, x);
    return NamedTensors{{"lse", t}};
  };
  const NamedTensors oracle = one(2.0);
  // attention family: 2.5e-7 x max(1, 3) = 7.5e-7.
  EXPECT_TRUE(CheckReferencesAgree("c", "mla_decode", one(2.0 + 7e-7), oracle, {"lse"}).ok());
  Status bad = CheckReferencesAgree("c", "mla_decode", one(2.0 + 8e-7), oracle, {"lse"});
  EXPECT_EQ(bad.code(), StatusCode::kInternal);
  EXPECT_NE(bad.message().find("case c, output lse"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("(fast 2.0000008, oracle 2)"), std::string::npos) << bad.message();
  // Infinite values must match exactly.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(CheckReferencesAgree("c", "mla_decode", one(inf), one(inf), {"lse"}).ok());
  EXPECT_FALSE(CheckReferencesAgree("c", "mla_decode", one(-inf), one(inf), {"lse"}).ok());
  // The same check from fast results spilled to a file.
  testing::TempDir dir;
  auto near = SpilledTensors::Write(one(2.0 + 7e-7), dir.path());
  auto far = SpilledTensors::Write(one(2.0 + 8e-7), dir.path());
  ASSERT_TRUE(near.ok() && far.ok());
  EXPECT_TRUE(
      CheckReferencesAgree("c", "mla_decode", FastResults{nullptr, &*near}, oracle, {"lse"}).ok());
  bad = CheckReferencesAgree("c", "mla_decode", FastResults{nullptr, &*far}, oracle, {"lse"});
  EXPECT_EQ(bad.code(), StatusCode::kInternal);
  EXPECT_NE(bad.message().find("(fast 2.0000008, oracle 2)"), std::string::npos) << bad.message();
  EXPECT_FALSE(
      CheckReferencesAgree("c", "mla_decode", FastResults{nullptr, &*near}, oracle, {"o"}).ok());
  EXPECT_FALSE(FastReferenceJudges("sparse_attention"));
  EXPECT_TRUE(FastReferenceJudges("mla_decode"));
}

TEST(NumericsRefereeUnitTest, OracleSampleConfigKey) {
  auto ok = ParseNumericsConfig("[numerics]\noracle_sample = 8\n", "a.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->oracle_sample, 8);
  auto def = ParseNumericsConfig("", "a.toml");
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->oracle_sample, 64);
  auto bad = ParseNumericsConfig("[numerics]\noracle_sample = -1\n", "a.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a.toml:2:"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace av
