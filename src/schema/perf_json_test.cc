// evidence/perf.json's model on core's reader: /2 with the provenance block round-trips,
// /1 files (no provenance) are still read, every field is required and errors name the
// file and the JSON path.
#include "schema/perf_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace av {
namespace {

PerfRecord Record() {
  PerfKernel k;
  k.label = "head";
  k.shape = "b16";
  k.tool = "ncu";
  k.format = "ncu-raw";
  k.name = {"k", "k", "k", "k"};
  k.source_file = "ncu_head.csv";
  k.source_sha256 = std::string(64, 'a');
  PerfLaunch l;
  l.id = "0";
  l.figures[perf_fig::kDuration] = {24120, "ns", "24.12", "us"};
  k.launches.push_back(l);
  k.summary = PerfSummary{3, 6, 2, 2, 1, 3, 1};
  PerfRecord r{{k}};
  return r;
}

TEST(PerfJson, ProvenanceRoundTripsUnderSchema2) {
  PerfRecord r = Record();
  r.has_provenance = true;
  r.provenance.run_id = "20261201T093000Z-3f9a1c";
  r.provenance.stage = "profile";
  r.provenance.argv = {"attnverify", "profile", "--import", "ncu_head.csv", "--label", "head"};
  r.provenance.config = "attnverify.toml";
  r.provenance.inputs = {{"attnverify.toml", std::string(64, 'c')},
                         {"ncu_head.csv", std::string(64, 'a')}};
  const std::string text = PerfToJsonText(r);
  EXPECT_EQ(nlohmann::json::parse(text)["schema"], "attnverify.perf/2");
  Result<PerfRecord> back = ParsePerf(text, "evidence/perf.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->has_provenance);
  EXPECT_EQ(back->provenance.stage, "profile");
  EXPECT_EQ(back->provenance.inputs.size(), 2u);
  EXPECT_EQ(PerfToJsonText(*back), text);
}

TEST(PerfJson, Schema1WithoutProvenanceIsStillRead) {
  nlohmann::json j = nlohmann::json::parse(PerfToJsonText(Record()));
  EXPECT_FALSE(j.contains("provenance"));
  j["schema"] = "attnverify.perf/1";
  Result<PerfRecord> r = ParsePerf(j.dump(), "evidence/perf.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->has_provenance);
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels[0].launches[0].Find(perf_fig::kDuration)->value, 24120);
}

TEST(PerfJson, EveryFieldIsRequiredAndErrorsNameThePath) {
  const nlohmann::json good = nlohmann::json::parse(PerfToJsonText(Record()));
  struct Bad {
    std::function<void(nlohmann::json&)> edit;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {[](nlohmann::json& j) { j["kernels"][0].erase("tool"); },
       "evidence/perf.json: $.kernels[0].tool: missing"},
      {[](nlohmann::json& j) {
         j["kernels"][0]["launches"][0]["figures"]["duration_ns"]["value"] = "nan";
       },
       "evidence/perf.json: $.kernels[0].launches[0].figures.duration_ns.value: must be a number"},
      {[](nlohmann::json& j) { j["kernels"][0]["summary"]["instances"] = 0; },
       "evidence/perf.json: $.kernels[0].summary.instances: must be a positive count"},
      {[](nlohmann::json& j) { j["schema"] = "attnverify.perf/3"; },
       "evidence/perf.json: $.schema: is \"attnverify.perf/3\""},
      {[](nlohmann::json& j) {
         j["provenance"] = {{"stage", "profile"}};
       },
       "evidence/perf.json: $.provenance.run_id: missing"},
  };
  for (const Bad& b : cases) {
    nlohmann::json j = good;
    b.edit(j);
    Result<PerfRecord> r = ParsePerf(j.dump(), "evidence/perf.json");
    ASSERT_FALSE(r.ok()) << b.message;
    EXPECT_EQ(r.status().message().rfind(b.message, 0), 0u) << r.status().message();
  }
}

TEST(PerfJson, ANestingBombIsRefusedWithThePosition) {
  std::string bomb = R"({"schema": "attnverify.perf/2", "kernels": )" + std::string(40, '[');
  Result<PerfRecord> r = ParsePerf(bomb, "evidence/perf.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("evidence/perf.json:1:"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("nesting deeper than 16"), std::string::npos);
}

}  // namespace
}  // namespace av
