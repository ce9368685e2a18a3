// Invariance variants: shapes.json "invariance" parsing and its messages, variant
// expansion (order, ids, knobs, what is skipped), input permutations that the reference
// sees through, [candidate] prepare, and the real numpy candidate's planted bugs, each
// caught by the right check; merging two shards gives the unsharded run.
#include "sweep/invariance.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file.h"
#include "reference/ref_ops.h"
#include "sweep/case_builder.h"
#include "sweep/numerics_config.h"
#include "sweep/numerics_run.h"
#include "sweep/rng.h"
#include "sweep/shapes_config.h"
#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;

Result<std::vector<CaseSpec>> Expand(const std::string& text) {
  AV_ASSIGN_OR_RETURN(ShapesConfig cfg, ParseShapesConfig(text, "shapes.json"));
  return ExpandCases(cfg);
}

TEST(InvarianceConfigTest, ErrorsNameFileAndPath) {
  auto err = [](const std::string& inv, const std::string& op = "mla_decode") {
    return ParseShapesConfig(R"({"version": 1, "sweeps": [{"name": "a", "op": ")" + op +
                                 R"(", "invariance": )" + inv + "}]}",
                             "shapes.json")
        .status()
        .message();
  };
  EXPECT_EQ(err(R"({"num_split": [2]})"),
            "shapes.json: $.sweeps[0].invariance: unknown key \"num_split\" (allowed: "
            "batch_permutation, comment, "
            "num_splits, page_table_permutation, reruns, seeds)");
  EXPECT_EQ(err(R"({"num_splits": [2, 0]})"),
            "shapes.json: $.sweeps[0].invariance.num_splits[1]: must be an integer in "
            "1..4096, got 0");
  EXPECT_EQ(err(R"({"reruns": true})"),
            "shapes.json: $.sweeps[0].invariance.reruns: must be an integer in 0..100, got true");
  EXPECT_EQ(
      err(R"({"page_table_permutation": true})", "gemm"),
      "shapes.json: $.sweeps[0].invariance.page_table_permutation: op gemm has no page table");
  EXPECT_EQ(err(R"({"batch_permutation": true})", "sparse_attention"),
            "shapes.json: $.sweeps[0].invariance.batch_permutation: op sparse_attention has no "
            "batch to permute");
}

TEST(InvarianceExpandTest, VariantsFollowTheirBaseWithIdsKnobsAndGroups) {
  auto cases = Expand(R"({"version": 1, "sweeps": [
      {"name": "m", "op": "mla_decode", "fixed": {"d": 16, "dv": 8, "h_q": 2}, "grid": {"b": [1, 3]},
       "invariance": {"num_splits": [1, 4], "reruns": 1, "batch_permutation": true, "page_table_permutation": true,
                      "seeds": 2}},
      {"name": "v", "op": "attention", "fixed": {"b": 2, "layout": "varlen"}, "invariance": {"batch_permutation": true}}]})");
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  std::vector<std::string> ids;
  for (const CaseSpec& c : *cases) ids.push_back(c.id);
  // b=1: no batch permutation; varlen: none either.
  std::vector<std::string> want = {"m.b=1.bf16.s0",
                                   "m.b=1.bf16.s0.num_splits=1",
                                   "m.b=1.bf16.s0.num_splits=4",
                                   "m.b=1.bf16.s0.rerun=1",
                                   "m.b=1.bf16.s0.page_table_permutation",
                                   "m.b=1.bf16.s0.seed=1",
                                   "m.b=3.bf16.s0",
                                   "m.b=3.bf16.s0.num_splits=1",
                                   "m.b=3.bf16.s0.num_splits=4",
                                   "m.b=3.bf16.s0.rerun=1",
                                   "m.b=3.bf16.s0.batch_permutation",
                                   "m.b=3.bf16.s0.page_table_permutation",
                                   "m.b=3.bf16.s0.seed=1",
                                   "v.bf16.s0"};
  EXPECT_EQ(ids, want);
  const CaseSpec& ns = (*cases)[8];
  EXPECT_EQ(ns.knobs, (ParamMap{{"num_splits", 4}}));
  EXPECT_EQ(ns.group, "m.b=3.bf16.s0");
  EXPECT_EQ(ns.group_index, 1);
  EXPECT_EQ(ns.index, 8);
  EXPECT_EQ((*cases)[12].seed, 1u);
  EXPECT_EQ((*cases)[13].group_index, 2);
}

TEST(InvarianceInputsTest, PermutationsAreSeenThroughByTheReference) {
  auto cases = Expand(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
      "fixed": {"b": 4, "s_q": 2, "s_k": 40, "d": 16, "dv": 8, "h_q": 2, "page_size": 16, "causal": true, "lengths": "random"},
      "invariance": {"num_splits": [2], "batch_permutation": true, "page_table_permutation": true}}]})");
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_EQ(cases->size(), 4u);
  auto reference = [](const CaseSpec& c) -> NamedTensors {
    auto built = BuildCase(c);
    EXPECT_TRUE(built.ok()) << built.status().message();
    auto in = ApplyLayouts(built->file_tensors, built->layouts);
    auto out = RunReferenceOp("mla_decode", *in, built->op_params);
    EXPECT_TRUE(out.ok()) << out.status().message();
    auto back = UnpermuteOutputs(c, *out);
    return *back;
  };
  NamedTensors base = reference((*cases)[0]);
  auto base_in = BuildCase((*cases)[0]);
  auto same = BuildCase((*cases)[1]);  // num_splits: the same bytes
  EXPECT_EQ(*SerializeSafetensors(base_in->file_tensors),
            *SerializeSafetensors(same->file_tensors));
  for (size_t v : {2u, 3u}) {
    const CaseSpec& c = (*cases)[v];
    auto built = BuildCase(c);
    EXPECT_NE(*SerializeSafetensors(base_in->file_tensors),
              *SerializeSafetensors(built->file_tensors))
        << c.id;
    auto diffs = DiffOutputs(base, reference(c));
    ASSERT_TRUE(diffs.ok());
    for (const OutputDiff& d : *diffs) {
      EXPECT_TRUE(d.bitwise_equal) << c.id << " " << d.name << " differs by " << d.max_abs_diff;
    }
  }
  std::vector<int64_t> perm = VariantPermutation((*cases)[2], "batch_permutation", 4);
  EXPECT_NE(perm, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(InvarianceBoundTest, RoundingBoundIsFourUlpsOrSixtyFourFloat32Ulps) {
  EXPECT_EQ(RoundingBound(DType::kBF16, 2.0), 4 * 0x1p-7 * 2.0);
  EXPECT_EQ(RoundingBound(DType::kF16, 1.0), 4 * 0x1p-10);
  EXPECT_EQ(RoundingBound(DType::kF32, 8.0), 0x1p-17 * 8.0);
  Tensor zero = Tensor::Zeros(DType::kF32, {3, 2});
  EXPECT_EQ(DescribeNearZeroVariance({{"o", zero}}), "reference o is constant (0) over 6 elements");
}

// A package whose candidate is a FakeProcessRunner handler, for [candidate] prepare.
TEST(CandidatePrepareTest, FailureFailsEveryCaseWithReasonAndStderrTail) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}, {"m": 2, "n": 2, "k": 2}], "dtypes": ["f32"]}]})")
                  .ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("tol.json"),
                          R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})")
          .ok());
  ASSERT_TRUE(WriteFileAtomically(
                  dir.File("attnverify.toml"),
                  "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"tol.json\"\n"
                  "drawn_cases = 0\n[candidate]\n"
                  "command = [\"cand\", \"{cases}\"]\nprepare = [\"make\", \"-C\", \"kernels\"]\n"
                  "cwd = \"src\"\ntimeout_s = 7\n")
                  .ok());
  auto cfg = LoadNumericsConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->candidate.prepare, (std::vector<std::string>{"make", "-C", "kernels"}));
  NumericsOptions o;
  o.config = *cfg;
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    return MakeExitedResult(2, "", "kernel.cu:12: error: identifier \"kBlockN\" is undefined\n");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(runner.requests().size(), 1u) << "the candidate must not run after a failed prepare";
  EXPECT_EQ(runner.requests()[0].argv[0], "make");
  EXPECT_EQ(runner.requests()[0].cwd, dir.path() + "/src");
  EXPECT_EQ(runner.requests()[0].timeout_ms, 7000);
  ASSERT_EQ(run->cases.size(), 2u);
  for (const CaseResult& c : run->cases) {
    EXPECT_EQ(c.verdict, CaseVerdict::kFail);
    EXPECT_EQ(c.reason.rfind("candidate prepare failed: make -C kernels: exit", 0), 0u) << c.reason;
    EXPECT_EQ(c.stderr_tail, "kernel.cu:12: error: identifier \"kBlockN\" is undefined\n");
  }
  EXPECT_FALSE(ParseNumericsConfig(
                   "[candidate]\ncommand = [\"c\", \"{cases}\"]\nprepare = \"make\"\n", "a.toml")
                   .ok());
}

// The prepare command was space-joined into the reason: `make -C my kernels` reads as
// four arguments. It is shown as a shell takes it.
TEST(NumericsRegression, PrepareReasonQuotesAnArgumentWithASpace) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}], "dtypes": ["f32"]}]})")
                  .ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("tol.json"),
                          R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose"}}}}})")
          .ok());
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"),
                                  "[numerics]\nshapes = \"shapes.json\"\ntolerances = "
                                  "\"tol.json\"\n[candidate]\ncommand = [\"cand\", \"{cases}\"]\n"
                                  "prepare = [\"make\", \"-C\", \"my kernels\", \"it's\"]\n")
                  .ok());
  auto cfg = LoadNumericsConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  NumericsOptions o;
  o.config = *cfg;
  FakeProcessRunner runner(
      [&](const ProcessRequest&) -> Result<ProcessResult> { return MakeExitedResult(2, "", ""); });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->cases.size(), 1u);
  EXPECT_EQ(run->cases[0].reason,
            "candidate prepare failed: make -C 'my kernels' 'it'\\''s': exit 2");
  ASSERT_EQ(runner.requests().size(), 1u);
  EXPECT_EQ(runner.requests()[0].argv,
            (std::vector<std::string>{"make", "-C", "my kernels", "it's"}));
}

// A deterministic kernel whose output is all NaN: its cases fail for the NaNs, but its
// reruns and splits are outputs too and agree with the base run (NaN positions compared),
// so determinism and num_splits pass instead of failing for "no outputs".
TEST(InvarianceRegression, AllNanOutputFailsItsCasesButNotTheInvarianceChecks) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 7}], "dtypes": ["f32"],
       "invariance": {"num_splits": [2], "reruns": 1}}]})")
                  .ok());
  ASSERT_TRUE(
      WriteFileAtomically(
          dir.File("tol.json"),
          R"({"version": 1, "ops": {"gemm": {"d": {"*": {"rule": "allclose", "allow_nan": true}}}}})")
          .ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("attnverify.toml"),
                          "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"tol.json\"\n"
                          "[candidate]\ncommand = [\"cand\", \"{case_dir}\"]\n")
          .ok());
  auto cfg = LoadNumericsConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  NumericsOptions o;
  o.config = *cfg;
  FakeProcessRunner runner([&](const ProcessRequest& req) -> Result<ProcessResult> {
    Tensor d = Tensor::Zeros(DType::kF32, {3, 5});
    for (int64_t i = 0; i < d.numel(); ++i) d.SetDouble(d.Unravel(i), NAN);
    EXPECT_TRUE(WriteSafetensors(req.argv[1] + "/out/outputs.safetensors", {{"d", d}}).ok());
    return MakeExitedResult(0, "", "");
  });
  o.runner = &runner;
  auto run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->cases.size(), 3u);
  for (const CaseResult& c : run->cases) {
    EXPECT_EQ(c.verdict, CaseVerdict::kFail) << c.spec.id;
    EXPECT_EQ(c.reason, "output d is entirely NaN") << c.spec.id;
  }
  ASSERT_EQ(run->invariance.size(), 3u);  // num_splits, determinism, reference_variance
  for (const InvarianceCheckResult& r : run->invariance) {
    if (r.check == "reference_variance") continue;
    EXPECT_EQ(r.verdict, InvarianceVerdict::kPass) << r.check << ": " << r.detail;
    EXPECT_NE(r.detail.find("NaN/inf positions compared: the same 15 in every run"),
              std::string::npos)
        << r.check << ": " << r.detail;
  }
}

// The real binary and the numpy candidate on a small sweep with every check.
class InvarianceEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    py_ = testing::FindPythonWithNumpy();
    if (py_.empty()) GTEST_SKIP() << "no python3 with numpy";
    ASSERT_TRUE(WriteFileAtomically(dir_.File("shapes.json"), R"({"version": 1, "sweeps": [
      {"name": "mla", "op": "mla_decode", "fixed": {"b": 4, "s_k": 70, "h_q": 8, "d": 32, "dv": 16, "causal": true},
       "grid": {"s_q": [1, 3]},
       "invariance": {"num_splits": [1, 4], "reruns": 1, "batch_permutation": true, "page_table_permutation": true,
                      "seeds": 2}}]})")
                    .ok());
  }
  json Run(const std::string& bug, const std::string& extra = "", int* exit_code = nullptr) {
    std::string src = testing::SourceDir();
    std::string toml = "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"" + src +
                       "/config/tolerances.json\"\n[candidate]\ncommand = [\"" + py_ + "\", \"" +
                       src + "/examples/candidates/numpy_candidate.py\", \"{cases}\"" +
                       (bug.empty() ? std::string() : ", \"--bug\", \"" + bug + "\"") + "]\n";
    EXPECT_TRUE(WriteFileAtomically(dir_.File("attnverify.toml"), toml).ok());
    auto r = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " numerics --config " +
                               dir_.File("attnverify.toml") + " " + extra);
    if (exit_code) *exit_code = r.exit_code;
    std::string path = dir_.File("evidence/numerics.json");
    if (extra.find("--shard 0/2") != std::string::npos) path += ".shard0of2";
    if (extra.find("--shard 1/2") != std::string::npos) path += ".shard1of2";
    auto text = ReadFileToString(path);
    EXPECT_TRUE(text.ok()) << r.output;
    return text.ok() ? json::parse(*text) : json();
  }
  // verdict of each invariance check, by check name (the worst over groups).
  static std::map<std::string, std::string> Verdicts(const json& doc) {
    std::map<std::string, std::string> v;
    for (const json& r : doc["invariance"]) {
      std::string& w = v[r["check"]];
      std::string got = r["verdict"];
      if (w.empty() || got == "fail" || (got == "flagged" && w == "pass")) w = got;
    }
    return v;
  }
  std::string py_;
  testing::TempDir dir_;
};

TEST_F(InvarianceEndToEndTest, CorrectCandidatePassesEveryCheck) {
  int rc = -1;
  json doc = Run("", "", &rc);
  EXPECT_EQ(rc, 0);
  // s_q=1 and 3, each with 6 variants (b=3: all apply), and the case drawn with s_q=2 (the
  // only shape of the sweep's lattice it does not list).
  EXPECT_EQ(doc["summary"]["cases_run"], 2 * 7 + 1);
  int drawn = 0;
  for (const json& c : doc["cases"]) {
    if (!c.value("drawn", false)) continue;
    ++drawn;
    EXPECT_EQ(c["params"]["s_q"], 2) << c.dump(1);
    EXPECT_EQ(c["verdict"], "pass") << c.dump(1);
  }
  EXPECT_EQ(drawn, 1);
  std::map<std::string, std::string> want = {
      {"num_splits", "pass"},        {"determinism", "pass"},
      {"batch_permutation", "pass"}, {"page_table_permutation", "pass"},
      {"seed_dependence", "pass"},   {"reference_variance", "pass"}};
  EXPECT_EQ(Verdicts(doc), want) << doc["invariance"].dump(1);
  for (const json& c : doc["cases"]) {
    EXPECT_EQ(c["group"], c["variant"] == "base" ? c["id"] : c["group"]);
    if (c["variant"] == "num_splits=4") {
      EXPECT_EQ(c["candidate"]["metadata"]["num_splits"], "4");
    }
    // A rerun's outputs are the base run's bytes: it takes over the base's comparison,
    // metrics and all; the base case compares itself.
    if (c["variant"] == "rerun=1") {
      EXPECT_EQ(c["compare_from"], c["group"]);
      for (const json& base : doc["cases"]) {
        if (base["id"] == c["group"]) {
          EXPECT_EQ(c["outputs"], base["outputs"]);
        }
      }
    }
    if (c["variant"] == "base") {
      EXPECT_TRUE(c["compare_from"].is_null());
    }
  }
}

TEST_F(InvarianceEndToEndTest, PlantedBugsAreCaughtByTheRightCheck) {
  EXPECT_EQ(Verdicts(Run("splits_bf16"))["num_splits"], "fail");
  json nd = Run("nondeterministic");
  EXPECT_EQ(Verdicts(nd)["determinism"], "fail");
  EXPECT_EQ(Verdicts(nd)["num_splits"], "pass")
      << "noise of a few float32 ulps is within the rounding bound";
  // Outputs that differ from the base run's are compared with the reference themselves.
  for (const json& c : nd["cases"]) {
    if (c["variant"] == "rerun=1") {
      EXPECT_TRUE(c["compare_from"].is_null()) << c["id"];
      EXPECT_GT(c["outputs"][0]["compare"]["metrics"]["compared"].get<int>(), 0);
    }
  }
  EXPECT_EQ(Verdicts(Run("seed_blind"))["seed_dependence"], "flagged");
  // The causal mask written for s_q = 1: the hint names the rows (8 wrong rows of 12, the
  // 4 last ones right: b = 4, as 6 of 9 with b = 3 could be chance, 1 in 84).
  json cm = Run("causal_s_q");
  bool named = false;
  for (const json& c : cm["cases"]) {
    // A failing base case's comparison is never taken over.
    if (c["group"] == "mla.s_q=3.bf16.s0") {
      EXPECT_TRUE(c["compare_from"].is_null()) << c["id"];
    }
    if (c["id"] != "mla.s_q=3.bf16.s0") continue;
    ASSERT_TRUE(c.contains("localisation")) << c.dump(1);
    for (const json& h : c["localisation"]["hints"]) {
      named |= h.get<std::string>().find("query rows i < s_q - 1") != std::string::npos;
    }
    ASSERT_FALSE(c["localisation"]["heatmaps"].empty());
    EXPECT_TRUE(
        std::filesystem::exists(dir_.File(c["localisation"]["heatmaps"][0].get<std::string>())));
  }
  EXPECT_TRUE(named) << cm.dump(1);
}

TEST_F(InvarianceEndToEndTest, MergeOfTwoShardsEqualsTheUnshardedRun) {
  // One salt for the whole run and both shards: the same inputs and drawn cases.
  json whole = Run("nondeterministic", "--salt 5a17");
  json s0 = Run("nondeterministic", "--shard 0/2 --salt 5a17"),
       s1 = Run("nondeterministic", "--shard 1/2 --salt 5a17");
  EXPECT_GT(s0["cases"].size(), 0u);
  EXPECT_GT(s1["cases"].size(), 0u);
  auto r = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " merge " +
                             dir_.File("evidence/numerics.json.shard1of2") + " " +
                             dir_.File("evidence/numerics.json.shard0of2") + " --out " +
                             dir_.File("merged.json") + " --junit " + dir_.File("merged.xml"));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the nondeterministic candidate fails
  json merged = json::parse(*ReadFileToString(dir_.File("merged.json")));
  auto cases = [](const json& d) {
    std::vector<std::string> v;
    for (const json& c : d["cases"])
      v.push_back(c["id"].get<std::string>() + " " + c["verdict"].get<std::string>());
    return v;
  };
  auto checks = [](const json& d) {
    std::vector<std::string> v;
    for (const json& c : d["invariance"])
      v.push_back(c["check"].get<std::string>() + " " + c["group"].get<std::string>() + " " +
                  c["verdict"].get<std::string>());
    return v;
  };
  EXPECT_EQ(cases(merged), cases(whole));
  EXPECT_EQ(checks(merged), checks(whole));
  for (const char* k : {"cases_total", "cases_run", "passed", "failed", "invariance"}) {
    EXPECT_EQ(merged["summary"][k], whole["summary"][k]) << k;
  }
  // Time is summed over the shards' cases; each part is within the total.
  const json& time = merged["summary"]["time_ms"];
  EXPECT_NEAR(time["total"].get<double>(),
              s0["summary"]["time_ms"]["total"].get<double>() +
                  s1["summary"]["time_ms"]["total"].get<double>(),
              1e-6);
  double parts = time["other"].get<double>();
  for (const char* k : {"generate", "candidate", "reference", "compare", "check"}) {
    EXPECT_GT(time[k].get<double>(), 0) << k;
    parts += time[k].get<double>();
  }
  EXPECT_NEAR(parts, time["total"].get<double>(), 1e-6 * time["total"].get<double>());
  EXPECT_GT(time["overhead_fraction"].get<double>(), 0);
  EXPECT_LT(time["overhead_fraction"].get<double>(), 1);
  EXPECT_EQ(merged["verdict"], whole["verdict"]);
  EXPECT_NE(ReadFileToString(dir_.File("merged.xml"))->find("<failure"), std::string::npos);
  // A missing shard is an error (exit 2) unless allowed.
  auto partial = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " merge " +
                                   dir_.File("evidence/numerics.json.shard0of2") + " --out " +
                                   dir_.File("p.json"));
  EXPECT_EQ(partial.exit_code, 2) << partial.output;
  EXPECT_NE(partial.output.find("shard(s) 1/2 missing"), std::string::npos) << partial.output;
  // The same shard twice overlaps.
  auto twice = testing::RunShell(
      std::string(ATTNVERIFY_BINARY) + " merge " + dir_.File("evidence/numerics.json.shard0of2") +
      " " + dir_.File("evidence/numerics.json.shard0of2") + " --out " + dir_.File("p.json"));
  EXPECT_EQ(twice.exit_code, 2) << twice.output;
  // A shard whose inputs came from another generator has other inputs: no merge.
  json other = json::parse(*ReadFileToString(dir_.File("evidence/numerics.json.shard1of2")));
  EXPECT_EQ(other["config"]["input_generator"], kNormalGenerator);
  other["config"]["input_generator"] = "av-normal/1";
  ASSERT_TRUE(WriteFileAtomically(dir_.File("old.json"), other.dump()).ok());
  auto mixed = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " merge " +
                                 dir_.File("evidence/numerics.json.shard0of2") + " " +
                                 dir_.File("old.json") + " --out " + dir_.File("p.json"));
  EXPECT_EQ(mixed.exit_code, 2) << mixed.output;
  EXPECT_NE(mixed.output.find("inputs came from generator \"av-normal/1\""), std::string::npos)
      << mixed.output;
  // Each shard records this machine's fast kernels; a shard from a machine with others
  // merges (exit 1: the verdict, for this run's planted failures), and the merged record
  // names both.
  const std::string here = other["config"]["fast_kernels"];
  EXPECT_EQ(here, DescribeFastKernels(RefImpl{ImplKind::kFast}));
  other["config"]["input_generator"] = kNormalGenerator;
  other["config"]["fast_kernels"] = "attention float64: portable-fma; fp8_gemm: portable-fma";
  ASSERT_TRUE(WriteFileAtomically(dir_.File("other.json"), other.dump()).ok());
  auto machines = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " merge " +
                                    dir_.File("evidence/numerics.json.shard0of2") + " " +
                                    dir_.File("other.json") + " --out " + dir_.File("m.json"));
  ASSERT_EQ(machines.exit_code, 1) << machines.output;  // merged, with the run's failures
  json m = json::parse(*ReadFileToString(dir_.File("m.json")));
  EXPECT_EQ(m["config"]["fast_kernels"],
            here + " | attention float64: portable-fma; fp8_gemm: portable-fma");
  // A shard written before the field existed adds no description (and no separator).
  other["config"].erase("fast_kernels");
  ASSERT_TRUE(WriteFileAtomically(dir_.File("older.json"), other.dump()).ok());
  auto older = testing::RunShell(std::string(ATTNVERIFY_BINARY) + " merge " +
                                 dir_.File("older.json") + " " +
                                 dir_.File("evidence/numerics.json.shard0of2") + " --out " +
                                 dir_.File("o.json"));
  ASSERT_EQ(older.exit_code, 1) << older.output;
  EXPECT_EQ(json::parse(*ReadFileToString(dir_.File("o.json")))["config"]["fast_kernels"], here);
}

}  // namespace
}  // namespace av
