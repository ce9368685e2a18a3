// Regression tests of the compile evidence, named after what broke: H7 and L6 of
// reliability.md and the build-side defects 1-6 of realworld.md (the real kernels'
// shapes, written here as ptxas blocks in nvcc 13's format; builds with real nvcc are in
// build_nvcc_test.cc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/file.h"
#include "compile/demangle.h"
#include "compile/resources.h"
#include "compile/resources_writer.h"
#include "compile/smem_scan.h"
#include "testing/test_util.h"

namespace av {
namespace {

PtxasReport Log(const std::string& name) {
  auto text = ReadFileToString(av::testing::SourceDir() + "/testdata/ptxas_log/" + name);
  EXPECT_TRUE(text.ok()) << name;
  return ParsePtxasLog(*text, name).value();
}

BuildConfig Config(const std::string& toml) {
  auto c = ParseBuildConfig(toml, "/pkg/attnverify.toml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

const KernelRow* Row(const ResourcesReport& r, std::string_view prefix, std::string_view arch) {
  for (const KernelRow& row : r.kernels) {
    if (row.demangled.rfind(prefix, 0) == 0 && row.arch == arch) return &row;
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

// One ptxas block as nvcc 13 prints it.
std::string Block(const std::string& mangled, const std::string& arch, int regs, int barriers,
                  int64_t smem, int64_t spills = 0) {
  return "ptxas info    : Compiling entry function '" + mangled + "' for '" + arch +
         "'\nptxas info    : Function properties for " + mangled + "\n    0 bytes stack frame, " +
         std::to_string(spills) + " bytes spill stores, " + std::to_string(spills) +
         " bytes spill loads\nptxas info    : Used " + std::to_string(regs) + " registers, used " +
         std::to_string(barriers) + " barriers" +
         (smem > 0 ? ", " + std::to_string(smem) + " bytes smem" : "") +
         "\nptxas info    : Compile time = 1.0 ms\n";
}

// deep_gemm::fp8_gemm_kernel<128u, 112u, 5u>(float*) and, after the refactor, with an
// added BLOCK_N_PADDING template parameter <128u, 112u, 16u, 5u>.
const char* kGemmBase = "_ZN9deep_gemm15fp8_gemm_kernelILj128ELj112ELj5EEEvPf";
const char* kGemmHead = "_ZN9deep_gemm15fp8_gemm_kernelILj128ELj112ELj16ELj5EEEvPf";

std::string Names(const ResourcesReport& r) {
  std::string out;
  for (const std::string& w : r.warnings) out += w + "\n";
  return out;
}

// H7: an empty log, CMake output only, or a log that is not nvcc's, for head and base:
// no gate may pass on it, and the status is not "ok".
TEST(ResourcesRegression, H7EmptyOrNonPtxasLogsJudgeNothing) {
  BuildConfig c = Config(
      "[build]\nblock_size = 128\n[[build.kernel]]\nname = \"splitk_mla_decode_kernel\"\n"
      "dynamic_smem = 0\n");
  for (const char* text : {"", "hello\nnot a ptxas log\n",
                           "-- Configuring done\n-- Generating done\n[1/2] Building CUDA object "
                           "k.cu.o\n[2/2] Linking\n"}) {
    PtxasReport head = ParsePtxasLog(text, "head.log").value();
    PtxasReport base = ParsePtxasLog(text, "base.log").value();
    ResourcesReport r = Report(c, head, &base, {"sm_90a"});
    SCOPED_TRACE(text);
    EXPECT_EQ(r.status, ResourcesStatus::kIncomplete);
    for (const GateResult& g : r.gates) {
      EXPECT_TRUE(g.missing()) << g.name << ": " << GateStatusName(g.status);
      EXPECT_EQ(g.judged, 0) << g.name;
    }
    EXPECT_NE(Gate(r, "head_builds").reason.find("no kernel in the head log"), std::string::npos);
    ASSERT_EQ(r.unmatched_kernel_entries.size(), 1u);
    EXPECT_EQ(r.unmatched_kernel_entries[0].name, "splitk_mla_decode_kernel");
    EXPECT_NE(Names(r).find("no kernel in the head log"), std::string::npos);
  }
}

// Realworld defect 1: a base that does not compile (CUTLASS submodule missing in the
// base's checkout) made every kernel "new" and occupancy_not_lower PASS.
TEST(ResourcesRegression, BaseThatDidNotBuildMakesTheComparisonsMissing) {
  BuildConfig c =
      Config("[build]\nblock_size = 128\n[[build.kernel]]\nname = \"scale_kernel\"\ndynamic_smem = 0\n"
             "[[build.kernel]]\nname = \"dyn_reduce\"\ndynamic_smem = 1024\n");
  PtxasReport head = Log("multi_two_archs.log");
  PtxasReport base = ParsePtxasLog(
                         "csrc/params.h(3): catastrophic error: cannot open source file "
                         "\"cutlass/bfloat16.h\"\n1 catastrophic error detected in the "
                         "compilation of \"csrc/k.cu\".\n",
                         "base.log")
                         .value();
  ResourcesInput in;
  in.config = &c;
  in.head = &head;
  in.base = &base;
  in.archs = {"sm_80", "sm_90a"};
  in.base_build_failed = true;
  ResourcesReport r = ComputeResourcesReport(in);
  const GateResult& occ = Gate(r, "occupancy_not_lower");
  EXPECT_TRUE(occ.missing());
  EXPECT_NE(occ.reason.find("the base revision did not build: csrc/params.h:3: cannot open source "
                            "file \"cutlass/bfloat16.h\""),
            std::string::npos)
      << occ.reason;
  EXPECT_EQ(r.status, ResourcesStatus::kIncomplete);
  EXPECT_NE(Names(r).find("the base revision did not build"), std::string::npos) << Names(r);
  // The head-only gates still judge the head.
  EXPECT_TRUE(Gate(r, "smem_within_cap").passed());
  EXPECT_TRUE(Gate(r, "no_new_spills").passed());  // no head kernel spills: nothing is new
}

// Realworld defect 2: DeepGEMM 6db7e18 added a template parameter, so base and head
// kernels did not pair and the comparison passed on nothing.
TEST(ResourcesRegression, TemplateParameterAddedPairsAsSignatureChanged) {
  BuildConfig c = Config(
      "[build]\nblock_size = 384\n[[build.kernel]]\nname = \"fp8_gemm_kernel\"\n"
      "dynamic_smem = 187408\n");
  PtxasReport base = ParsePtxasLog(Block(kGemmBase, "sm_90a", 168, 7, 0), "base.log").value();
  PtxasReport head = ParsePtxasLog(Block(kGemmHead, "sm_90a", 168, 7, 0), "head.log").value();
  ResourcesReport r = Report(c, head, &base, {"sm_90a"});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].pairing, KernelPairing::kSignatureChanged);
  EXPECT_EQ(r.kernels[0].change, KernelChange::kSame);
  const GateResult& occ = Gate(r, "occupancy_not_lower");
  EXPECT_TRUE(occ.passed()) << occ.reason;
  EXPECT_EQ(occ.judged, 1);
  EXPECT_EQ(r.status, ResourcesStatus::kOk);
  nlohmann::json j = ResourcesReportToJson(r, StartProvenance("build", {"attnverify", "build"}), ".");
  EXPECT_EQ(j["kernels"][0]["pairing"], "signature_changed");
  EXPECT_EQ(j["gates"][4]["status"], "pass");
  std::string table = FormatResourcesTable(r);
  EXPECT_NE(table.find("same (signature)"), std::string::npos) << table;
  EXPECT_NE(table.find("deep_gemm::fp8_gemm_kernel<128u, 112u, 5u>(float*) -> "
                       "deep_gemm::fp8_gemm_kernel<128u, 112u, 16u, 5u>(float*) on sm_90a"),
            std::string::npos)
      << table;
}

// Several instantiations on each side: each pairs with the one whose template arguments
// it shares; ones that cannot be told apart stay one-sided (never mispaired), and the
// comparison says no kernel was compared.
TEST(ResourcesRegression, InstantiationsPairByTheirArgumentsOrNotAtAll) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  // combine<64, 160> and combine<128, 160> gain a third argument.
  PtxasReport base = ParsePtxasLog(Block("_Z7combineILi64ELi160EEvPf", "sm_90a", 40, 1, 5120) +
                                       Block("_Z7combineILi128ELi160EEvPf", "sm_90a", 46, 1, 5120),
                                   "base.log")
                         .value();
  PtxasReport head =
      ParsePtxasLog(Block("_Z7combineILi128ELi160ELb1EEvPf", "sm_90a", 48, 1, 5120) +
                        Block("_Z7combineILi64ELi160ELb1EEvPf", "sm_90a", 40, 1, 5120),
                    "head.log")
          .value();
  ResourcesReport r = Report(c, head, &base, {"sm_90a"});
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const KernelRow& row : r.kernels) {
    ASSERT_EQ(row.pairing, KernelPairing::kSignatureChanged) << row.demangled;
    EXPECT_EQ(KernelTemplateArguments(row.base->demangled)[0],
              KernelTemplateArguments(row.head->demangled)[0]);
  }
  EXPECT_EQ(Gate(r, "occupancy_not_lower").judged, 2);

  // Two base and two head kernels that share nothing but the name: no guess.
  PtxasReport b2 = ParsePtxasLog(Block("_Z1kILi1EEvv", "sm_90a", 8, 0, 0) +
                                     Block("_Z1kILi2EEvv", "sm_90a", 8, 0, 0),
                                 "b.log")
                       .value();
  PtxasReport h2 = ParsePtxasLog(Block("_Z1kILi3EEvv", "sm_90a", 8, 0, 0) +
                                     Block("_Z1kILi4EEvv", "sm_90a", 8, 0, 0),
                                 "h.log")
                       .value();
  ResourcesReport amb = Report(c, h2, &b2, {"sm_90a"});
  ASSERT_EQ(amb.kernels.size(), 4u);
  for (const KernelRow& row : amb.kernels) EXPECT_NE(row.pairing, KernelPairing::kSignatureChanged);
  const GateResult& occ = Gate(amb, "occupancy_not_lower");
  EXPECT_TRUE(occ.missing());
  EXPECT_NE(occ.reason.find("no kernel was compared between base and head"), std::string::npos)
      << occ.reason;
  EXPECT_NE(Names(amb).find("k on sm_90a: 2 head and 2 base instantiations could not be paired"),
            std::string::npos)
      << Names(amb);
}

// Realworld defect 3: `deep_gemm::fp8_gemm_kernel` matched nothing and was counted as 0
// bytes of dynamic shared memory, silently.
TEST(ResourcesRegression, QualifiedKernelEntriesMatchAndUnmatchedOnesAreListed) {
  PtxasReport head = ParsePtxasLog(Block(kGemmHead, "sm_90a", 168, 7, 0), "head.log").value();
  BuildConfig c = Config(
      "[build]\nblock_size = 384\n[build.gates]\noccupancy_not_lower = false\n"
      "[[build.kernel]]\nname = \"deep_gemm::fp8_gemm_kernel\"\ndynamic_smem = 187408\n");
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"});
  EXPECT_EQ(r.kernels[0].head->dynamic_smem_bytes, 187408);
  EXPECT_EQ(r.kernels[0].head->smem_headroom_bytes, 232448 - 187408);
  EXPECT_TRUE(r.unmatched_kernel_entries.empty());
  EXPECT_EQ(r.status, ResourcesStatus::kOk);

  BuildConfig typo = Config(
      "[build]\nblock_size = 384\n[build.gates]\noccupancy_not_lower = false\n"
      "[[build.kernel]]\nname = \"deep_gemm::fp8_gemm_kernl\"\ndynamic_smem = 187408\n");
  ResourcesReport t = Report(typo, head, nullptr, {"sm_90a"});
  ASSERT_EQ(t.unmatched_kernel_entries.size(), 1u);
  EXPECT_EQ(t.unmatched_kernel_entries[0].line, 5);
  const GateResult& smem = Gate(t, "smem_within_cap");
  EXPECT_TRUE(smem.missing());
  EXPECT_NE(smem.reason.find("\"deep_gemm::fp8_gemm_kernl\" (line 5) names no kernel"),
            std::string::npos)
      << smem.reason;
  EXPECT_EQ(t.status, ResourcesStatus::kIncomplete);
  EXPECT_NE(Names(t).find("187408 bytes of dynamic shared memory are counted nowhere"),
            std::string::npos);
  nlohmann::json j = ResourcesReportToJson(t, StartProvenance("build", {"attnverify", "build"}), ".");
  EXPECT_EQ(j["unmatched_kernel_entries"][0]["name"], "deep_gemm::fp8_gemm_kernl");
}

// Realworld defect 4: one dynamic_smem for both revisions gave the base the head's figure.
TEST(ResourcesRegression, BaseDynamicSmemIsTheBasesOwn) {
  BuildConfig c = Config(
      "[build]\nblock_size = 384\n[[build.kernel]]\nname = \"fp8_gemm_kernel\"\n"
      "dynamic_smem = 187408\nbase_dynamic_smem = 185360\n");
  PtxasReport base = ParsePtxasLog(Block(kGemmBase, "sm_90a", 168, 7, 0), "base.log").value();
  PtxasReport head = ParsePtxasLog(Block(kGemmHead, "sm_90a", 168, 7, 0), "head.log").value();
  ResourcesReport r = Report(c, head, &base, {"sm_90a"});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].base->dynamic_smem_bytes, 185360);
  EXPECT_EQ(r.kernels[0].head->dynamic_smem_bytes, 187408);
  EXPECT_EQ(r.kernels[0].change, KernelChange::kChanged);
  EXPECT_NE(FormatResourcesTable(r).find("0+185360 -> 0+187408"), std::string::npos)
      << FormatResourcesTable(r);
}

// Realworld defect 5: FlashMLA passes the kernel through a local variable and a
// constexpr size; the note keyed on the variable and said "not declared" when it was.
TEST(ResourcesRegression, DynamicSmemNoteKeysOnTheKernelBehindALocalVariable) {
  std::string src = R"(
template <typename T>
void run_mla(Params& params, cudaStream_t stream) {
  auto mla_kernel = &flash_fwd_splitkv_mla_kernel<T>;
  constexpr size_t smem_size = sizeof(typename T::SharedMemoryPlan);
  CHECK_CUDA(cudaFuncSetAttribute(mla_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_size));
  void (*combine)(Params) = &ns::combine_kernel<64>;
  cudaFuncSetAttribute(combine, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096);
}
)";
  std::vector<DynamicSmemSite> sites = ScanDynamicSmem(src, "csrc/kernels/splitkv_mla.cu");
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].alias, "mla_kernel");
  EXPECT_EQ(sites[0].kernel_base, "flash_fwd_splitkv_mla_kernel");
  EXPECT_FALSE(sites[0].value.has_value());
  EXPECT_EQ(sites[0].value_constexpr,
            "constexpr size_t smem_size = sizeof(typename T::SharedMemoryPlan)");
  EXPECT_EQ(sites[1].alias, "combine");
  EXPECT_EQ(sites[1].kernel_base, "combine_kernel");
  EXPECT_EQ(sites[1].value, 4096);

  const std::string mangled = "_Z28flash_fwd_splitkv_mla_kernelI6TraitsEv6Params";
  PtxasReport head = ParsePtxasLog(Block(mangled, "sm_90a", 239, 10, 0), "h.log").value();
  BuildConfig declared = Config(
      "[build]\nblock_size = 256\n[[build.kernel]]\nname = \"flash_fwd_splitkv_mla_kernel\"\n"
      "dynamic_smem = 230816\n");
  ResourcesReport r = Report(declared, head, nullptr, {"sm_90a"}, {sites[0]});
  ASSERT_EQ(r.findings.size(), 1u);
  const std::string& note = r.findings[0].message;
  EXPECT_EQ(r.findings[0].kind, "dynamic_smem_runtime");
  EXPECT_NE(note.find("cudaFuncSetAttribute for &flash_fwd_splitkv_mla_kernel<T> (mla_kernel)"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("a compile-time constant (constexpr size_t smem_size = sizeof"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("(230816 bytes, line 3)"), std::string::npos) << note;
  EXPECT_EQ(note.find("not declared"), std::string::npos) << note;

  BuildConfig undeclared = Config("[build]\nblock_size = 256\n");
  ResourcesReport u = Report(undeclared, head, nullptr, {"sm_90a"}, {sites[0]});
  EXPECT_NE(u.findings[0].message.find("not declared for flash_fwd_splitkv_mla_kernel"),
            std::string::npos)
      << u.findings[0].message;
}

// Realworld defect 6: ten combine instantiations printed as one truncated prefix; the
// console table also had no barriers column (the 10 -> 11 of FlashMLA 01a2772).
TEST(ResourcesRegression, TableKeepsInstantiationsDistinctAndShowsBarriers) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  std::string text;
  for (int splits : {32, 64, 96, 128, 160}) {
    for (const char* type : {"N7cutlass6half_tE", "N7cutlass10bfloat16_tE"}) {
      std::string name = std::string("_ZN4smxx6decode28flash_fwd_mla_combine_kernelI") + type +
                         "Li512ELi" + std::to_string(splits) + "ELi8EEEv20DecodingParamsStruct";
      text += Block(name, "sm_90a", 46, 1, 5120);
    }
  }
  PtxasReport head = ParsePtxasLog(text, "h.log").value();
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"});
  ASSERT_EQ(r.kernels.size(), 10u);
  std::string table = FormatResourcesTable(r);
  std::set<std::string> names;
  for (size_t at = table.find("flash_fwd_mla_combine_kernel"); at != std::string::npos;
       at = table.find("flash_fwd_mla_combine_kernel", at + 1)) {
    names.insert(table.substr(at, table.find("  ", at) - at));
  }
  EXPECT_EQ(names.size(), 10u) << table;

  PtxasReport base = ParsePtxasLog(Block("_Z3mlav", "sm_90a", 239, 10, 0), "b.log").value();
  PtxasReport h11 = ParsePtxasLog(Block("_Z3mlav", "sm_90a", 239, 11, 0), "h.log").value();
  std::string t = FormatResourcesTable(Report(c, h11, &base, {"sm_90a"}));
  EXPECT_NE(t.find("barriers"), std::string::npos);
  EXPECT_NE(t.find("10 -> 11"), std::string::npos) << t;
}

// L6 through the gates: a bad count fails head_builds and is never judged as a number.
TEST(ResourcesRegression, L6BadCountFailsTheBuildGate) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  std::string text = Block("_Z1av", "sm_90a", 8, 0, 0) + Block("_Z1bv", "sm_90a", 8, 0, 0);
  text.replace(text.find("Used 8 registers"), 16, "Used 2147483648 registers");
  PtxasReport head = ParsePtxasLog(text, "h.log").value();
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"});
  const GateResult& b = Gate(r, "head_builds");
  EXPECT_EQ(b.status, CheckStatus::kFail);
  ASSERT_EQ(b.failures.size(), 1u);
  EXPECT_NE(b.failures[0].find("the 'Used' line of a() for sm_90a has a count no ptxas prints"),
            std::string::npos)
      << b.failures[0];
  EXPECT_NE(Gate(r, "registers_max").reason.find("a() on sm_90a: registers unknown"),
            std::string::npos);
  EXPECT_EQ(Row(r, "b()", "sm_90a")->head->registers, 8);
  EXPECT_EQ(r.status, ResourcesStatus::kRejected);
}

// Newcomer turn 3: the demo refactor's decode kernel overflows shared memory (ptxas
// refuses it) and goes 8 -> 0 warps per SM, yet occupancy_not_lower passed: it skipped the
// refused kernel and judged the combine kernel alone ("judged 1 kernel").
TEST(ResourcesRegression, OccupancyGateJudgesTheKernelPtxasRefused) {
  BuildConfig c = Config(
      "[build]\nblock_size = 256\n[[build.kernel]]\nname = \"decode\"\ndynamic_smem = 0\n"
      "[[build.kernel]]\nname = \"combine\"\nblock_size = 128\ndynamic_smem = 0\n");
  const std::string decode = "_Z6decodev", combine = "_Z7combinev";
  PtxasReport base = ParsePtxasLog(Block(decode, "sm_90a", 127, 1, 195072) +
                                       Block(combine, "sm_90a", 40, 1, 4096),
                                   "base.log")
                         .value();
  const std::string refused = "ptxas error   : Entry function '" + decode +
                              "' uses too much shared data (0x56200 bytes, 0x38c00 max)\n";
  // ptxas prints the Used line of a refused kernel (demo) or not (other versions).
  for (bool used_line : {true, false}) {
    SCOPED_TRACE(used_line ? "with Used line" : "without Used line");
    std::string text = refused + (used_line ? Block(decode, "sm_90a", 127, 1, 352768) : "") +
                       Block(combine, "sm_90a", 40, 1, 4096);
    PtxasReport head = ParsePtxasLog(text, "head.log").value();
    ResourcesReport r = Report(c, head, &base, {"sm_90a"});
    const GateResult& occ = Gate(r, "occupancy_not_lower");
    EXPECT_EQ(occ.status, CheckStatus::kFail) << occ.reason;
    EXPECT_EQ(occ.judged, 2) << occ.reason;
    ASSERT_EQ(occ.failures.size(), 1u);
    EXPECT_NE(occ.failures[0].find("decode() on sm_90a: 8 -> 0 warps per SM"), std::string::npos)
        << occ.failures[0];
    EXPECT_EQ(Gate(r, "smem_within_cap").status, CheckStatus::kFail);
    EXPECT_EQ(r.status, ResourcesStatus::kRejected);
  }
  // A head that still fits keeps its occupancy: the same two kernels pass.
  ResourcesReport same = Report(c, base, &base, {"sm_90a"});
  EXPECT_TRUE(Gate(same, "occupancy_not_lower").passed());
  EXPECT_EQ(Gate(same, "occupancy_not_lower").judged, 2);
}

// Reliability turn 3, L2: a 300,000-kernel log printed 300,000 table lines. The console
// shows 200 rows and says where the rest are; resources.json keeps every row.
TEST(ResourcesRegression, ConsoleTableShowsTwoHundredRowsAndTheJsonEveryRow) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  std::string text;
  for (int i = 0; i < 300; ++i) {
    const std::string name = "k" + std::to_string(i);
    text += Block("_Z" + std::to_string(name.size()) + name + "v", "sm_90a", 8, 0, 64);
  }
  PtxasReport head = ParsePtxasLog(text, "h.log").value();
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"});
  ASSERT_EQ(r.kernels.size(), 300u);
  std::string table = FormatResourcesTable(r);
  EXPECT_NE(table.find("k199()"), std::string::npos) << table.substr(0, 400);
  EXPECT_EQ(table.find("k200()"), std::string::npos);
  EXPECT_NE(table.find("... and 100 more kernel rows (every row is in evidence/resources.json)"),
            std::string::npos);
  nlohmann::json j = nlohmann::json::parse(
      ResourcesReportToJsonText(r, StartProvenance("build", {"attnverify", "build"}), "."));
  EXPECT_EQ(j["kernels"].size(), 300u);
}

}  // namespace
}  // namespace av

namespace av {
namespace {

// Issue 38: real template names made 432-character rows (the kernel column fell back to
// the full name whenever shortening made two names coincide). The column is bounded; a
// long name keeps the kernel's name and the template arguments that tell its
// instantiations apart, and every row stays distinct.
TEST(ResourcesRegression, LongTemplateNamesAreBoundedAndKeepTheirDistinguishingArguments) {
  BuildConfig c = Config("[build]\nblock_size = 128\n");
  std::string text;
  std::string many;  // 14 shared integer arguments, as CUTLASS tile shapes and stages are
  for (int k = 1; k <= 14; ++k) many += "Li" + std::to_string(k * 16) + "E";
  for (int splits : {32, 64, 96}) {
    for (int causal : {0, 1}) {
      text += Block("_ZN5flash6kernel24flash_fwd_splitkv_kernelIN7cutlass10bfloat16_tELi512ELi" +
                        std::to_string(splits) + "ELi8ELb1ELb" + std::to_string(causal) + "E" +
                        many + "EEv16Flash_fwd_params",
                    "sm_90a", 128, 1, 4096);
    }
  }
  PtxasReport head = ParsePtxasLog(text, "h.log").value();
  ResourcesReport r = Report(c, head, nullptr, {"sm_90a"});
  ASSERT_EQ(r.kernels.size(), 6u);
  ASSERT_GT(r.kernels[0].demangled.size(), 120u) << r.kernels[0].demangled;
  const std::string table = FormatResourcesTable(r);
  size_t widest = 0;
  std::set<std::string> names;
  for (size_t at = 0, nl; at < table.size(); at = nl + 1) {
    nl = table.find('\n', at);
    if (nl == std::string::npos) nl = table.size();
    const std::string line = table.substr(at, nl - at);
    if (line.rfind("flash_fwd_splitkv_kernel<", 0) == 0) {
      widest = std::max(widest, line.size());
      names.insert(line.substr(0, line.find("  ")));
    }
  }
  EXPECT_EQ(names.size(), 6u) << table;
  for (const std::string& n : names) EXPECT_LE(n.size(), 72u) << n;
  // The other columns take about 110 characters; the full names (about 190) made 300.
  EXPECT_LE(widest, 190u) << table;
  EXPECT_TRUE(names.count("flash_fwd_splitkv_kernel<..., 64, ..., true, ...>")) << table;
  EXPECT_TRUE(names.count("flash_fwd_splitkv_kernel<..., 96, ..., false, ...>")) << table;
}

}  // namespace
}  // namespace av
