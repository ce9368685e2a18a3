#include "schema/numerics_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/json_dump.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;

CompareRecord FullCompare() {
  CompareRecord c;
  c.passed = false;
  c.failures = {"max |cand - ref| 2.48 > bound 0.0079"};
  c.candidate = {"candidate:o", "", "bf16", {2, 5, 4, 32}};
  c.reference = {"reference:o", "ab12", "f32", {2, 5, 4, 32}};
  c.lowprec_reference = CompareTensorInput{"low:o", "cd34", "f32", {2, 5, 4, 32}};
  c.rule = {"lowprec_multiple", 1e-5, 0.01, 1e-7, 2, true, false, "flash-attention"};
  c.numel = 1280;
  c.metrics = {1279, 2.48, std::numeric_limits<double>::infinity(), 0.01,
               0.02, 1e-4, std::numeric_limits<double>::quiet_NaN()};
  c.rule_cos_diff = 3e-6;
  c.mismatches = {true, 12, 12.0 / 1280, 1};
  c.lowprec = {0.004, 0.0079};
  c.nonfinite.candidate = {1, 0, 0};
  c.nonfinite.position_mismatches = 1;
  c.nonfinite.first_mismatches = {{{0, 1, 1, 21}, 181, std::nan(""), -0.33, INFINITY, INFINITY}};
  c.nonfinite.excluded = 0;
  c.worst_abs = {{{0, 1, 1, 21}, 181, -2.8125, -0.33, 2.4825, 7.5}};
  c.worst_rel = {{{1, 0, 0, 0}, 640, 1e-3, 1e-9, 1e-3, 1e6}};
  c.breakdown_of = "mismatches";
  c.breakdown = {{1, 5, 1, 2, {{1, 2, 10, 0.83}, {4, 5, 2, 0.17}}}};
  return c;
}

NumericsRecord FullRecord() {
  NumericsRecord r;
  r.provenance =
      StartProvenance("numerics", {"attnverify", "numerics", "--config", "a b/attnverify.toml"});
  r.provenance.config = "attnverify.toml";
  r.provenance.inputs = {{"config/shapes.json", std::string(64, 'a')}};
  r.provenance.finished = "2026-12-01T09:31:00Z";
  r.has_provenance = true;
  r.tool_version = r.provenance.tool_version;
  r.config = {"attnverify.toml",
              "config/shapes.json",
              std::string(64, 'a'),
              "config/tolerances.json",
              std::string(64, 'b'),
              {"python3", "cand.py", "{cases}"},
              "",
              "av-normal/3"};
  r.shard = {0, 1, true, {{"evidence/numerics.json.shard0of2", std::string(64, 'c'), 0, 2}}, {1}};
  r.filter = "mla";
  r.summary = {7, 2, 1, 1, 1234.5, 2000.25, {}, {{"num_splits", {{"pass", 1}}}}};
  r.verdict = CaseVerdict::kFail;
  r.prepare = PrepareRecord{{"make", "-C", "kernels"}, "", "exit 0", 812.0};
  NumericsCase c;
  c.id = "attn.causal.s_q=5.s_k=33.bf16.s0";
  c.sweep = "attn";
  c.op = "attention";
  c.dtype = "bf16";
  c.params = json{{"s_q", 5}, {"s_k", 33}, {"causal", true}};
  c.op_params = json{{"causal", "true"}};
  c.knobs = json{{"num_splits", 4}};
  c.seed = 3;
  c.index = 5;
  c.variant = "num_splits=4";
  c.group = "attn.causal.s_q=5.s_k=33.bf16.s0.base";
  c.verdict = CaseVerdict::kFail;
  c.reason = "o: max |cand - ref| 2.48 > bound 0.0079";
  NumericsOutput o;
  o.name = "o";
  o.tolerance = "$.ops.attention.o.bf16";
  o.passed = false;
  o.compare = FullCompare();
  c.outputs = {o};
  c.reference_impl = "oracle+lowprec_bf16";
  c.inputs_sha256 = std::string(64, 'd');
  c.outputs_sha256 = std::string(64, 'e');
  c.candidate = {"exit 0", {{"kernel_path", "splitk"}}, "warning: x\n"};
  c.durations_ms = {1, 2, 3, 4, 5, 16};
  c.case_dir = "work/cases/attn.causal.s_q=5.s_k=33.bf16.s0";
  c.compare_from = "attn.base";
  c.hints = {"o: all errors in query rows i < s_q - 1"};
  c.localised_worst = {{"o",
                        {{"batch", 0}, {"row", 1}, {"head", 1}, {"channel", 21}},
                        -2.8125,
                        -0.33,
                        2.4825,
                        314.0}};
  c.heatmaps = {"evidence/heatmaps/attn.o.svg"};
  r.cases = {c, c};
  r.cases[1].id += ".b";
  r.cases[1].verdict = CaseVerdict::kPass;
  r.summary.time_ms = SumCaseTimes(r.cases);
  r.invariance = {{"num_splits",
                   c.group,
                   {c.id},
                   InvarianceVerdict::kFlagged,
                   0.0039,
                   "4 eps(bf16) max|o|",
                   "within rounding"}};
  return r;
}

TEST(NumericsJson, RoundTripKeepsEveryField) {
  const NumericsRecord r = FullRecord();
  const json first = NumericsToJson(r);
  Result<NumericsRecord> back = ParseNumerics(JsonFileText(first), "evidence/numerics.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(NumericsToJson(*back), first);
  EXPECT_EQ(back->schema, kNumericsJsonSchema);
  EXPECT_TRUE(back->has_provenance);
  EXPECT_EQ(back->provenance.argv[3], "a b/attnverify.toml");
  const NumericsCase& c = back->cases[0];
  EXPECT_EQ(c.verdict, CaseVerdict::kFail);
  EXPECT_EQ((*c.params)["s_k"], 33);
  ASSERT_TRUE(c.outputs[0].compared());
  EXPECT_EQ(c.outputs[0].rule(), "lowprec_multiple");
  EXPECT_TRUE(std::isnan(c.outputs[0].compare->metrics.nmse));
  EXPECT_EQ(c.outputs[0].worst()->coords[3], (std::pair<std::string, int64_t>{"i3", 21}));
  EXPECT_EQ(c.localised_worst[0].coords[0].first, "batch");
  EXPECT_EQ(back->invariance[0].verdict, InvarianceVerdict::kFlagged);
  EXPECT_EQ(back->config.candidate_argv, r.config.candidate_argv);
  ASSERT_TRUE(back->prepare);
  EXPECT_EQ(back->prepare->argv, r.prepare->argv);
}

// A schema /1 file (the report's fixture, as old packages hold) is still read.
TEST(NumericsJson, SchemaOneFilesAreStillRead) {
  Result<std::string> text =
      ReadFileToString(testing::SourceDir() + "/testdata/report/package/evidence/numerics.json");
  ASSERT_TRUE(text.ok());
  Result<NumericsRecord> r = ParseNumerics(*text, "evidence/numerics.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->schema, kNumericsJsonSchemaV1);
  // The binding's part of a provenance block; the command is still the /1 line.
  EXPECT_TRUE(r->has_provenance);
  EXPECT_EQ(r->provenance.run_id, "20261201T093000Z-3f9a1c");
  EXPECT_EQ(r->legacy_command, "attnverify numerics --config attention-verify/attnverify.toml");
  EXPECT_EQ(r->config.legacy_candidate_command, "python3 cand.py {cases}");
  ASSERT_EQ(r->cases.size(), 7u);
  EXPECT_EQ(r->cases[0].outputs[0].max_abs(), 2.48);
  EXPECT_EQ(r->cases[0].candidate.metadata.at("kernel_path"), "splitk");
  EXPECT_EQ(r->cases[0].localised_worst[0].coords.front().first, "batch");
  EXPECT_EQ(r->cases[4].group_id(), "mla.s_k=70.bf16.s0");
  EXPECT_EQ(r->cases[3].group_id(), r->cases[3].id);  // no "group": a base case
}

TEST(NumericsJson, BadValuesNameTheJsonPath) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {R"({"cases": [{"id": "a", "verdict": "maybe"}]})",
       "n.json: $.cases[0].verdict: must be \"pass\", \"fail\" or \"error\", got \"maybe\""},
      {R"({"cases": [{"id": "a", "verdict": "pass", "outputs": [{"compare": {"worst_abs": [{"index": ["x"]}]}}]}]})",
       "n.json: $.cases[0].outputs[0].compare.worst_abs[0].index[0]: must be an integer"},
      {R"({"cases": [{"verdict": "pass"}]})", "n.json: $.cases[0].id: missing"},
      {R"({"cases": [], "invariance": [{"check": "x", "verdict": "meh"}]})",
       "n.json: $.invariance[0].verdict: must be \"pass\", \"fail\" or \"flagged\", got \"meh\""},
      {R"({"cases": [], "shard": {"index": 2, "count": 2}})",
       "n.json: $.shard: index must be in 0..count-1 and count >= 1"},
      {R"({"cases": [], "provenance": {"run_id": "r", "argv": [1]}})",
       "n.json: $.provenance.argv[0]: must be a string, got a number"},
      {R"({"schema": "attnverify.numerics/3", "cases": []})",
       "n.json: $.schema: expected \"attnverify.numerics/2\" or \"attnverify.numerics/1\", got "
       "\"attnverify.numerics/3\""},
      {R"({"verdict": "pass"})", "n.json: $.cases: missing (not a numerics evidence file?)"},
      {R"({"cases": [], "run_identity": {"sweep_id": 57}})",
       "n.json: $.run_identity.sweep_id: must be a string"},
  };
  for (const Case& c : cases) {
    Result<NumericsRecord> r = ParseNumerics(c.text, "n.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message(), c.error);
  }
}

// A shard's run identity (what `merge` compares) survives the write and the read; a file
// without one reads as empty and is written without the key.
TEST(NumericsJsonTest, RunIdentityRoundTrips) {
  NumericsRecord r;
  r.provenance = StartProvenance("numerics", {"attnverify", "numerics"});
  r.run_identity = {{"sweep_id", "57"}, {"cases_sha256", std::string(64, 'c')}};
  Result<NumericsRecord> back = ParseNumerics(NumericsToJson(r).dump(), "n.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->run_identity, r.run_identity);
  EXPECT_FALSE(NumericsToJson(NumericsRecord{}).contains("run_identity"));
}

}  // namespace
}  // namespace av
