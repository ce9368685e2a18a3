// The sweep's work order keeps the cases that share a key/value cache together, so each
// cache is generated once. MLA decode raises random key lengths below s_q to s_q, and the
// caches are keyed by the lengths: with 64 short sequences every s_q has caches of its
// own. Ordered by the old family (every s_q of one b, s_k, lengths, seed), the cases of
// three s_q took turns, and two kept caches per worker were generated again for every case.
#include <gtest/gtest.h>

#include <set>

#include "core/file.h"
#include "sweep/case_builder.h"
#include "sweep/numerics_config.h"
#include "sweep/numerics_run.h"
#include "sweep/sweep_test_util.h"
#include "testing/test_util.h"

namespace av {
namespace {

TEST(WorkOrderTest, EachCacheIsGeneratedOnceWhenSqRaisesTheLengths) {
  testing::TempDir dir;
  // N(6, 3) lengths of 64 sequences: some fall under 3 and under 6, so s_q = 1, 3, 6 give
  // three different sets of lengths, hence three caches, each for its three h_q.
  ASSERT_TRUE(WriteFileAtomically(dir.File("shapes.json"), R"({"version": 1, "sweeps": [
    {"name": "m", "op": "mla_decode",
     "fixed": {"b": 64, "s_k": 6, "d": 40, "dv": 32, "page_size": 16, "causal": true, "lengths": "random"},
     "grid": {"h_q": [1, 2, 3], "s_q": [1, 3, 6]}}]})")
                  .ok());
  ASSERT_TRUE(
      WriteFileAtomically(
          dir.File("tol.json"),
          R"({"version": 1, "ops": {"mla_decode": {"o": {"*": {"rule": "allclose", "atol": 1e-3, "rtol": 0}}, "lse": {"*": {"rule": "allclose", "atol": 1e-3, "rtol": 0}}}}})")
          .ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("attnverify.toml"),
                          "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"tol.json\"\n"
                          "reference = \"fast\"\ndrawn_cases = 0\n"
                          "[candidate]\ncommand = [\"cand\", \"{case_dir}\"]\n")
          .ok());
  Result<NumericsConfig> cfg = LoadNumericsConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  NumericsOptions o;
  o.config = *cfg;
  o.jobs = 1;  // two caches kept between cases
  // The candidate writes nothing: only the inputs' generation is measured here.
  FakeProcessRunner runner(
      [](const ProcessRequest&) -> Result<ProcessResult> { return MakeExitedResult(0, "", ""); });
  o.runner = &runner;
  Result<NumericsRun> run = RunNumericsSweep(o);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->cases.size(), 9u);
  std::set<std::string> families;
  for (const CaseResult& c : run->cases) families.insert(InputFamily(c.spec));
  ASSERT_EQ(families.size(), 3u);  // the premise: s_q changed the lengths each time
  // One cache (k_cache) per family, handed to the family's other two cases.
  EXPECT_EQ(run->shared_inputs_made, 3);
  EXPECT_EQ(run->shared_inputs_reused, 6);
}

}  // namespace
}  // namespace av
