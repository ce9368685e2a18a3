#include "compile/ptxas_log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/file.h"
#include "compile/demangle.h"
#include "compile/ptxas_log_json.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string LogDir() { return av::testing::SourceDir() + "/testdata/ptxas_log"; }

PtxasReport ParseFile(const std::string& name) {
  auto text = ReadFileToString(LogDir() + "/" + name);
  EXPECT_TRUE(text.ok()) << text.status().message();
  auto report = ParsePtxasLog(text.ok() ? *text : "", name);
  EXPECT_TRUE(report.ok());
  return std::move(report).value();
}

PtxasReport ParseText(std::string_view text) { return ParsePtxasLog(text, "test.log").value(); }

const PtxasKernel* Find(const PtxasReport& r, std::string_view mangled, std::string_view arch) {
  for (const auto& k : r.kernels) {
    if (k.mangled == mangled && k.arch == arch) return &k;
  }
  return nullptr;
}

const PtxasDiagnostic* FindDiag(const PtxasReport& r, std::string_view kind) {
  for (const auto& d : r.diagnostics) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

// Every committed log against its expected JSON (UPDATE_GOLDEN=1 rewrites them).
TEST(PtxasLogGolden, EveryCommittedLogMatchesItsJson) {
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LogDir())) {
    if (entry.path().extension() != ".log") continue;
    std::string name = entry.path().filename().string();
    std::string got = PtxasReportToJson(ParseFile(name)).dump(2) + "\n";
    std::string golden =
        entry.path().string().substr(0, entry.path().string().size() - 4) + ".json";
    if (update) {
      ASSERT_TRUE(WriteFileAtomically(golden, got).ok());
    } else {
      auto want = ReadFileToString(golden);
      ASSERT_TRUE(want.ok()) << golden << " missing; run with UPDATE_GOLDEN=1";
      EXPECT_EQ(got, *want) << name << " differs from its golden JSON";
    }
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

TEST(PtxasLog, TwoArchsSeveralKernelsAndTemplates) {
  PtxasReport r = ParseFile("multi_two_archs.log");
  ASSERT_EQ(r.kernels.size(), 8u);
  EXPECT_EQ(r.CountErrors(), 0);
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.unknown_lines, 0);
  const PtxasKernel* k = Find(r, "_Z9tile_copyILi128EEvPKfPfi", "sm_80");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->demangled, "void tile_copy<128>(float const*, float*, int)");
  EXPECT_EQ(k->registers, 10);
  EXPECT_EQ(k->barriers, 1);
  EXPECT_EQ(k->smem_bytes, 16384);
  EXPECT_EQ(k->stack_frame_bytes, 0);
  EXPECT_EQ(k->spill_store_bytes, 0);
  EXPECT_EQ(k->gmem_bytes, 256);
  ASSERT_EQ(k->cmem.size(), 1u);
  EXPECT_EQ(k->cmem[0].bank, 0);
  EXPECT_EQ(k->cmem[0].bytes, 372);
  EXPECT_TRUE(k->complete);
  EXPECT_GT(k->compile_time_ms, 0);
  const PtxasKernel* k90 = Find(r, "_Z9tile_copyILi64EEvPKfPfi", "sm_90a");
  ASSERT_NE(k90, nullptr);
  EXPECT_EQ(k90->registers, 12);
  EXPECT_EQ(k90->smem_bytes, 8192);
  EXPECT_TRUE(k90->cmem.empty());  // sm_90a puts parameters elsewhere: no cmem[0] item
  const PtxasKernel* dyn = Find(r, "_Z10dyn_reducePKfPfi", "sm_90a");
  ASSERT_NE(dyn, nullptr);
  EXPECT_EQ(dyn->smem_bytes, 0);  // dynamic shared memory is not in the log
  const PtxasKernel* scale = Find(r, "_Z12scale_kernelPffi", "sm_80");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->barriers, 0);
  EXPECT_EQ(scale->registers, 8);
}

TEST(PtxasLog, ForcedSpillsUnderMaxrregcount) {
  PtxasReport r = ParseFile("spill_sm80.log");
  const PtxasKernel* k = Find(r, "_Z12spill_kernelPKfPf", "sm_80");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->registers, 32);
  EXPECT_EQ(k->max_registers_option, 32);
  EXPECT_EQ(k->stack_frame_bytes, 352);
  EXPECT_EQ(k->spill_store_bytes, 580);
  EXPECT_EQ(k->spill_load_bytes, 676);
  EXPECT_EQ(k->cumulative_stack_bytes, 352);
}

TEST(PtxasLog, SpillAndLocalMemoryWarnings) {
  PtxasReport r = ParseFile("spill_warnings_sm90a.log");
  const PtxasDiagnostic* spill = FindDiag(r, "register_spill");
  ASSERT_NE(spill, nullptr);
  EXPECT_EQ(spill->function, "_Z12spill_kernelPKfPf");
  EXPECT_EQ(spill->bytes, 844 + 980);
  const PtxasDiagnostic* lmem = FindDiag(r, "local_memory");
  ASSERT_NE(lmem, nullptr);
  EXPECT_EQ(lmem->bytes, 512);
  const PtxasDiagnostic* regs = FindDiag(r, "register_limit");
  ASSERT_NE(regs, nullptr);
  EXPECT_NE(regs->message.find("Too big maxrregcount value specified 24"), std::string::npos);
  const PtxasKernel* k = Find(r, "_Z12spill_kernelPKfPf", "sm_90a");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->registers, 24);
  EXPECT_EQ(k->spill_store_bytes, 844);
}

TEST(PtxasLog, StaticSmemOver48KiBOnSm80IsAnErrorMatchedToItsArch) {
  PtxasReport r = ParseFile("smem_over_sm80.log");
  const PtxasDiagnostic* d = FindDiag(r, "smem_overflow");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_EQ(d->function, "_Z15big_static_smemPf");
  EXPECT_EQ(d->bytes, 65536);
  EXPECT_EQ(d->max_bytes, 49152);
  EXPECT_EQ(d->arch, "sm_80");
  EXPECT_EQ(r.CountErrors(), 1);
}

TEST(PtxasLog, StaticSmemOver227KiBOnSm90a) {
  PtxasReport r = ParseFile("smem_over_sm90a.log");
  const PtxasDiagnostic* d = FindDiag(r, "smem_overflow");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->bytes, 262144);
  EXPECT_EQ(d->max_bytes, 232448);
  EXPECT_EQ(d->arch, "sm_90a");
  const PtxasKernel* k = Find(r, "_Z13flash_mla_fwdILi256EEvPKfPfi", "sm_90a");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->demangled, "void flash_mla_fwd<256>(float const*, float*, int)");
  EXPECT_EQ(k->smem_bytes, 262144);
}

TEST(PtxasLog, NvccCompileErrorWithFileAndLine) {
  PtxasReport r = ParseFile("compile_error.log");
  const PtxasDiagnostic* d = FindDiag(r, "compile_error");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->source_file, "compile_error.cu");
  EXPECT_EQ(d->source_line, 3);
  EXPECT_EQ(d->message, "identifier \"undefined_value\" is undefined");
  EXPECT_EQ(r.unknown_lines, 0);  // the echoed source, caret and summary are understood
  EXPECT_TRUE(r.kernels.empty());
}

TEST(PtxasLog, DeviceFunctionBlocksAreNotEntries) {
  PtxasReport r = ParseFile("device_call.log");
  EXPECT_EQ(r.EntryKernels().size(), 2u);
  int device = 0;
  for (const auto& k : r.kernels) device += !k.is_entry;
  EXPECT_EQ(device, 2);
  EXPECT_FALSE(r.truncated);
}

TEST(PtxasLog, InterleavedOutputIsAttributedInArrivalOrder) {
  PtxasReport r = ParseFile("interleaved.log");
  const PtxasKernel* spill = Find(r, "_Z12spill_kernelPKfPf", "sm_80");
  ASSERT_NE(spill, nullptr);
  EXPECT_EQ(spill->registers, 32);
  EXPECT_EQ(spill->spill_store_bytes, 580);
  const PtxasKernel* tile = Find(r, "_Z9tile_copyILi128EEvPKfPfi", "sm_80");
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(tile->registers, 10);
  EXPECT_EQ(tile->spill_store_bytes, 0);
  EXPECT_EQ(tile->smem_bytes, 16384);
  EXPECT_NE(FindDiag(r, "interleaved"), nullptr);
  EXPECT_EQ(r.EntryKernels().size(), 9u);
}

// The interleaved log is two real logs shuffled together: every resource number must
// equal what the clean logs say (gmem is per compilation unit and is not compared).
TEST(PtxasLog, InterleavedNumbersEqualTheCleanLogs) {
  PtxasReport mixed = ParseFile("interleaved.log");
  PtxasReport a = ParseFile("multi_two_archs.log");
  PtxasReport b = ParseFile("spill_sm80.log");
  int compared = 0;
  for (const PtxasKernel& k : mixed.kernels) {
    const PtxasKernel* clean = Find(a, k.mangled, k.arch);
    if (clean == nullptr) clean = Find(b, k.mangled, k.arch);
    ASSERT_NE(clean, nullptr) << k.mangled;
    EXPECT_EQ(k.registers, clean->registers) << k.mangled << " " << k.arch;
    EXPECT_EQ(k.barriers, clean->barriers) << k.mangled << " " << k.arch;
    EXPECT_EQ(k.smem_bytes, clean->smem_bytes) << k.mangled << " " << k.arch;
    EXPECT_EQ(k.stack_frame_bytes, clean->stack_frame_bytes) << k.mangled << " " << k.arch;
    EXPECT_EQ(k.spill_store_bytes, clean->spill_store_bytes) << k.mangled << " " << k.arch;
    EXPECT_EQ(k.compile_time_ms, clean->compile_time_ms) << k.mangled << " " << k.arch;
    ++compared;
  }
  EXPECT_EQ(compared, 9);
}

TEST(PtxasLog, TruncatedLogIsReportedAsSuch) {
  PtxasReport r = ParseFile("truncated.log");
  EXPECT_TRUE(r.truncated);
  EXPECT_NE(FindDiag(r, "truncated"), nullptr);
  const PtxasKernel* first = Find(r, "_Z9tile_copyILi128EEvPKfPfi", "sm_80");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->registers, 10);  // what was complete is kept
}

TEST(PtxasLog, MixedBuildLogWithTimestampsAndRuntimeError) {
  PtxasReport r = ParseFile("mixed_build.log");
  const PtxasKernel* spill = Find(r, "_Z12spill_kernelPKfPf", "sm_80");
  ASSERT_NE(spill, nullptr);
  EXPECT_EQ(spill->spill_load_bytes, 676);
  EXPECT_NE(FindDiag(r, "launch_out_of_resources"), nullptr);
  const PtxasDiagnostic* host = FindDiag(r, "compile_warning");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->source_file, "csrc/bindings.cpp");
  EXPECT_EQ(host->source_line, 42);
  EXPECT_EQ(FindDiag(r, "smem_overflow")->arch, "sm_90a");
  EXPECT_GT(r.unknown_lines, 0);
}

TEST(PtxasLog, PtxLocationErrorsAndNvccFatal) {
  PtxasReport r = ParseText(
      "ptxas /tmp/tmpxft_0001_00000000-6_k.ptx, line 57; error   : Unknown symbol 'foo'\n"
      "nvcc fatal   : Unsupported gpu architecture 'compute_99'\n");
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics[0].kind, "ptxas_error");
  EXPECT_EQ(r.diagnostics[0].source_line, 57);
  EXPECT_EQ(r.diagnostics[0].function, "foo");
  EXPECT_EQ(r.diagnostics[1].kind, "nvcc_error");
  EXPECT_EQ(r.CountErrors(), 2);
}

TEST(PtxasLog, UnknownLinesAreCappedWarnings) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "some unrelated build line " + std::to_string(i) + "\n";
  PtxasReport r = ParseText(text);
  EXPECT_EQ(r.unknown_lines, 100);
  EXPECT_EQ(static_cast<int>(r.diagnostics.size()), kMaxUnknownLineWarnings);
}

TEST(PtxasLog, CrLfLinesParse) {
  PtxasReport r = ParseText(
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\r\n"
      "ptxas info    : Used 4 registers, 0 bytes smem\r\n");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].registers, 4);
  EXPECT_EQ(r.kernels[0].demangled, "k");  // extern "C" names stay as they are
}

TEST(PtxasLog, ALastLineCutInsideAPtxasLineIsTruncation) {
  const char* block =
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
      "ptxas info    : Used 4 registers, 0 bytes smem\n";
  PtxasReport entry =
      ParseText(std::string(block) + "ptxas info    : Compiling entry function 'j' for 'sm_8");
  EXPECT_TRUE(entry.truncated);
  PtxasReport used = ParseText(
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\nptxas info    : Used 10 "
      "registers, used 1 bar");
  EXPECT_TRUE(used.truncated);
  EXPECT_EQ(used.kernels[0].registers, 10);
  EXPECT_FALSE(ParseText(block).truncated);
}

// Regression: every prefix of a real log (a log cut anywhere) parses without a crash,
// and a cut inside a block is reported.
TEST(PtxasLog, EveryPrefixOfARealLogParses) {
  auto text = ReadFileToString(LogDir() + "/multi_two_archs.log");
  ASSERT_TRUE(text.ok());
  int truncated = 0;
  for (size_t n = 0; n <= text->size(); ++n) {
    auto r = ParsePtxasLog(std::string_view(*text).substr(0, n), "prefix");
    ASSERT_TRUE(r.ok());
    truncated += r->truncated;
  }
  EXPECT_GT(truncated, static_cast<int>(text->size() / 2));
}

// L6: a Used line whose counts no ptxas prints is an error for that kernel; it still
// closes that kernel's block, so the lines after it stay with their own kernels.
TEST(PtxasLogRegression, L6OutOfRangeCountsNeverShiftLinesOntoOtherKernels) {
  auto text = ReadFileToString(LogDir() + "/multi_two_archs.log");
  ASSERT_TRUE(text.ok());
  PtxasReport clean = ParseText(*text);
  for (const auto& [from, to] :
       {std::pair{"Used 10 registers, used 1 barriers, 16384 bytes smem",
                  "Used 2147483648 registers, used 1 barriers, 9223372036854775807 bytes smem"},
        {"Used 10 registers, used 1 barriers, 16384 bytes smem",
         "Used -10 registers, used 1 barriers, -16384 bytes smem"},
        {"Used 10 registers, used 1 barriers, 16384 bytes smem",
         "Used 10 registers, used 99999 barriers, 16384 bytes smem"}}) {
    std::string bad = *text;
    bad.replace(bad.find(from), std::string_view(from).size(), to);
    PtxasReport r = ParseText(bad);
    SCOPED_TRACE(to);
    ASSERT_EQ(r.kernels.size(), clean.kernels.size());
    const PtxasKernel* hit = Find(r, "_Z9tile_copyILi128EEvPKfPfi", "sm_80");
    ASSERT_NE(hit, nullptr);
    EXPECT_TRUE(hit->bad_count);
    EXPECT_EQ(hit->registers, -1);
    EXPECT_TRUE(hit->complete);
    for (size_t i = 0; i < r.kernels.size(); ++i) {
      if (&r.kernels[i] == hit) continue;
      EXPECT_EQ(r.kernels[i].registers, clean.kernels[i].registers) << r.kernels[i].demangled;
      EXPECT_EQ(r.kernels[i].smem_bytes, clean.kernels[i].smem_bytes) << r.kernels[i].demangled;
      EXPECT_FALSE(r.kernels[i].bad_count);
    }
    const PtxasDiagnostic* d = FindDiag(r, "bad_count");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::kError);
    EXPECT_EQ(d->arch, "sm_80");
    EXPECT_FALSE(r.truncated);
  }
  // The same for the stack-frame line: spills unknown for that kernel only.
  std::string stack = *text;
  stack.replace(stack.find("0 bytes spill stores"), 20, "-5 bytes spill stores");
  PtxasReport r = ParseText(stack);
  EXPECT_TRUE(r.kernels[0].bad_count);
  EXPECT_EQ(r.kernels[0].spill_store_bytes, -1);
  EXPECT_EQ(r.kernels[1].spill_store_bytes, 0);
  EXPECT_FALSE(r.kernels[1].bad_count);
}

// L7: 500k blocks left open (a killed build) must not take gigabytes: one diagnostic per
// block is listed for the first kMaxDiagnosticsPerKind only, the rest are counted.
TEST(PtxasLogRegression, L7ManyOpenBlocksKeepDiagnosticsBounded) {
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text +=
        "ptxas info    : Compiling entry function '_Z1k" + std::to_string(i) + "v' for 'sm_80'\n";
  }
  PtxasReport r = ParseText(text);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.kernels.size(), 200000u);
  EXPECT_LE(r.diagnostics.size(), static_cast<size_t>(kMaxDiagnosticsPerKind) + 2);
  EXPECT_EQ(r.suppressed_diagnostics, 200000 - kMaxDiagnosticsPerKind);
  const PtxasDiagnostic* s = FindDiag(r, "suppressed");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->message.find("199800 more \"truncated\""), std::string::npos) << s->message;
}

// H7 (a CR-only log hid every line): lines end in \n, \r\n or a lone \r alike.
TEST(PtxasLogRegression, H7CrOnlyLineEndingsParseLikeLf) {
  auto text = ReadFileToString(LogDir() + "/multi_two_archs.log");
  ASSERT_TRUE(text.ok());
  std::string cr = *text;
  for (char& c : cr) c = c == '\n' ? '\r' : c;
  PtxasReport lf = ParseText(*text), r = ParseText(cr);
  ASSERT_EQ(r.kernels.size(), lf.kernels.size());
  ASSERT_EQ(r.kernels.size(), 8u);
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    EXPECT_EQ(r.kernels[i].registers, lf.kernels[i].registers);
    EXPECT_EQ(r.kernels[i].smem_bytes, lf.kernels[i].smem_bytes);
  }
  EXPECT_EQ(r.total_lines, lf.total_lines);
  EXPECT_FALSE(r.truncated);
}

TEST(PtxasDemangle, KeepsTemplateArguments) {
  EXPECT_EQ(DemangleKernelName("_Z13flash_mla_fwdILi64EEvPKfPfi"),
            "void flash_mla_fwd<64>(float const*, float*, int)");
  EXPECT_EQ(KernelShortName("void flash_mla_fwd<64>(float const*, float*, int)"),
            "flash_mla_fwd<64>");
  EXPECT_EQ(KernelBaseName("void ns::flash_mla_fwd<64, (bool)1>(float const*)"), "flash_mla_fwd");
  EXPECT_EQ(KernelQualifiedName("void ns::Outer<int>::k<64, (bool)1>(float const*)"),
            "ns::Outer::k");
  EXPECT_EQ(KernelTemplateArguments("void ns::k<cutlass::bfloat16_t, 64, f<1, 2> >(int)"),
            (std::vector<std::string>{"cutlass::bfloat16_t", "64", "f<1, 2>"}));
  EXPECT_EQ(KernelShortName("void (anonymous namespace)::k<1>(int)"),
            "(anonymous namespace)::k<1>");
  EXPECT_EQ(DemangleKernelName("_Znot a name"), "_Znot a name");
  EXPECT_EQ(DemangleKernelName("my_c_kernel"), "my_c_kernel");
}

}  // namespace
}  // namespace av
