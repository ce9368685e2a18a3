// Regression tests for the shared-memory cap on kernels whose shared memory is dynamic and
// whose launch lives in a header (newcomer turn 3: all 54 kernels of a flash-attention TU
// were counted as 0 B, "headroom 100 %", and smem_within_cap passed with no note). The
// fixture testdata/ptxas/launch_template/ is written in that layout; its log is real nvcc.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/file.h"
#include "compile/resources.h"
#include "compile/resources_writer.h"
#include "compile/smem_scan.h"
#include "compile/source_files.h"
#include "testing/test_util.h"

namespace av {
namespace {

const std::string kFixture = "/testdata/ptxas/launch_template";

std::string Fixture() { return av::testing::SourceDir() + kFixture; }

BuildConfig Config(const std::string& toml) {
  auto c = ParseBuildConfig(toml, "/pkg/attnverify.toml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

const GateResult& Gate(const ResourcesReport& r, std::string_view name) {
  for (const GateResult& g : r.gates) {
    if (g.name == name) return g;
  }
  static GateResult none;
  ADD_FAILURE() << "no gate " << name;
  return none;
}

// The fixture's source and the headers it includes, scanned as `build` scans them.
struct Scanned {
  std::vector<DynamicSmemSite> sites;
  std::vector<std::string> files;
  SourceWalk walk;
};

Scanned ScanFixture() {
  Scanned s;
  s.walk = WalkSourcesAndIncludes(
      Fixture(), {"csrc/src/attn_fwd_hdim64.cu"}, {"-std=c++17", "-I", "csrc/cutlass/include"},
      [&](const std::string& shown, std::string_view text, bool is_source) {
        s.files.push_back(shown);
        for (DynamicSmemSite& site : ScanDynamicSmem(text, shown)) {
          site.included = !is_source;
          s.sites.push_back(std::move(site));
        }
      });
  return s;
}

ResourcesReport Judge(const BuildConfig& c, const Scanned& s) {
  auto log = ReadFileToString(Fixture() + "/attn_fwd_hdim64.log");
  EXPECT_TRUE(log.ok());
  PtxasReport head = ParsePtxasLog(*log, "attn_fwd_hdim64.log").value();
  ResourcesInput in;
  in.config = &c;
  in.head = &head;
  in.archs = {"sm_80"};
  in.sites = s.sites;
  in.scanned_files = s.walk.files;
  return ComputeResourcesReport(in);
}

TEST(SourceFiles, IncludesAreFollowedThroughQuotesAndIncludePathsInsideTheRoot) {
  Scanned s = ScanFixture();
  std::vector<std::string> want = {"csrc/src/attn_fwd_hdim64.cu",
                                   "csrc/src/attn_fwd_launch_template.h",
                                   "csrc/src/attn_fwd_sm90_launch.h",
                                   "csrc/src/attn_fwd_kernel.h",
                                   "csrc/cutlass/include/cute/tensor.hpp",
                                   "csrc/cutlass/include/cute/layout.hpp"};
  EXPECT_EQ(s.files, want);  // <cstdint> is not in the root: not read
  EXPECT_TRUE(s.walk.warnings.empty());

  // A header that resolves outside the root (through ..) is not read.
  av::testing::TempDir d;
  ASSERT_TRUE(WriteFileAtomically(d.File("outside.h"), "k<<<1, 1, 99>>>();\n").ok());
  std::filesystem::create_directories(d.File("root"));
  ASSERT_TRUE(WriteFileAtomically(d.File("root/a.cu"), "#include \"../outside.h\"\n").ok());
  std::vector<std::string> seen;
  WalkSourcesAndIncludes(d.File("root"), {"a.cu"}, {},
                         [&](const std::string& shown, std::string_view, bool) {
                           seen.push_back(shown);
                         });
  EXPECT_EQ(seen, std::vector<std::string>{"a.cu"});
}

TEST(SmemScan, LaunchesInHeadersThroughAliasesCastsAndLaunchConfigs) {
  Scanned s = ScanFixture();
  auto find = [&](std::string_view base, std::string_view via) -> const DynamicSmemSite* {
    for (const DynamicSmemSite& site : s.sites) {
      if (site.kernel_base == base && site.via == via) return &site;
    }
    return nullptr;
  };
  const DynamicSmemSite* launch = find("attn_fwd_kernel", "launch");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->file, "csrc/src/attn_fwd_launch_template.h");
  EXPECT_EQ(launch->line, 31);
  EXPECT_EQ(launch->alias, "kernel");
  EXPECT_EQ(launch->value_expr, "smem_size");
  EXPECT_FALSE(launch->value.has_value());
  EXPECT_EQ(launch->value_constexpr, "constexpr size_t smem_size = Traits::kSmemSize");
  EXPECT_TRUE(launch->included);
  ASSERT_NE(find("attn_fwd_kernel", "cudaFuncSetAttribute"), nullptr);
  const DynamicSmemSite* combine = find("attn_combine_kernel", "launch");
  ASSERT_NE(combine, nullptr);
  EXPECT_EQ(combine->value, 0);
  const DynamicSmemSite* ex = find("device_kernel", "cudaLaunchKernelEx");
  ASSERT_NE(ex, nullptr) << "the kernel behind a cast alias, its smem from config";
  EXPECT_EQ(ex->value_expr, "smem_size");
  EXPECT_FALSE(ex->value.has_value());
  const DynamicSmemSite* two = find("cute_copy_kernel", "launch");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->value, 0);  // k<<<grid, block>>>

  std::string src = R"(
constexpr int kSmem = 4096;
void go(cudaStream_t s, void** args, CUfunction f) {
  cudaLaunchKernel((void*)reduce_kernel, dim3(1), dim3(128), args, kSmem * 2, s);
  cudaLaunchCooperativeKernel(reinterpret_cast<void*>(&coop_kernel<4>), 1, 128, args, 1024, s);
  cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 2048, s, args, nullptr);
  cudaLaunchConfig_t cfg = {};
  cudaLaunchKernelEx(&cfg, ex_kernel, 1);
}
)";
  std::vector<DynamicSmemSite> sites = ScanDynamicSmem(src, "go.cu");
  ASSERT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites[0].kernel_base, "reduce_kernel");
  EXPECT_EQ(sites[0].value, 8192);
  EXPECT_EQ(sites[1].kernel_base, "coop_kernel");
  EXPECT_EQ(sites[1].value, 1024);
  EXPECT_EQ(sites[2].via, "cuLaunchKernel");
  EXPECT_EQ(sites[2].value, 2048);
  EXPECT_EQ(sites[3].kernel_base, "ex_kernel");
  EXPECT_FALSE(sites[3].value.has_value()) << "dynamicSmemBytes never set: not known";
}

// The headline: every kernel with run-time dynamic shared memory is "not judged", with the
// header's file:line, and the gate is missing; the kernel whose launch passes 0 is judged.
TEST(SmemLaunchRegression, DynamicSmemLaunchedFromAHeaderIsMissingNotPass) {
  Scanned s = ScanFixture();
  ResourcesReport r = Judge(Config("[build]\nblock_size = 128\n"), s);
  const GateResult& smem = Gate(r, "smem_within_cap");
  EXPECT_TRUE(smem.missing()) << smem.reason;
  EXPECT_EQ(smem.judged, 1);  // attn_combine_kernel: 8192 static, its launch passes 0
  EXPECT_NE(smem.reason.find("attn::attn_fwd_kernel<attn::KernelTraits<64, 128, 64>, false>("
                             "attn::AttnParams) on sm_80: dynamic shared memory set at run time "
                             "(csrc/src/attn_fwd_launch_template.h:29, cudaFuncSetAttribute: "
                             "smem_size); declare it: [[build.kernel]] name = \"attn_fwd_kernel\""),
            std::string::npos)
      << smem.reason;
  EXPECT_NE(smem.reason.find("attn::device_kernel<attn::KernelTraits<64, 128, 64> >(attn::"
                             "AttnParams) on sm_80: dynamic shared memory set at run time "
                             "(csrc/src/attn_fwd_sm90_launch.h:21, cudaLaunchKernelEx"),
            std::string::npos)
      << smem.reason;
  EXPECT_EQ(r.status, ResourcesStatus::kIncomplete);
  // The table says the dynamic part is unknown, not "headroom 100 %".
  std::string table = FormatResourcesTable(r);
  EXPECT_NE(table.find("0+?"), std::string::npos) << table;
  EXPECT_EQ(table.find("(100.0%)"), std::string::npos) << table;
  // The note names the header (a header's launches of kernels not compiled are left out).
  bool header_note = false;
  for (const BuildFinding& f : r.findings) {
    header_note |= f.file == "csrc/src/attn_fwd_launch_template.h" && f.kernel == "attn_fwd_kernel";
    EXPECT_NE(f.kernel, "cute_copy_kernel") << f.message;
  }
  EXPECT_TRUE(header_note);

  // Declared, the cap is judged: within it passes, over it fails with the bytes.
  ResourcesReport ok = Judge(Config("[build]\nblock_size = 128\n"
                                    "[[build.kernel]]\nname = \"attn_fwd_kernel\"\n"
                                    "dynamic_smem = \"(128 + 2 * 64) * 64 * 2\"\n"
                                    "[[build.kernel]]\nname = \"device_kernel\"\n"
                                    "dynamic_smem = 32768\n"),
                             s);
  EXPECT_TRUE(Gate(ok, "smem_within_cap").passed()) << Gate(ok, "smem_within_cap").reason;
  EXPECT_EQ(Gate(ok, "smem_within_cap").judged, 4);
  ResourcesReport over = Judge(Config("[build]\nblock_size = 128\n"
                                      "[[build.kernel]]\nname = \"attn_fwd_kernel\"\n"
                                      "dynamic_smem = 200000\n"
                                      "[[build.kernel]]\nname = \"device_kernel\"\n"
                                      "dynamic_smem = 32768\n"),
                               s);
  EXPECT_EQ(Gate(over, "smem_within_cap").status, CheckStatus::kFail);
}

// A kernel with no static shared memory whose launch is nowhere in the scanned files
// (an imported log without sources, a launch in a file the sources do not include): the
// cap has nothing to judge for it.
TEST(SmemLaunchRegression, ZeroStaticKernelWithNoLaunchFoundIsNotJudged) {
  Scanned none;
  ResourcesReport r = Judge(Config("[build]\nblock_size = 128\n"), none);
  const GateResult& smem = Gate(r, "smem_within_cap");
  EXPECT_TRUE(smem.missing());
  EXPECT_NE(smem.reason.find("0 bytes of static shared memory and no launch of attn_fwd_kernel "
                             "found in the sources (none was read)"),
            std::string::npos)
      << smem.reason;
  // The kernel with static shared memory is still judged on it.
  EXPECT_EQ(smem.judged, 1);
}

// An undeclared compile-time constant that already exceeds the cap is a failure, not a
// note: the launch says how much it asks for.
TEST(SmemLaunchRegression, UndeclaredConstantOverTheCapFails) {
  Scanned s;
  s.walk.files = 1;
  s.sites = ScanDynamicSmem(
      "constexpr int kBig = 200 * 1024;\n"
      "void go() { attn::attn_fwd_kernel<T, true><<<1, 128, kBig>>>(p); }\n",
      "go.cu");
  ASSERT_EQ(s.sites.size(), 1u);
  ResourcesReport r = Judge(Config("[build]\nblock_size = 128\n"), s);
  const GateResult& smem = Gate(r, "smem_within_cap");
  EXPECT_EQ(smem.status, CheckStatus::kFail) << smem.reason;
  ASSERT_FALSE(smem.failures.empty());
  EXPECT_NE(smem.failures[0].find("0 bytes static + 204800 bytes dynamic = 204800 bytes, over the "
                                  "166912 bytes cap by 37888 bytes (go.cu:2 passes 204800 bytes"),
            std::string::npos)
      << smem.failures[0];
}

// Through the binary: `build --import` of the fixture's real log, sources as configured.
TEST(SmemLaunchRegression, BuildImportOfAHeaderLaunchedTuExitsOneNotOk) {
  av::testing::TempDir root;
  std::filesystem::create_directories(root.File("attention-verify"));
  ASSERT_TRUE(WriteFileAtomically(root.File("attention-verify/attnverify.toml"),
                                  "[build]\nroot = \"" + Fixture() +
                                      "\"\nsources = [\"csrc/src/attn_fwd_hdim64.cu\"]\n"
                                      "flags = [\"-Icsrc/cutlass/include\"]\nblock_size = 128\n"
                                      "[build.gates]\noccupancy_not_lower = false\n")
                  .ok());
  auto r = av::testing::RunShell("cd '" + root.path() + "' && '" + ATTNVERIFY_BINARY +
                                 "' build --import '" + Fixture() + "/attn_fwd_hdim64.log'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("MISS smem_within_cap"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("csrc/src/attn_fwd_launch_template.h:29"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("verdict: incomplete"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("PASS smem_within_cap"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace av
