// The package's own config compared between two revisions: which settings changed and
// whether each loosens what "accepted" means (reliability M7).
#include "review/package_config_review.h"

#include <gtest/gtest.h>

#include <map>

namespace av {
namespace {

using nlohmann::json;

std::map<std::string, ConfigChange> ByPath(const std::vector<ConfigChange>& changes) {
  std::map<std::string, ConfigChange> m;
  for (const ConfigChange& c : changes) m[c.json_path] = c;
  return m;
}

TEST(PackageConfigReviewTest, TolerancesLoosenedTightenedAndChanged) {
  const json base = json::parse(R"({"version": 1, "ops": {
      "mla_decode": {"o": {"*": {"rule": "flashmla", "atol": 8e-4, "rtol": 0.0157, "cos_tol": 5e-6}},
                     "lse": {"*": {"rule": "flashmla", "atol": 1e-6, "rtol": 1e-4, "cos_tol": 5e-6}}},
      "gemm": {"d": {"*": {"rule": "cos_diff", "cos_tol": 1e-5}}}}})");
  const json head = json::parse(R"({"version": 1, "ops": {
      "mla_decode": {"o": {"*": {"rule": "flashmla", "atol": 8e-4, "rtol": 1e300, "cos_tol": 5e-6},
                           "bf16": {"rule": "flashmla", "atol": 1e-4, "rtol": 0.0157, "cos_tol": 5e-6}},
                     "lse": {"*": {"rule": "flashmla", "atol": 1e-6, "rtol": 1e-4, "allow_nan": true}}},
      "gemm": {"d": {"*": {"rule": "allclose", "atol": 1e-5, "rtol": 1e-5}}}}})");
  auto c = ByPath(CompareTolerances(base, head, "config/tolerances.json"));
  EXPECT_EQ(c["$.ops.mla_decode.o.*.rtol"].effect, "loosened");
  EXPECT_EQ(c["$.ops.mla_decode.o.*.rtol"].old_json, "0.0157");
  EXPECT_EQ(c["$.ops.mla_decode.o.*.rtol"].new_json, "1e+300");
  // A dtype entry added: compared with what applied before (the "*" entry).
  EXPECT_EQ(c["$.ops.mla_decode.o.bf16.atol"].effect, "tightened");
  EXPECT_EQ(c.count("$.ops.mla_decode.o.bf16.rtol"), 0u);  // same as "*"
  EXPECT_EQ(c["$.ops.mla_decode.lse.*.allow_nan"].effect, "loosened");
  EXPECT_EQ(c["$.ops.mla_decode.lse.*.cos_tol"].effect, "loosened");  // a limit dropped
  EXPECT_EQ(c["$.ops.gemm.d.*.rule"].effect, "changed");
  EXPECT_EQ(c["$.ops.gemm.d.*.rule"].file, "config/tolerances.json");
  EXPECT_TRUE(CompareTolerances(base, base, "t.json").empty());
}

TEST(PackageConfigReviewTest, ShapesLessCoverageIsLoosened) {
  const json base = json::parse(R"({"sweeps": [
      {"name": "mla_decode", "op": "mla_decode", "grid": {"b": [1, 2], "h_q": [16, 64]},
       "cases": [{"b": 6}], "dtypes": ["bf16"], "invariance": {"num_splits": [4], "reruns": 1}},
      {"name": "fp8_gemm", "op": "fp8_gemm", "grid": {"m": [1, 128]}}]})");
  const json head = json::parse(R"({"sweeps": [
      {"name": "mla_decode", "op": "mla_decode", "grid": {"b": [1, 2, 3], "h_q": [16]},
       "cases": [], "dtypes": ["bf16"], "invariance": {"num_splits": [4], "reruns": 0}},
      {"name": "attention", "op": "attention", "grid": {"s_q": [1]}}]})");
  auto c = ByPath(CompareShapes(base, head, "config/shapes.json"));
  const std::string mla = "$.sweeps[?(@.name==\"mla_decode\")]";
  EXPECT_EQ(c[mla + ".grid.h_q"].effect, "loosened");
  EXPECT_EQ(c[mla + ".grid.b"].effect, "added");
  EXPECT_EQ(c[mla + ".cases"].effect, "loosened");
  EXPECT_EQ(c[mla + ".invariance.reruns"].effect, "loosened");
  EXPECT_EQ(c["$.sweeps[?(@.name==\"fp8_gemm\")]"].effect, "loosened");  // a sweep removed
  EXPECT_EQ(c["$.sweeps[?(@.name==\"attention\")]"].effect, "added");
  EXPECT_EQ(c.count(mla + ".dtypes"), 0u);
}

TEST(PackageConfigReviewTest, PolicyItemsAndWaivers) {
  auto c = ByPath(ComparePolicy("[policy]\nrequired = [1, 2, 3, 4]\n",
                                "[policy]\nrequired = [1, 2, 3]\nwaive = { \"4.perf\" = \"x\" }\n",
                                "attnverify.toml"));
  EXPECT_EQ(c["$.policy.required"].effect, "loosened");
  EXPECT_EQ(c["$.policy.required"].old_json, "[1,2,3,4]");
  EXPECT_EQ(c["$.policy.waive[\"4.perf\"]"].effect, "loosened");
  // No [policy] means every item is required: writing fewer loosens, more tightens.
  c = ByPath(
      ComparePolicy("[slice]\nbase = \"HEAD~1\"\n", "[policy]\nrequired = [1, 2]\n", "a.toml"));
  EXPECT_EQ(c["$.policy.required"].effect, "loosened");
  c = ByPath(ComparePolicy("[policy]\nrequired = [1]\n", "", "a.toml"));
  EXPECT_EQ(c["$.policy.required"].effect, "tightened");
  EXPECT_TRUE(
      ComparePolicy("[policy]\nrequired = [1]\n", "[policy]\nrequired = [1]\n", "a").empty());
  // Switches that demand evidence: turning one off (or deleting it) loosens the policy.
  c = ByPath(ComparePolicy("[policy]\nrequire_agent_review = true\ngpu_evidence = true\n",
                           "[policy]\nrequire_agent_review = false\n", "a.toml"));
  EXPECT_EQ(c["$.policy.require_agent_review"].effect, "loosened");
  EXPECT_EQ(c["$.policy.gpu_evidence"].effect, "loosened");
  c = ByPath(ComparePolicy("[policy]\nrequired = [1]\n",
                           "[policy]\nrequired = [1]\nrequire_agent_review = true\n", "a.toml"));
  EXPECT_EQ(c["$.policy.require_agent_review"].effect, "tightened");
  // A toml that does not parse on one side is a change of the whole file, never a crash.
  auto broken = ComparePolicy("[policy]\nrequired = [1]\n", "[policy\n", "a.toml");
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].json_path, "$");
}

}  // namespace
}  // namespace av
