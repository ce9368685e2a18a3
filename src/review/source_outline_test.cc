// The whole-file outline: kernels with their template header and parameters (the signature
// the 3-line diff context misses), device functions, enums, Python defs; and the component
// kinds that decide which questions a file gets.
#include "review/source_outline.h"

#include <gtest/gtest.h>

#include "review/component_kind.h"

namespace av {
namespace {

TEST(SourceOutlineTest, KernelSignatureOnItsOwnLinesAndEnums) {
  const std::string cu =
      "// header\n"                                                 // 1
      "enum BarrierIds : int {\n"                                   // 2
      "    kReady = 0,\n"                                           // 3
      "};\n"                                                        // 4
      "template <uint32_t BLOCK_M,\n"                               // 5
      "          uint32_t BLOCK_N>\n"                               // 6
      "__global__ void __launch_bounds__(f<BLOCK_M>(1), 1)\n"       // 7
      "gemm_kernel(float* d,\n"                                     // 8
      "            const __grid_constant__ CUtensorMap map) {\n"    // 9
      "    if (threadIdx.x == 0) {\n"                               // 10
      "        auto f = [&](int i) { return i + 1; };\n"            // 11
      "        d[0] = f(1);\n"                                      // 12
      "    }\n"                                                     // 13
      "}\n"                                                         // 14
      "struct Scheduler {\n"                                        // 15
      "    CUTLASS_DEVICE int next(int i) { return i + 1; }\n"      // 16
      "};\n"                                                        // 17
      "static void launch(cudaStream_t s) {\n"                      // 18
      "    gemm_kernel<64, 64><<<1, 128, 0, s>>>(nullptr, map);\n"  // 19
      "}\n";                                                        // 20
  SourceOutline o = BuildSourceOutline(cu, SourceLanguage::kCpp);
  ASSERT_EQ(o.lines.size(), 20u);
  const OutlineFunction* k = o.FunctionAt(12);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "gemm_kernel");
  EXPECT_EQ(k->kind, FunctionKind::kKernel);
  EXPECT_EQ(k->header_line, 5);
  EXPECT_EQ(k->signature_line, 8);
  EXPECT_EQ(k->open_line, 9);
  EXPECT_EQ(k->close_line, 14);
  EXPECT_TRUE(SourceOutline::InSignature(*k, 6));  // the template header
  EXPECT_TRUE(SourceOutline::InSignature(*k, 9));  // the last parameter, with '{'
  EXPECT_FALSE(SourceOutline::InSignature(*k, 10));
  EXPECT_EQ(o.FunctionAt(11), k);  // a lambda is part of its function
  const OutlineScope* e = o.ScopeAt(3);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->keyword, "enum");
  EXPECT_EQ(e->name, "BarrierIds");
  ASSERT_NE(o.FunctionAt(16), nullptr);
  EXPECT_EQ(o.FunctionAt(16)->name, "next");
  EXPECT_EQ(o.FunctionAt(16)->kind, FunctionKind::kDevice);  // CUTLASS_DEVICE
  ASSERT_NE(o.FunctionAt(19), nullptr);
  EXPECT_EQ(o.FunctionAt(19)->name, "launch");
  EXPECT_EQ(o.FunctionAt(19)->kind, FunctionKind::kHost);
  EXPECT_EQ(o.FunctionAt(1), nullptr);
}

TEST(SourceOutlineTest, PythonDefsByIndentation) {
  const std::string py =
      "import math\n"                              // 1
      "def get_smem_size(k: int,\n"                // 2
      "                  block_n: int) -> int:\n"  // 3
      "    \"\"\"Docs.\n"                          // 4
      "    def inside\"\"\"\n"                     // 5
      "    smem_d = block_n * 2\n"                 // 6
      "    return smem_d\n"                        // 7
      "\n"                                         // 8
      "x = 1\n";                                   // 9
  SourceOutline o = BuildSourceOutline(py, SourceLanguage::kPython);
  const OutlineFunction* f = o.FunctionAt(6);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "get_smem_size");
  EXPECT_EQ(f->kind, FunctionKind::kPython);
  EXPECT_EQ(f->close_line, 7);
  EXPECT_EQ(o.FunctionAt(9), nullptr);
}

// git's section header shows a signature line that starts at column 0: with the return type
// on the line before, "name(" is still a signature there.
TEST(SourceOutlineRegression, HunkHeaderWithoutReturnTypeIsASignature) {
  const std::string section = "fp8_gemm_kernel(__nv_bfloat16* gmem_d, float* scales_b,";
  EXPECT_EQ(SignatureName(Tokenize(section), section, /*allow_bare_name=*/true), "fp8_gemm_kernel");
  EXPECT_EQ(SignatureName(Tokenize(section), section, /*allow_bare_name=*/false), "");
  const std::string call = "if (ok(x)) {";
  EXPECT_EQ(SignatureName(Tokenize(call), call, true), "");
  const std::string attr = "__global__ void __launch_bounds__(256) combine_kernel(Params p) {";
  EXPECT_EQ(SignatureName(Tokenize(attr), attr, false), "combine_kernel");
}

TEST(SourceOutlineTest, NeverCrashesOnBrokenCode) {
  for (const std::string& text : {std::string("}}}}{{"), std::string("template <"),
                                  std::string("f(((((\n{\n"), std::string(100000, '{')}) {
    SourceOutline o = BuildSourceOutline(text, SourceLanguage::kCpp);
    for (const OutlineFunction& f : o.functions) {
      EXPECT_LE(f.header_line, f.open_line);
      EXPECT_LE(f.open_line, f.close_line);
    }
  }
}

TEST(ComponentKindTest, KindsFromNamesAndPaths) {
  EXPECT_EQ(InferComponentKind("combine"), ComponentKind::kSplitkCombine);
  EXPECT_EQ(InferComponentKind("sm90_kernels"), std::nullopt);
  EXPECT_EQ(InferComponentKind("jit_configs"), ComponentKind::kJitConfig);
  EXPECT_EQ(InferComponentKind("deepgemm"), ComponentKind::kGemm);
  EXPECT_EQ(InferComponentKind("tests"), ComponentKind::kTests);
  EXPECT_EQ(InferComponentKind("csrc/kernels/splitkv_mla.cu"), ComponentKind::kMlaDecode);
  EXPECT_EQ(InferComponentKind("csrc/sm100/device/fmha.hpp"), ComponentKind::kAttention);
  EXPECT_EQ(InferComponentKind("models/gemma/attn.py"), ComponentKind::kAttention);  // not gemm
  // GEMM code: a GEMM kernel, or a scheduler / JIT config of a GEMM library.
  EXPECT_TRUE(
      KindOfFile(std::nullopt, "scheduler", "deep_gemm/include/deep_gemm/scheduler.cuh").gemm);
  EXPECT_TRUE(KindOfFile(std::nullopt, "jit_configs", "deep_gemm/jit_kernels/gemm.py").gemm);
  EXPECT_FALSE(
      KindOfFile(std::nullopt, "scheduler", "csrc/sm100/kernel/fmha_tile_scheduler.hpp").gemm);
  EXPECT_FALSE(KindOfFile(ComponentKind::kAttention, "deepgemm", "deep_gemm/x.cu").gemm);
  EXPECT_TRUE(KindOfFile(ComponentKind::kGemm, "kernels", "csrc/x.cu").gemm);
  EXPECT_EQ(ParseComponentKind("splitk_combine"), ComponentKind::kSplitkCombine);
  EXPECT_EQ(ParseComponentKind("nope"), std::nullopt);
}

}  // namespace
}  // namespace av
