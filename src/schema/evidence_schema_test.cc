// Round trips of the resources, review, slice and compare schemas, the schema /1 fixtures
// they must still read, and the malformed-file table every evidence reader is held to.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/file.h"
#include "core/json_dump.h"
#include "schema/compare_json.h"
#include "schema/numerics_json.h"
#include "schema/resources_json.h"
#include "schema/review_json.h"
#include "schema/slice_json.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;

Provenance SomeProvenance(const std::string& stage) {
  Provenance p = StartProvenance(stage, {"attnverify", stage, "--config", "x y/attnverify.toml"});
  p.config = "attnverify.toml";
  p.head_commit = std::string(40, 'f');
  p.inputs = {{"logs/build.log", std::string(64, '1')}};
  p.finished = "2026-12-01T09:31:00Z";
  return p;
}

std::string Fixture(const std::string& name) {
  Result<std::string> text =
      ReadFileToString(testing::SourceDir() + "/testdata/report/package/evidence/" + name);
  EXPECT_TRUE(text.ok());
  return text.ok() ? *text : "";
}

TEST(ResourcesJson, RoundTripKeepsEveryField) {
  ResourcesRecord r;
  r.provenance = SomeProvenance("build");
  r.has_provenance = true;
  r.tool_version = r.provenance.tool_version;
  r.status = ResourcesStatus::kRejected;
  r.missing_reason = "";
  r.nvcc_path = "/usr/local/cuda/bin/nvcc";
  r.nvcc_version = "13.0.88";
  r.archs = {"sm_90a", "sm_80"};
  r.head = {
      "working tree", "", "logs/build.log", {{"nvcc", "-Xptxas", "-v", "a b.cu"}}, {1}, 1, true};
  r.base =
      ResourcesRevision{"HEAD~1", std::string(40, '0'), "logs/build-base.log", {}, {0}, 0, false};
  ResourcesKernelSide side;
  side.mangled = "_Z6kernelILi128EEvv";
  side.registers = 168;
  side.barriers = 2;
  side.static_smem_bytes = 294912;
  side.total_smem_bytes = 294912;
  side.smem_cap_bytes = 232448;
  side.block_size = 128;
  side.smem_headroom_bytes = -62464;
  side.smem_headroom_pct = -26.87;
  side.ptxas_overflow = true;
  side.overflow_bytes = 294912;
  side.overflow_max_bytes = 232448;
  side.occupancy_note = "ptxas refused the kernel";
  ResourcesKernelSide base = side;
  base.ptxas_overflow = false;
  base.occupancy = ResourcesOccupancy{1, 8, 0.125, "shared memory", 148480, 21504, ""};
  base.occupancy_note.clear();
  r.kernels = {{"kernel<128>", "sm_90a", "changed", "same", base, side}};
  r.findings = {{Severity::kWarning, "dynamic_smem_in_source", "cudaFuncSetAttribute ...", "k.cu",
                 "kernel<128>", 41}};
  r.gates = {{"smem_within_cap",
              "static + dynamic <= cap",
              true,
              false,
              false,
              CheckStatus::kFail,
              "",
              {"kernel<128> sm_90a: 294912 > 232448 bytes"}},
             {"occupancy_not_lower",
              "occupancy not lower",
              true,
              false,
              false,
              CheckStatus::kMissing,
              "the base revision did not build",
              {}}};
  r.diagnostics = {{Severity::kError, "smem_overflow", "ptxas", "uses too much shared data",
                    "_Z6kernelILi128EEvv", "sm_90a", "k.cu", 12, 7, 294912, 232448}};
  r.warnings = {"no kernel was compared between base and head"};
  r.unmatched_kernel_entries = {{"deep_gemm::fp8_gemm_kernl", 7, 187408, false}};
  const json first = ResourcesToJson(r);
  // The text built row by row is the tree's, byte for byte.
  EXPECT_EQ(ResourcesToJsonText(r), JsonFileText(first));
  Result<ResourcesRecord> back = ParseResources(JsonFileText(first), "evidence/resources.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ResourcesToJson(*back), first);
  EXPECT_TRUE(back->has_base());
  EXPECT_EQ(back->head.commands[0][3], "a b.cu");
  EXPECT_EQ(back->gates[1].status, CheckStatus::kMissing);
  ASSERT_EQ(back->unmatched_kernel_entries.size(), 1u);
  EXPECT_EQ(back->unmatched_kernel_entries[0].dynamic_smem_bytes, 187408);
}

TEST(ResourcesJson, SchemaOneFixtureIsStillRead) {
  Result<ResourcesRecord> r = ParseResources(Fixture("resources.json"), "evidence/resources.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  // A /1 file with the binding's part of a provenance block (run id, stage, head commit).
  EXPECT_TRUE(r->has_provenance);
  EXPECT_EQ(r->provenance.stage, "build");
  EXPECT_TRUE(r->provenance.argv.empty());
  EXPECT_EQ(r->status, ResourcesStatus::kRejected);
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_TRUE(r->kernels[0].head->ptxas_overflow);
  EXPECT_EQ(r->kernels[0].base->dynamic_smem_bytes, -1);  // null: unknown
  EXPECT_EQ(r->base->ref, "HEAD~1");
  EXPECT_EQ(r->head.log, "logs/build.log");
}

TEST(ReviewJson, RoundTripKeepsEveryField) {
  ReviewReport r;
  r.provenance = SomeProvenance("review");
  r.has_provenance = true;
  r.tool_version = r.provenance.tool_version;
  r.base = "HEAD~1";
  r.base_commit = std::string(40, '0');
  r.head_commit = std::string(40, '1');
  r.diffs = {{"flashmla", "diff/flashmla.diff", std::string(64, '2'), 3}};
  r.disabled_rules = {"style.comment"};
  Finding f;
  f.id = "F001";
  f.rule = "smem.tile_constant_changed";
  f.severity = Severity::kError;
  f.component = "flashmla";
  f.file = "csrc/a b.cu";
  f.line = 41;
  f.end_line = 43;
  f.checklist_item = 3;
  f.related_items = {2, 5};
  f.title = "tile grew";
  f.message = "kBlockN 64 -> 128";
  f.old_text = "constexpr int kBlockN = 64;";
  f.new_text = "constexpr int kBlockN = 128;";
  f.verify = {"attnverify", "build", "--config", "x y/attnverify.toml", "--base", "HEAD~1"};
  r.findings = {f};
  ConfigChange c;
  c.file = "config/tolerances.json";
  c.json_path = "$.ops.mla_decode.o.*.rtol";
  c.old_json = "0.0078125";
  c.new_json = "1e+300";
  c.effect = "loosened";
  c.finding = "F001";
  r.config_changes = {c};
  r.files_reviewed = 4;
  r.files_skipped = 1;
  const json first = ReviewToJson(r);
  Result<ReviewReport> back = ParseReview(JsonFileText(first), "evidence/review.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ReviewToJson(*back), first);
  EXPECT_EQ(back->findings[0].severity, Severity::kError);
  EXPECT_EQ(back->findings[0].VerifyLine(),
            "attnverify build --config 'x y/attnverify.toml' --base HEAD~1");
  EXPECT_EQ(back->config_changes[0].new_json, "1e+300");
}

TEST(ReviewJson, SchemaOneFixtureIsStillRead) {
  Result<ReviewReport> r = ParseReview(Fixture("review.json"), "evidence/review.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->findings.size(), 3u);
  EXPECT_TRUE(r->findings[0].verify.empty());
  EXPECT_EQ(r->findings[0].VerifyLine(),
            "attnverify build --config attention-verify/attnverify.toml --base HEAD~1");
  EXPECT_FALSE(r->findings[2].has_verify());
  EXPECT_EQ(r->findings[1].severity, Severity::kError);
  EXPECT_EQ(r->legacy_command, "attnverify review --config attention-verify/attnverify.toml");
}

TEST(SliceJson, RoundTripKeepsEveryField) {
  SliceRecord s;
  s.provenance = SomeProvenance("slice");
  s.has_provenance = true;
  s.tool_version = s.provenance.tool_version;
  s.mode = "worktree";
  s.repo = "/work/repo dir";
  s.base = "HEAD~1";
  s.base_commit = std::string(40, '0');
  s.head_commit = "worktree";
  s.files_total = 2;
  s.components = {
      {"flashmla",
       {"csrc/**"},
       "diff/flashmla.diff",
       std::string(64, '3'),
       120,
       {{"csrc/b.cu", "csrc/a.cu", "csrc/b.cu", "renamed", false, 3, 1, 2, 90, "", ""}}},
      {"unassigned", {}, "diff/unassigned.diff", std::string(64, '4'), 0, {}}};
  const json first = SliceToJson(s);
  Result<SliceRecord> back = ParseSlice(JsonFileText(first), "evidence/slice.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SliceToJson(*back), first);
  EXPECT_EQ(back->components[0].files[0].similarity, 90);
}

TEST(CompareJson, RoundTripOfAStandaloneFile) {
  CompareRecord c;
  c.provenance = SomeProvenance("compare");
  c.has_provenance = true;
  c.passed = true;
  c.candidate = {"out.safetensors:o", std::string(64, '5'), "bf16", {2, 3}};
  c.reference = {"ref.safetensors:o", std::string(64, '6'), "f32", {2, 3}};
  c.rule = {"allclose", 1e-5, 1e-2, 0, 0, false, true, "torch.testing"};
  c.numel = 6;
  c.metrics.compared = 6;
  c.breakdown_of = "squared error";
  const json first = CompareToJson(c, /*standalone=*/true);
  Result<CompareRecord> back = ParseCompare(JsonFileText(first), "r.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(CompareToJson(*back, true), first);
  EXPECT_EQ(first["schema"], kCompareJsonSchema);
  EXPECT_FALSE(CompareToJson(c, false).contains("provenance"));
}

// The statuses are read into enums: a word attnverify never writes is refused, naming the
// file and the field, never taken for some status; a gate without one (schema /1) has none.
TEST(ResourcesJson, AStatusWordItDoesNotKnowIsRefusedNamingFileAndField) {
  EXPECT_EQ(ParseResources(R"({"status": "accepted"})", "evidence/resources.json")
                .status()
                .message(),
            "evidence/resources.json: $.status: must be \"ok\", \"rejected\", \"incomplete\" "
            "or \"missing\", got \"accepted\"");
  EXPECT_EQ(ParseResources(R"({"status": "ok", "gates": [{"gate": "g", "status": "PASS"}]})",
                           "evidence/resources.json")
                .status()
                .message(),
            "evidence/resources.json: $.gates[0].status: must be \"pass\", \"fail\" or "
            "\"missing\", got \"PASS\"");
  // n/a is a check's word, never a build gate's.
  EXPECT_FALSE(ParseResources(R"({"status": "ok", "gates": [{"gate": "g", "status": "n/a"}]})",
                              "evidence/resources.json")
                   .ok());
  Result<ResourcesRecord> old = ParseResources(
      R"({"status": "incomplete", "gates": [{"gate": "g", "skipped": true}, {"gate": "h",
          "status": "fail"}]})",
      "evidence/resources.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->status, ResourcesStatus::kIncomplete);
  EXPECT_FALSE(old->gates[0].status.has_value());
  EXPECT_EQ(old->gates[1].status, CheckStatus::kFail);
  // Written back as it was read: no status is "" (the bytes of the first format).
  EXPECT_EQ(ResourcesToJson(*old)["gates"][0]["status"], "");
  EXPECT_EQ(ResourcesToJson(*old)["status"], "incomplete");
}

// Every evidence reader refuses the same bad files, naming the file and where.
TEST(EvidenceSchemaRegression, MalformedFilesAreRefusedNamingFileAndPath) {
  using Parser = std::function<Status(std::string_view, const std::string&)>;
  struct Reader {
    std::string path, schema;
    Parser parse;
  };
  const std::vector<Reader> readers = {
      {"evidence/numerics.json", kNumericsJsonSchema,
       [](std::string_view t, const std::string& p) { return ParseNumerics(t, p).status(); }},
      {"evidence/resources.json", kResourcesJsonSchema,
       [](std::string_view t, const std::string& p) { return ParseResources(t, p).status(); }},
      {"evidence/review.json", kReviewJsonSchema,
       [](std::string_view t, const std::string& p) { return ParseReview(t, p).status(); }},
      {"evidence/slice.json", kSliceJsonSchema,
       [](std::string_view t, const std::string& p) { return ParseSlice(t, p).status(); }},
      {"r.json", kCompareJsonSchema,
       [](std::string_view t, const std::string& p) { return ParseCompare(t, p).status(); }},
  };
  struct Bad {
    std::string text;
    std::string error;  // after the file name
  };
  const std::vector<Bad> bad = {
      {"{\"zz\": 1e400}", ":1:8: number out of range: 1e400"},
      {"{\"a\": 1,\n \"a\": 2}", ":2:2: duplicate key \"a\" (first at 1:2)"},
      {std::string(5000, '[') + std::string(5000, ']'), ":1:129: nesting deeper than 128 levels"},
      {"{\"schema\": 7}", ": $.schema: expected"},
      {"[]", ": $: must be a JSON object, got an array"},
      {"{\"schema\": \"SCHEMA\", \"provenance\": []}",
       ": $.provenance: must be an object, got an array"},
  };
  for (const Reader& r : readers) {
    for (const Bad& b : bad) {
      std::string text = b.text;
      if (size_t at = text.find("SCHEMA"); at != std::string::npos) text.replace(at, 6, r.schema);
      Status st = r.parse(text, r.path);
      ASSERT_FALSE(st.ok()) << r.path << " accepted " << text.substr(0, 40);
      EXPECT_EQ(st.message().rfind(r.path + b.error, 0), 0u) << st.message();
    }
  }
  // Wrong types deep inside, per file.
  EXPECT_EQ(
      ParseResources(R"({"status": "ok", "kernels": [{"head": {"registers": "many"}}]})",
                     "evidence/resources.json")
          .status()
          .message(),
      "evidence/resources.json: $.kernels[0].head.registers: must be an integer, got a string");
  EXPECT_EQ(ParseReview(R"({"findings": [{"rule": "r", "severity": "note", "verify": [3]}]})",
                        "evidence/review.json")
                .status()
                .message(),
            "evidence/review.json: $.findings[0].verify[0]: must be a string, got a number");
  EXPECT_EQ(ParseSlice(R"({"schema": "attnverify.slice/2", "base": "b", "base_commit": "c",
                          "head_commit": "h", "components": [{"name": "x"}]})",
                       "evidence/slice.json")
                .status()
                .message(),
            "evidence/slice.json: $.components[0]: each component needs \"name\" and \"path\" "
            "strings");
}

}  // namespace
}  // namespace av
