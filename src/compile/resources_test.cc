#include "compile/resources.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "compile/resources_writer.h"
#include "compile/smem_scan.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string Dir() { return av::testing::SourceDir() + "/testdata"; }

PtxasReport Log(const std::string& name) {
  auto text = ReadFileToString(Dir() + "/ptxas_log/" + name);
  EXPECT_TRUE(text.ok()) << name;
  return ParsePtxasLog(*text, name).value();
}

BuildConfig Config(const std::string& toml) {
  auto c = ParseBuildConfig(toml, "/pkg/attnverify.toml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

const KernelRow* Row(const ResourcesReport& r, std::string_view demangled_prefix,
                     std::string_view arch) {
  for (const KernelRow& row : r.kernels) {
    if (row.demangled.rfind(demangled_prefix, 0) == 0 && row.arch == arch) return &row;
  }
  return nullptr;
}

const GateResult& Gate(const ResourcesReport& r, std::string_view name) {
  for (const GateResult& g : r.gates) {
    if (g.name == name) return g;
  }
  static GateResult none;
  ADD_FAILURE() << "no gate " << name;
  return none;
}

ResourcesReport Report(const BuildConfig& c, const PtxasReport& head, const PtxasReport* base,
                       std::vector<std::string> archs, std::vector<DynamicSmemSite> sites = {}) {
  ResourcesInput in;
  in.config = &c;
  in.head = &head;
  in.base = base;
  in.archs = std::move(archs);
  in.sites = std::move(sites);
  return ComputeResourcesReport(in);
}

// A fixed provenance block, so that golden files do not change with the time and folder.
Provenance GoldenProvenance() {
  Provenance p;
  p.run_id = "golden";
  p.stage = "build";
  p.argv = {"attnverify", "build", "--config", "attnverify.toml"};
  p.cwd = "/pkg";
  p.config = "attnverify.toml";
  p.started = p.finished = "2026-12-01T09:30:00Z";
  p.tool_version = "golden";
  return p;
}

void ExpectGolden(const std::string& name, const std::string& got) {
  std::string path = Dir() + "/ptxas/golden/" + name;
  if (std::getenv("UPDATE_GOLDEN")) {
    ASSERT_TRUE(WriteFileAtomically(path, got).ok()) << path;
    return;
  }
  auto want = ReadFileToString(path);
  ASSERT_TRUE(want.ok()) << path << " missing; run with UPDATE_GOLDEN=1";
  EXPECT_EQ(got, *want) << name;
}

// scale_kernel has no __shared__ and no launch in multi.cu: without its entry its dynamic
// shared memory would be unknown and smem_within_cap missing.
constexpr const char* kMultiConfig = R"(
[build]
block_size = 128
[[build.kernel]]
name = "dyn_reduce"
block_size = 256
dynamic_smem = "256 * 4"
[[build.kernel]]
name = "scale_kernel"
dynamic_smem = 0
)";

TEST(ResourceReport, BudgetAndOccupancyPerKernelAndArch) {
  BuildConfig c = Config(kMultiConfig);
  PtxasReport head = Log("multi_two_archs.log");
  ResourcesReport r = Report(c, head, nullptr, {"sm_80", "sm_90a"});
  ASSERT_EQ(r.kernels.size(), 8u);
  const KernelRow* tile = Row(r, "void tile_copy<128>", "sm_80");
  ASSERT_NE(tile, nullptr);
  const KernelResources& k = *tile->head;
  EXPECT_EQ(k.static_smem_bytes, 16384);
  EXPECT_EQ(k.dynamic_smem_bytes, -1);
  EXPECT_EQ(k.smem_cap_bytes, 166912);
  EXPECT_EQ(k.smem_headroom_bytes, 166912 - 16384);
  ASSERT_TRUE(k.occupancy.has_value());
  EXPECT_EQ(k.occupancy->blocks_per_sm, 9);  // (16384 + 1 KiB reserved) into 164 KiB
  EXPECT_EQ(k.occupancy->warps_per_sm, 36);
  EXPECT_EQ(k.occupancy->limiter, OccupancyLimiter::kSharedMemory);
  const KernelRow* dyn = Row(r, "dyn_reduce(", "sm_90a");
  ASSERT_NE(dyn, nullptr);
  EXPECT_EQ(dyn->head->dynamic_smem_bytes, 1024);
  EXPECT_EQ(dyn->head->total_smem_bytes, 1024);
  EXPECT_EQ(dyn->head->block_size, 256);
  EXPECT_EQ(dyn->head->occupancy->warps_per_sm, 64);
  // Without a base the occupancy comparison has nothing to judge: the build is incomplete.
  EXPECT_EQ(r.status, ResourcesStatus::kIncomplete);
  EXPECT_TRUE(Gate(r, "occupancy_not_lower").missing());
  EXPECT_NE(Gate(r, "occupancy_not_lower").reason.find("needs a base"), std::string::npos);
  EXPECT_TRUE(Gate(r, "smem_within_cap").passed());
  EXPECT_EQ(Gate(r, "smem_within_cap").judged, 8);
  ExpectGolden("multi_two_archs.table.txt", FormatResourcesTable(r));
  ExpectGolden("multi_two_archs.resources.json",
               ResourcesReportToJsonText(r, GoldenProvenance(), "/pkg"));
  // The text built row by row is the tree's dump, byte for byte (and for no rows too).
  EXPECT_EQ(ResourcesReportToJsonText(r, GoldenProvenance(), "/pkg"),
            ResourcesReportToJson(r, GoldenProvenance(), "/pkg").dump(2) + "\n");
  ResourcesReport empty = Report(c, ParsePtxasLog("", "e.log").value(), nullptr, {"sm_80"});
  EXPECT_EQ(ResourcesReportToJsonText(empty, GoldenProvenance(), "/pkg"),
            ResourcesReportToJson(empty, GoldenProvenance(), "/pkg").dump(2) + "\n");
}

TEST(ResourceReport, StaticSmemOverTheCapFailsWithTheExactBytes) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  PtxasReport sm90 = Log("smem_over_sm90a.log");
  ResourcesReport r = Report(c, sm90, nullptr, {"sm_90a"});
  const GateResult& g = Gate(r, "smem_within_cap");
  EXPECT_FALSE(g.passed());
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_NE(g.failures[0].find("void flash_mla_fwd<256>(float const*, float*, int) on sm_90a"),
            std::string::npos);
  EXPECT_NE(g.failures[0].find(
                "262144 bytes of static shared memory, 232448 bytes max: over by 29696 bytes"),
            std::string::npos)
      << g.failures[0];
  EXPECT_TRUE(
      Gate(r, "head_builds").passed());  // the overflow is the smem gate's, not a build error
  EXPECT_EQ(r.status, ResourcesStatus::kRejected);

  PtxasReport sm80 = Log("smem_over_sm80.log");
  ResourcesReport r80 = Report(c, sm80, nullptr, {"sm_80", "sm_90a"});
  const GateResult& g80 = Gate(r80, "smem_within_cap");
  ASSERT_EQ(g80.failures.size(), 1u);
  EXPECT_NE(
      g80.failures[0].find(
          "on sm_80: ptxas: 65536 bytes of static shared memory, 49152 bytes max: over by 16384"),
      std::string::npos)
      << g80.failures[0];
}

TEST(ResourceReport, DynamicSmemFromTheConfigCountsAgainstTheCap) {
  // 64 KiB static (fits sm_90a's 227 KiB) + 170 KiB dynamic = 234 KiB: over by 7168 bytes.
  BuildConfig c =
      Config("[[build.kernel]]\nname = \"flash_mla_fwd<64>\"\ndynamic_smem = \"170 * 1024\"\n");
  PtxasReport head = Log("smem_over_sm90a.log");
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"});
  const GateResult& g = Gate(r, "smem_within_cap");
  ASSERT_EQ(g.failures.size(), 2u);
  EXPECT_NE(g.failures[1].find("65536 bytes static + 174080 bytes dynamic = 239616 bytes, over the "
                               "232448 bytes cap by 7168 bytes"),
            std::string::npos)
      << g.failures[1];
}

TEST(ResourceReport, SpillsWithoutABaseFailTheSpillGate) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  PtxasReport head = Log("spill_sm80.log");
  ResourcesReport r = Report(c, head, nullptr, {"sm_80"});
  const GateResult& g = Gate(r, "no_new_spills");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_NE(g.failures[0].find("580 bytes spill stores, 676 bytes spill loads"), std::string::npos);
  BuildConfig off = Config(
      "[build]\nblock_size = 128\n[build.gates]\nno_new_spills = false\noccupancy_not_lower = "
      "false\n[[build.kernel]]\nname = \"spill_kernel\"\ndynamic_smem = 0\n");
  EXPECT_EQ(Report(off, head, nullptr, {"sm_80"}).status, ResourcesStatus::kOk);
}

constexpr const char* kBaseLog =
    "ptxas info    : Compiling entry function '_Z12spill_kernelPKfPf' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z12spill_kernelPKfPf\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 0 barriers, 368 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function '_Z8old_onlyv' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z8old_onlyv\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers, 352 bytes cmem[0]\n";

TEST(ResourceReport, BaseVersusHeadMatchesByDemangledName) {
  BuildConfig c = Config(
      "[build]\nblock_size = 1024\n[[build.kernel]]\nname = \"spill_kernel\"\ndynamic_smem = 0\n");
  PtxasReport head = Log("spill_sm80.log");
  PtxasReport base = ParsePtxasLog(kBaseLog, "base.log").value();
  ResourcesReport r = Report(c, head, &base, {"sm_80"});
  ASSERT_EQ(r.kernels.size(), 2u);
  const KernelRow* spill = Row(r, "spill_kernel", "sm_80");
  ASSERT_NE(spill, nullptr);
  EXPECT_EQ(spill->change, KernelChange::kChanged);
  EXPECT_EQ(spill->base->registers, 24);
  EXPECT_EQ(spill->head->registers, 32);
  EXPECT_EQ(spill->pairing, KernelPairing::kSame);
  EXPECT_EQ(Row(r, "old_only", "sm_80")->change, KernelChange::kVanished);
  EXPECT_EQ(Row(r, "old_only", "sm_80")->pairing, KernelPairing::kBaseOnly);
  EXPECT_FALSE(Gate(r, "no_new_spills").passed());
  // 1024 threads: 24 registers fit 2 blocks (64 warps), 32 registers fit 2 as well; the
  // gate compares warps per SM, but a kernel of the base only leaves it incomplete.
  const GateResult& occ = Gate(r, "occupancy_not_lower");
  EXPECT_TRUE(occ.missing());
  EXPECT_EQ(occ.judged, 1);
  EXPECT_NE(occ.reason.find("old_only() on sm_80 is in the base only"), std::string::npos)
      << occ.reason;
  ExpectGolden("base_vs_head.table.txt", FormatResourcesTable(r));
}

TEST(ResourceReport, OccupancyLowerThanBaseFails) {
  BuildConfig c = Config("[build]\nblock_size = 256\n");
  std::string head_text = kBaseLog;
  head_text.replace(head_text.find("Used 24"), 7,
                    "Used 72");  // 72 regs: 3 blocks of 256 instead of 8
  PtxasReport head = ParsePtxasLog(head_text, "head.log").value();
  PtxasReport base = ParsePtxasLog(kBaseLog, "base.log").value();
  ResourcesReport r = Report(c, head, &base, {"sm_80"});
  const GateResult& g = Gate(r, "occupancy_not_lower");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_NE(g.failures[0].find("64 -> 24 warps per SM (limited by registers)"), std::string::npos)
      << g.failures[0];
}

TEST(ResourceReport, CompileErrorsFailTheBuildGateWithFileAndLine) {
  BuildConfig c = Config("");
  PtxasReport head = Log("compile_error.log");
  ResourcesInput in;
  in.config = &c;
  in.head = &head;
  in.archs = {"sm_90a"};
  in.head_build_failed = true;
  ResourcesReport r = ComputeResourcesReport(in);
  const GateResult& g = Gate(r, "head_builds");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0], "compile_error.cu:3: identifier \"undefined_value\" is undefined");
}

TEST(ResourceReport, UnknownArchIsAFindingNotAGuess) {
  BuildConfig c = Config("");
  PtxasReport head = ParsePtxasLog(
                         "ptxas info    : Compiling entry function 'k' for 'sm_110'\n"
                         "ptxas info    : Used 8 registers, 70000 bytes smem\n",
                         "x.log")
                         .value();
  ResourcesReport r = Report(c, head, nullptr, {"sm_110"});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "unknown_arch");
  EXPECT_EQ(r.kernels[0].head->smem_cap_bytes, -1);
  // No cap to compare with: the gate cannot pass.
  EXPECT_TRUE(Gate(r, "smem_within_cap").missing());
  EXPECT_NE(Gate(r, "smem_within_cap").reason.find("no limits known for sm_110"),
            std::string::npos);
}

TEST(ResourceScan, CompileTimeConstantInCudaFuncSetAttributeIsFound) {
  auto text = ReadFileToString(Dir() + "/ptxas/kernels/dyn_smem_attr.cu");
  ASSERT_TRUE(text.ok());
  std::vector<DynamicSmemSite> sites = ScanDynamicSmem(*text, "dyn_smem_attr.cu");
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].via, "cudaFuncSetAttribute");
  EXPECT_EQ(sites[0].line, 15);
  EXPECT_EQ(sites[0].kernel_base, "dyn_attn");
  EXPECT_EQ(sites[0].value_expr, "kDynSmemBytes");
  EXPECT_EQ(sites[0].value, 204800);
  EXPECT_EQ(sites[1].via, "launch");
  EXPECT_EQ(sites[1].line, 16);
  EXPECT_EQ(sites[1].value, 204800);

  BuildConfig c = Config("");
  PtxasReport head = Log("dyn_smem_attr_sm90a.log");
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"}, sites);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "dynamic_smem_in_source");
  EXPECT_NE(
      r.findings[0].message.find("sets 204800 bytes of dynamic shared memory (kDynSmemBytes)"),
      std::string::npos)
      << r.findings[0].message;
  EXPECT_EQ(r.kernels[0].head->dynamic_smem_bytes, -1);  // reported, not guessed into the budget

  BuildConfig declared = Config("[[build.kernel]]\nname = \"dyn_attn\"\ndynamic_smem = 204800\n");
  EXPECT_TRUE(Report(declared, head, nullptr, {"sm_90a"}, sites).findings.empty());
  BuildConfig wrong = Config("[[build.kernel]]\nname = \"dyn_attn\"\ndynamic_smem = 1000\n");
  EXPECT_EQ(Report(wrong, head, nullptr, {"sm_90a"}, sites).findings[0].kind,
            "dynamic_smem_mismatch");
}

TEST(ResourceScan, RuntimeValuesCommentsAndTemplates) {
  std::string src = R"(
#define SMEM (48 * 1024)
static constexpr size_t kTile = 128;
// cudaFuncSetAttribute(old_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1);
void go(int n) {
  cudaFuncSetAttribute(&ns::attn<64, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM + kTile);
  cudaFuncSetAttribute(attn2, cudaFuncAttributeMaxDynamicSharedMemorySize, n * 4);
  cudaFuncSetAttribute(attn3, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
  attn<64, true><<<dim3(n), 128, SMEM, stream>>>(x);
}
)";
  std::vector<DynamicSmemSite> sites = ScanDynamicSmem(src, "a.cu");
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_EQ(sites[0].kernel_base, "attn");
  EXPECT_EQ(sites[0].value, 48 * 1024 + 128);
  EXPECT_EQ(sites[1].kernel_base, "attn2");
  EXPECT_FALSE(sites[1].value.has_value());
  EXPECT_EQ(sites[2].via, "launch");
  EXPECT_EQ(sites[2].kernel, "attn<64, true>");
  EXPECT_EQ(sites[2].value, 49152);
}

TEST(ResourceReport, MissingEvidenceReport) {
  ResourcesReport r = MissingResourcesReport("nvcc was not found", {"sm_90a"});
  EXPECT_EQ(r.status, ResourcesStatus::kMissing);
  EXPECT_FALSE(r.Passed());  // nothing was judged
  EXPECT_TRUE(r.gates.empty());
  EXPECT_EQ(FormatResourcesTable(r), "compile evidence missing: nvcc was not found\n");
  nlohmann::json j = ResourcesReportToJson(r, GoldenProvenance(), "/pkg");
  EXPECT_EQ(j["status"], "missing");
  EXPECT_EQ(j["schema"], "attnverify.resources/2");
}

}  // namespace
}  // namespace av
