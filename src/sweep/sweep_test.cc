// Tests of the sweep: RNG golden values, shapes.json / tolerances.json messages word for
// word, case expansion and ids, deterministic inputs, the candidate protocol's failure
// modes through a FakeProcessRunner, and one real end-to-end run of the binary.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "core/sha256.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/numerics_config.h"
#include "sweep/numerics_run.h"
#include "sweep/rng.h"
#include "sweep/shapes_config.h"
#include "sweep/sweep_test_util.h"
#include "sweep/tolerances_config.h"
#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

Status ShapesError(const std::string& text) {
  return ParseShapesConfig(text, "shapes.json").status();
}

TEST(SweepConfigTest, ShapesErrorsNameFilePathAndProblem) {
  EXPECT_EQ(
      ShapesError(
          R"({"version": 1, "sweeps": [{"name": "a", "op": "mla_decode", "grid": {"s_k": [20, -3]}}]})")
          .message(),
      "shapes.json: $.sweeps[0].grid.s_k[1]: \"s_k\" must be an integer >= 0, got -3");
  EXPECT_EQ(
      ShapesError(
          R"({"version": 1, "sweeps": [{"name": "a", "op": "mla_decode", "fixed": {"s_kk": 1}}]})")
          .message(),
      "shapes.json: $.sweeps[0].fixed.s_kk: unknown parameter \"s_kk\" for op mla_decode "
      "(parameters: b, s_q, "
      "s_k, h_q, h_kv, d, dv, page_size, causal, lengths, padded, generator)");
  EXPECT_EQ(
      ShapesError(R"({"version": 1, "sweeps": [{"name": "a", "op": "mla_decode", "seed": [1]}]})")
          .message(),
      "shapes.json: $.sweeps[0]: unknown key \"seed\" (allowed: cases, comment, dtypes, fixed, "
      "generators, grid, "
      "invariance, name, op, seeds, tile)");
  EXPECT_EQ(ShapesError(R"({"version": 1, "sweeps": [{"name": "a", "op": "flash"}]})").message(),
            "shapes.json: $.sweeps[0].op: unknown op \"flash\" (ops: attention, mla_decode, "
            "fp8_gemm, gemm, "
            "sparse_attention)");
  EXPECT_EQ(ShapesError(R"({"version": 2, "sweeps": []})").message(),
            "shapes.json: $.version: must be 1, got 2");
  EXPECT_EQ(
      ShapesError(
          R"({"version": 1, "sweeps": [{"name": "a", "op": "mla_decode", "dtypes": ["f8_e4m3fn"]}]})")
          .message(),
      "shapes.json: $.sweeps[0].dtypes[0]: op mla_decode takes dtypes bf16, f16, f32, got "
      "\"f8_e4m3fn\"");
}

TEST(SweepConfigTest, TolerancesErrors) {
  auto err = [](const std::string& t) {
    return ParseTolerancesConfig(t, "tol.json").status().message();
  };
  EXPECT_EQ(
      err(R"({"version": 1, "ops": {"mla_decode": {"out": {"*": {"rule": "flashmla"}}}}})"),
      "tol.json: $.ops.mla_decode.out: op mla_decode has no output \"out\" (outputs: lse, o)");
  EXPECT_EQ(
      err(R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "cos_diff", "atol": 1}}}}})"),
      "tol.json: $.ops.gemm.d.*.atol: rule cos_diff does not use \"atol\" (it uses: cos_tol, "
      "row_rel_l2)");
  EXPECT_EQ(
      err(R"({"version": 1, "ops": {"gemm": {"d": {"bf16": {"rule": "cos_diff", "cos_tl": 1}}}}})"),
      "tol.json: $.ops.gemm.d.bf16: unknown key \"cos_tl\" (allowed: allow_nan, atol, comment, "
      "cos_tol, "
      "equal_nan, k, row_rel_l2, rtol, rule)");
}

TEST(SweepConfigTest, CandidateCommandNeedsOnePlaceholderKind) {
  auto r = ParseNumericsConfig("[candidate]\ncommand = [\"run\", \"{cases}\", \"{out_dir}\"]\n",
                               "/p/attnverify.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/p/attnverify.toml:2:11: \"command\" uses {cases} together"),
            std::string::npos)
      << r.status().message();
  auto ok = ParseNumericsConfig(
      "[numerics]\nreference = \"fast\"\n[candidate]\ncommand = [\"run\", \"--dir={case_dir}\"]\n",
      "/p/attnverify.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->candidate.mode, CandidateMode::kPerCase);
  EXPECT_EQ(ok->shapes, "/p/config/shapes.json");
  EXPECT_EQ(ExpandCommand(ok->candidate.command, "", "/w/c1", "/w/c1/out")[1], "--dir=/w/c1");
  EXPECT_FALSE(ParseNumericsConfig("[numerics]\njobz = 2\n", "a.toml").ok());
}

TEST(SweepExpandTest, GridTimesCasesTimesDtypesTimesSeedsWithStableIds) {
  auto cfg = ParseShapesConfig(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
      "fixed": {"h_q": 16}, "grid": {"b": [1, 2], "s_k": [20, 140]}, "cases": [{"b": 3, "s_k": 0}],
      "dtypes": ["bf16", "f16"], "seeds": [0, 1]}]})",
                               "s.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  auto cases = ExpandCases(*cfg);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_EQ(cases->size(), 5u * 2 * 2);
  EXPECT_EQ((*cases)[0].id, "m.b=1.s_k=20.bf16.s0");
  EXPECT_EQ((*cases)[3].id, "m.b=1.s_k=20.f16.s1");
  EXPECT_EQ((*cases)[4].id, "m.b=1.s_k=140.bf16.s0");
  EXPECT_EQ(cases->back().id, "m.b=3.s_k=0.f16.s1");
  auto dup = ParseShapesConfig(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
      "grid": {"b": [1]}, "cases": [{"b": 1}]}]})",
                               "s.json");
  EXPECT_EQ(ExpandCases(*dup).status().message(),
            "s.json: $.sweeps[0]: case m.b=1.bf16.s0 is generated twice (an explicit case repeats "
            "a grid point?)");
  auto bad = ParseShapesConfig(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
      "fixed": {"h_q": 3, "h_kv": 2}}]})",
                               "s.json");
  EXPECT_EQ(ExpandCases(*bad).status().message(),
            "s.json: $.sweeps[0]: case m.bf16.s0: h_q (3) must be a multiple of h_kv (2)");
}

CaseSpec MlaCase(const std::string& lengths, bool padded = false) {
  CaseSpec c;
  c.op = "mla_decode";
  c.sweep = "t";
  c.params = {{"b", 4},  {"s_k", 70},       {"h_q", 2},           {"d", 16},
              {"dv", 8}, {"page_size", 16}, {"lengths", lengths}, {"padded", padded}};
  c.id = "t.case";
  return c;
}

TEST(SweepInputsTest, SameSeedSameBytesAndNaNPoisonOutsideSequences) {
  CaseSpec c = MlaCase("half_empty");
  auto a = BuildCase(c), b = BuildCase(c);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(*SerializeSafetensors(a->file_tensors), *SerializeSafetensors(b->file_tensors));
  c.seed = 1;
  auto other = BuildCase(c);
  EXPECT_NE(*SerializeSafetensors(a->file_tensors), *SerializeSafetensors(other->file_tensors));
  // half_empty: batches 0 and 2 have no keys; two spare pages; every unused row is NaN.
  EXPECT_EQ(a->notes.key_lengths, (std::vector<int64_t>{0, 70, 0, 1}));
  const Tensor& cache = a->file_tensors[1].second;
  int64_t nan_rows = 0;
  for (int64_t p = 0; p < cache.dim(0); ++p) {
    for (int64_t r = 0; r < cache.dim(1); ++r) {
      int64_t idx[] = {p, r, 0, 0};
      nan_rows += std::isnan(cache.GetDouble(idx));
    }
  }
  // 70 keys in 5 pages and 1 key in 1 page, 6 + 2 spare pages of 16 rows: 128 - 71 NaN rows.
  EXPECT_EQ(cache.dim(0), 8);
  EXPECT_EQ(nan_rows, 128 - 71);
}

// gemm's wide_range generator: operands scaled by 2^16, beyond float16's largest value
// (65,504) for about a third of them, so a kernel that goes through float16 overflows;
// refused for f16 cases, whose inputs could not hold them.
TEST(SweepInputsTest, WideRangeGemmOperandsLieBeyondFloat16AndF16IsRefused) {
  CaseSpec c;
  c.op = "gemm";
  c.sweep = "g";
  c.id = "g.case";
  c.dtype = DType::kBF16;
  c.params = {{"m", 16}, {"n", 24}, {"k", 64}, {"generator", "wide_range"}};
  auto built = BuildCase(c);
  ASSERT_TRUE(built.ok()) << built.status().message();
  int64_t beyond = 0, total = 0;
  for (const auto& [name, t] : built->file_tensors) {
    for (int64_t r = 0; r < t.dim(0); ++r) {
      for (int64_t k = 0; k < t.dim(1); ++k) {
        int64_t idx[] = {r, k};
        const double v = t.GetDouble(idx);
        ASSERT_TRUE(std::isfinite(v)) << name;
        beyond += std::fabs(v) > 65504.0;
        ++total;
      }
    }
  }
  EXPECT_EQ(total, (16 + 24) * 64);
  // |z| > 65504 / 65536 for a standard normal: 32 % of draws; well away from 0 and 1.
  EXPECT_GT(beyond, total / 5);
  EXPECT_LT(beyond, total / 2);
  c.dtype = DType::kF16;
  auto refused = BuildCase(c);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("wide_range needs bf16 or f32"), std::string::npos)
      << refused.status().message();
}

TEST(SweepInputsTest, PaddedLayoutStoresNaNPaddingAndViewsLogicalShape) {
  auto built = BuildCase(MlaCase("full", true));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->layouts[0].storage_shape, (Shape{4, 1, 2, 16 + kRowPadding}));
  int64_t pad[] = {0, 0, 0, 16};
  EXPECT_TRUE(std::isnan(built->file_tensors[0].second.GetDouble(pad)));
  auto views = ApplyLayouts(built->file_tensors, built->layouts);
  ASSERT_TRUE(views.ok());
  EXPECT_EQ((*views)[0].second.shape(), (Shape{4, 1, 2, 16}));
  EXPECT_FALSE((*views)[0].second.is_contiguous());
}

// A package in a temp folder whose candidate is a FakeProcessRunner handler.
class CandidateProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(WriteFileAtomically(dir_.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 2, "n": 2, "k": 2}], "dtypes": ["f32"]}]})")
                    .ok());
    ASSERT_TRUE(WriteFileAtomically(
                    dir_.File("tol.json"),
                    R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})")
                    .ok());
  }
  NumericsOptions Options(const std::string& command) {
    std::string toml =
        "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"tol.json\"\ndrawn_cases = 0\n"
        "[candidate]\ncommand = " +
        command + "\ntimeout_s = 5\n";
    EXPECT_TRUE(WriteFileAtomically(dir_.File("attnverify.toml"), toml).ok());
    auto cfg = LoadNumericsConfig(dir_.File("attnverify.toml"));
    EXPECT_TRUE(cfg.ok()) << cfg.status().message();
    NumericsOptions o;
    o.config = *cfg;
    return o;
  }
  // Writes d = a b^T (correct) for the case in `case_dir`, transformed by `mutate`.
  static void WriteGemm(const std::string& case_dir, const std::function<void(Tensor&)>& mutate,
                        std::map<std::string, std::string> meta = {}) {
    Tensor d = testing::GemmOfCase(case_dir);
    mutate(d);
    ASSERT_TRUE(WriteSafetensors(case_dir + "/out/outputs.safetensors", {{"d", d}}, meta).ok());
  }
  // One gemm case and two reruns, a candidate run per case; run number `tamper_call`
  // (0: the base case) also calls `tamper` on its case folder after writing its outputs.
  Result<NumericsRun> RunRerunsTampering(int tamper_call,
                                         const std::function<void(const std::string&)>& tamper) {
    EXPECT_TRUE(WriteFileAtomically(dir_.File("shapes.json"), R"({"version": 1, "sweeps": [
        {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}], "dtypes": ["f32"],
         "invariance": {"reruns": 2}}]})")
                    .ok());
    NumericsOptions o = Options(R"(["cand", "{case_dir}"])");
    int call = 0;
    FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
      WriteGemm(req.argv[1], [](Tensor&) {});
      if (call++ == tamper_call) tamper(req.argv[1]);
      return MakeExitedResult(0, "", "");
    });
    o.runner = &runner;
    return RunNumericsSweep(o);
  }
  testing::TempDir dir_;
};

TEST_F(CandidateProtocolTest, PerCaseOutcomesCrashTimeoutWrongShapeNaNAndPass) {
  NumericsOptions o = Options(R"(["cand", "{case_dir}"])");
  int call = 0;
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    std::string case_dir = req.argv[1];
    switch (call++) {
      case 0:
        WriteGemm(case_dir, [](Tensor&) {}, {{"kernel", "tiled"}});
        return MakeExitedResult(0, "", "");
      default: {
        ProcessResult r = MakeExitedResult(0, "", "");
        r.exited = false;
        r.term_signal = 11;
        r.stderr_text = "Segmentation fault in tile 3\n";
        return r;
      }
    }
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->cases.size(), 2u);
  EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kPass) << run->cases[0].reason;
  EXPECT_EQ(run->cases[0].candidate_metadata.at("kernel"), "tiled");
  EXPECT_EQ(run->cases[1].verdict, CaseVerdict::kFail);
  EXPECT_NE(run->cases[1].reason.find("killed by signal 11"), std::string::npos)
      << run->cases[1].reason;
  EXPECT_EQ(run->cases[1].stderr_tail, "Segmentation fault in tile 3\n");
  EXPECT_EQ(runner.requests()[0].timeout_ms, 5000);
}

TEST_F(CandidateProtocolTest, AllCasesRunReadsEachOutputAndNamesEachProblem) {
  NumericsOptions o = Options(R"(["cand", "{cases}"])");
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    // cases.json lists the case folders in their shuffled order: case 1 is the 2 x 2 one.
    auto index = nlohmann::json::parse(*ReadFileToString(req.argv[1]));
    std::string c0 = index["cases"][0]["dir"], c1 = index["cases"][1]["dir"];
    auto spec = nlohmann::json::parse(*ReadFileToString(c0 + "/case.json"));
    if (spec["params"]["m"] == 2) std::swap(c0, c1);
    WriteGemm(c0, [](Tensor& d) {
      for (int64_t i = 0; i < d.numel(); ++i) d.SetDouble(d.Unravel(i), NAN);
    });
    // Case 1: the wrong shape, and the candidate scribbles on its inputs.
    EXPECT_TRUE(WriteSafetensors(c1 + "/out/outputs.safetensors",
                                 {{"d", Tensor::Zeros(DType::kF32, {2, 3})}})
                    .ok());
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->cases[0].reason, "output d is entirely NaN");
  EXPECT_EQ(run->cases[1].reason, "output d has shape [2, 3], expected [2, 2]");
}

TEST_F(CandidateProtocolTest, TimeoutAndModifiedInputsFail) {
  NumericsOptions o = Options(R"(["cand", "{case_dir}"])");
  int call = 0;
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    if (call++ == 0) {
      ProcessResult r;
      r.timed_out = true;
      r.term_signal = 9;
      return r;
    }
    WriteGemm(req.argv[1], [](Tensor&) {});
    EXPECT_TRUE(WriteFileAtomically(req.argv[1] + "/inputs.safetensors", "tampered").ok());
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->cases[0].verdict, CaseVerdict::kFail);
  EXPECT_NE(run->cases[0].reason.find("timed out"), std::string::npos) << run->cases[0].reason;
  EXPECT_EQ(run->cases[1].reason.rfind("the candidate changed inputs.safetensors", 0), 0u)
      << run->cases[1].reason;
}

// Rerun variants get their own copy of the base case's inputs, never a candidate's edit of
// them: a candidate that scribbles on the base's inputs fails the base case, and the
// variants still get (and pass on) the true bytes.
TEST_F(CandidateProtocolTest, VariantsNeverLinkToInputsACandidateChanged) {
  auto run = RunRerunsTampering(0, [](const std::string& case_dir) {
    EXPECT_TRUE(WriteFileAtomically(case_dir + "/inputs.safetensors", "tampered").ok());
  });
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->cases.size(), 3u);
  EXPECT_EQ(run->cases[0].reason.rfind("the candidate changed inputs.safetensors", 0), 0u)
      << run->cases[0].reason;
  for (size_t i = 1; i < 3; ++i) {
    const CaseResult& c = run->cases[i];
    EXPECT_EQ(c.verdict, CaseVerdict::kPass) << c.spec.id << ": " << c.reason;
    EXPECT_EQ(c.inputs_sha256, run->cases[0].inputs_sha256);
    EXPECT_EQ(*Sha256File(c.case_dir + "/inputs.safetensors"), c.inputs_sha256) << c.spec.id;
  }
}

// Each shard of a run draws its inputs and cases from the run's salt: a shard that would
// draw a fresh one of its own could never be merged, so it is refused before any work.
TEST_F(CandidateProtocolTest, AShardWithoutASaltIsRefused) {
  NumericsOptions o = Options(R"(["cand", "{cases}"])");
  FakeProcessRunner runner(
      [](const ProcessRequest&) -> Result<ProcessResult> { return MakeExitedResult(0, "", ""); });
  o.runner = &runner;
  o.shard_index = 1;
  o.shard_count = 2;
  auto refused = RunNumericsSweep(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--shard 1/2 needs --salt HEX"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(runner.requests().empty());
  o.salt = 0x5a17;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->salt, "0000000000005a17");
}

// Issue 35 (variant_copy_base): a rerun could find its base case (case.json named it) and
// copy the base's outputs. Now, by the time a rerun runs, the base case's out/ folder is
// empty: no case folder but the rerun's own holds an output, and the folders are opaque.
TEST_F(CandidateProtocolTest, ARerunFindsNoOtherCasesOutputsToCopy) {
  int found_elsewhere = 0, calls = 0;
  auto run = RunRerunsTampering(-1, [](const std::string&) {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->cases.size(), 3u);
  for (const CaseResult& c : run->cases) EXPECT_EQ(c.verdict, CaseVerdict::kPass) << c.reason;
  // Again, now looking around the work folder before writing.
  NumericsOptions o = Options(R"(["cand", "{case_dir}"])");
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    ++calls;
    const std::filesystem::path mine = req.argv[1];
    EXPECT_EQ(mine.filename().string().rfind("c000", 0), 0u) << mine;
    for (const auto& e : std::filesystem::directory_iterator(mine.parent_path())) {
      if (e.path() == mine || !std::filesystem::is_directory(e.path() / "out")) continue;
      for (const auto& f : std::filesystem::directory_iterator(e.path() / "out")) {
        ++found_elsewhere;
        ADD_FAILURE() << "visible to " << mine << ": " << f.path();
      }
    }
    WriteGemm(req.argv[1], [](Tensor&) {});
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto again = RunNumericsSweep(o);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(found_elsewhere, 0);
}

// The real binary, the real numpy candidate, a small sweep: all pass; the planted
// top-left causal bug fails exactly the causal cases with s_q != s_k.
TEST(NumericsEndToEndTest, NumpyCandidatePassesAndTopLeftCausalMutantFails) {
  std::string py = testing::FindPythonWithNumpy();
  if (py.empty()) GTEST_SKIP() << "no python3 with numpy";
  testing::TempDir dir;
  std::string src = testing::SourceDir();
  for (const char* bug : {"", "causal_top_left"}) {
    std::string toml = "[numerics]\nshapes = \"" + src +
                       "/testdata/sweep/small_shapes.json\"\ntolerances = \"" + src +
                       "/config/tolerances.json\"\n[candidate]\ncommand = [\"" + py + "\", \"" +
                       src + "/examples/candidates/numpy_candidate.py\", \"{cases}\"" +
                       (*bug ? std::string(", \"--bug\", \"") + bug + "\"" : "") + "]\n";
    ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"), toml).ok());
    auto r = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " numerics --jobs 2 --config " +
                               dir.File("attnverify.toml"));
    auto written = ReadFileToString(dir.File("evidence/numerics.json"));
    ASSERT_TRUE(written.ok()) << r.output;
    auto evidence = nlohmann::json::parse(*written);
    if (!*bug) {
      EXPECT_EQ(r.exit_code, 0) << r.output;
      EXPECT_EQ(evidence["summary"]["failed"], 0);
      EXPECT_GT(evidence["summary"]["passed"].get<int>(), 5);
      continue;
    }
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const auto& c : evidence["cases"]) {
      bool shifted = c["params"].value("causal", false) && c["params"]["s_q"] != c["params"]["s_k"];
      EXPECT_EQ(c["verdict"], shifted ? "fail" : "pass") << c["id"];
    }
    EXPECT_NE(ReadFileToString(dir.File("evidence/numerics.junit.xml"))->find("<failure message="),
              std::string::npos);
  }
}

}  // namespace
}  // namespace av
