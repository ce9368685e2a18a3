// The built-in rules over realistic diffs (testdata/review/*.diff, made with git from
// real before/after files): every finding expected is found at its file:line, and
// nothing else is — noise is a bug.
#include "review/rules.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "core/file.h"
#include "review/change_blocks.h"
#include "review/code_text.h"
#include "testing/test_util.h"

namespace av {
namespace {

using Key = std::tuple<std::string, std::string, int64_t>;  // rule, file, line

std::vector<Finding> ReviewFile(const std::string& name, ReviewOptions options = {}) {
  std::string path = testing::SourceDir() + "/testdata/review/" + name;
  Result<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  Result<Diff> diff = ParseUnifiedDiff(*text, path);
  EXPECT_TRUE(diff.ok()) << diff.status().message();
  if (!diff.ok()) return {};
  int64_t reviewed = 0, skipped = 0;
  return ReviewDiff(*diff, "c", options, &reviewed, &skipped);
}

std::set<Key> Keys(const std::vector<Finding>& findings) {
  std::set<Key> keys;
  for (const Finding& f : findings) keys.insert({f.rule, f.file, f.line});
  return keys;
}

std::string Dump(const std::vector<Finding>& findings) {
  std::string s;
  for (const Finding& f : findings) {
    s += f.rule + " " + f.file + ":" + std::to_string(f.line) + "-" + std::to_string(f.end_line) +
         " " + f.message + "\n";
  }
  return s;
}

const Finding* Find(const std::vector<Finding>& findings, std::string_view rule) {
  for (const Finding& f : findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

TEST(RulesTest, DemoRefactorFindsTileGrowthAndMaskAlignmentOnly) {
  std::vector<Finding> f = ReviewFile("demo_splitk_decode.diff");
  EXPECT_EQ(Keys(f),
            (std::set<Key>{{"tile.constant_changed", "src/flash_mla/splitk_decode.h", 14},
                           {"mask.expression_changed", "src/flash_mla/splitk_decode.h", 19}}))
      << Dump(f);
  const Finding* tile = Find(f, "tile.constant_changed");
  ASSERT_NE(tile, nullptr);
  EXPECT_NE(tile->message.find("kBlockN 64 -> 128 (x2)"), std::string::npos) << tile->message;
  EXPECT_EQ(tile->checklist_item, 4);
  EXPECT_EQ(tile->related_items, std::vector<int>{3});
  EXPECT_EQ(tile->old_text, "constexpr int kBlockN = 64;");
  EXPECT_EQ(tile->new_text, "constexpr int kBlockN = 128;");
  EXPECT_EQ(tile->VerifyLine(),
            "attnverify build --config attention-verify/attnverify.toml --base HEAD~1");
  const Finding* mask = Find(f, "mask.expression_changed");
  ASSERT_NE(mask, nullptr);
  EXPECT_EQ(mask->checklist_item, 2);
  EXPECT_EQ(mask->end_line, 19);
  EXPECT_NE(mask->message.find("in causal_masked()"), std::string::npos) << mask->message;
  EXPECT_EQ(mask->old_text, "return col > row + (s_k - s_q);");
  EXPECT_EQ(mask->new_text, "return col > row;");
  EXPECT_EQ(mask->VerifyLine(), "attnverify numerics --config attention-verify/attnverify.toml");
}

// The example's real refactor (examples/splitk_decode/refactor.patch, as `attnverify
// slice` cut it): LoadKeyTile is renamed LoadKvTile in its definition and both calls, one
// of which compares and names seqlen_k; the rename raises nothing. What is left is the tile
// growth and the mask that dropped its s_q alignment, shown as written.
TEST(RulesTest, RealDemoRefactorIgnoresTheRenameAndShowsSourceText) {
  std::vector<Finding> f = ReviewFile("demo_refactor_real.diff");
  const std::string h = "src/flash_mla/splitk_decode.h";
  EXPECT_EQ(Keys(f),
            (std::set<Key>{{"tile.constant_changed", h, 18}, {"mask.expression_changed", h, 63}}))
      << Dump(f);
  ASSERT_EQ(f.size(), 2u) << Dump(f);
  const Finding* tile = Find(f, "tile.constant_changed");
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(tile->end_line, 18);
  EXPECT_NE(tile->message.find("kBlockN 64 -> 128 (x2)"), std::string::npos) << tile->message;
  EXPECT_EQ(tile->old_text, "constexpr int kBlockN = 64;");
  EXPECT_EQ(tile->new_text, "constexpr int kBlockN = 128;");
  const Finding* mask = Find(f, "mask.expression_changed");
  ASSERT_NE(mask, nullptr);
  EXPECT_EQ(mask->end_line, 64);
  EXPECT_NE(mask->message.find("in CausalKeyVisible()"), std::string::npos) << mask->message;
  EXPECT_EQ(
      mask->old_text,
      "AV_HOST_DEVICE inline bool CausalKeyVisible(int key, int q_row, int s_q, int seqlen_k) {\n"
      "return key <= seqlen_k - s_q + q_row;");
  EXPECT_EQ(mask->new_text,
            "AV_HOST_DEVICE inline bool CausalKeyVisible(int key, int /*q_row*/, int /*s_q*/, int "
            "seqlen_k) {\n"
            "return key < seqlen_k;");
  EXPECT_EQ(mask->message.find("int  ,"), std::string::npos) << mask->message;
  for (const Finding& x : f) EXPECT_EQ(x.message.find("LoadK"), std::string::npos) << x.message;
}

// Refactor then examples/splitk_decode/fix.patch, against the original: the mask is back to
// the base's code (only its comment differs) and kNumStages dropped to fit shared memory.
TEST(RulesTest, RealDemoRefactorPlusFix) {
  std::vector<Finding> f = ReviewFile("demo_refactor_fix_real.diff");
  EXPECT_EQ(Keys(f),
            (std::set<Key>{{"tile.constant_changed", "src/flash_mla/splitk_decode.h", 18}}))
      << Dump(f);
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].end_line, 19);
  EXPECT_NE(f[0].message.find("kBlockN 64 -> 128 (x2); kNumStages 2 -> 1 (/2)"), std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[0].old_text, "constexpr int kBlockN = 64;\nconstexpr int kNumStages = 2;");
  EXPECT_EQ(f[0].new_text, "constexpr int kBlockN = 128;\nconstexpr int kNumStages = 1;");
}

TEST(RulesTest, FlashMlaSplitKRefactor) {
  std::vector<Finding> f = ReviewFile("flashmla_splitk_refactor.diff");
  const std::string cu = "csrc/flash_mla/combine.cu";
  EXPECT_EQ(Keys(f), (std::set<Key>{{"splitk.split_constant_changed", cu, 9},
                                    {"splitk.combine_changed", cu, 26},
                                    {"sync.barrier_removed", cu, 29},
                                    {"atomics.introduced", cu, 35},
                                    {"fallback.switch_removed", cu, 41}}))
      << Dump(f);
  const Finding* split = Find(f, "splitk.split_constant_changed");
  ASSERT_NE(split, nullptr);
  EXPECT_NE(split->message.find("kMaxSplits 32 -> 64"), std::string::npos);
  EXPECT_EQ(split->checklist_item, 5);
  const Finding* combine = Find(f, "splitk.combine_changed");
  ASSERT_NE(combine, nullptr);
  EXPECT_EQ(combine->end_line, 27);  // two adjacent lines, one finding
  EXPECT_NE(combine->message.find("exp/log switch expf/logf -> exp2f/log2f"), std::string::npos)
      << combine->message;
  const Finding* barrier = Find(f, "sync.barrier_removed");
  ASSERT_NE(barrier, nullptr);
  EXPECT_EQ(barrier->severity, Severity::kError);
  EXPECT_EQ(barrier->old_text, "__syncthreads();");
  EXPECT_EQ(Find(f, "fallback.switch_removed")->checklist_item, 7);
  EXPECT_NE(Find(f, "fallback.switch_removed")->message.find("use_legacy_combine"),
            std::string::npos);
  // tests/test_combine.py changed too: tests raise nothing.
  for (const Finding& x : f) EXPECT_EQ(x.file, cu);
}

TEST(RulesTest, DeepGemmTileChange) {
  std::vector<Finding> f = ReviewFile("deepgemm_tile_change.diff");
  const std::string cuh = "deep_gemm/include/deep_gemm/fp8_gemm.cuh";
  EXPECT_EQ(Keys(f), (std::set<Key>{{"smem.declaration_changed", cuh, 16},
                                    {"sync.barrier_removed", cuh, 24},
                                    {"guard.bound_loosened", cuh, 27},
                                    {"tile.constant_changed", "deep_gemm/jit_kernels/gemm.py", 8}}))
      << Dump(f);
  const Finding* tile = Find(f, "tile.constant_changed");
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(tile->end_line, 9);
  EXPECT_NE(tile->message.find("block_n 128 -> 160"), std::string::npos) << tile->message;
  EXPECT_NE(tile->message.find("num_stages 5 -> 4"), std::string::npos) << tile->message;
  EXPECT_NE(Find(f, "guard.bound_loosened")->message.find("`if (n < SHAPE_N)"), std::string::npos);
  EXPECT_NE(Find(f, "sync.barrier_removed")->message.find("NamedBarrier::sync"), std::string::npos);
}

TEST(RulesTest, CommentsWhitespaceRenamesTestsAndDocsRaiseNothing) {
  std::vector<Finding> f = ReviewFile("comments_only.diff");
  EXPECT_TRUE(f.empty()) << Dump(f);
}

TEST(RulesTest, PythonSideChange) {
  std::vector<Finding> f = ReviewFile("python_side.diff");
  const std::string py = "flash_mla/flash_mla_interface.py";
  EXPECT_EQ(Keys(f), (std::set<Key>{{"mask.expression_changed", py, 23},
                                    {"fallback.switch_removed", py, 27},
                                    {"accum.dtype_narrowed", py, 35},
                                    {"splitk.split_constant_changed", py, 36}}))
      << Dump(f);
  EXPECT_NE(Find(f, "accum.dtype_narrowed")->message.find("`bfloat16`"), std::string::npos);
  EXPECT_NE(Find(f, "splitk.split_constant_changed")->message.find("max_num_splits 16 -> 32"),
            std::string::npos);
  EXPECT_NE(Find(f, "fallback.switch_removed")->message.find("FLASH_MLA_USE_REFERENCE"),
            std::string::npos);
  EXPECT_EQ(Find(f, "fallback.switch_removed")->end_line, 27);
}

TEST(RulesTest, DisabledRulesAreSilent) {
  ReviewOptions options;
  options.disabled_rules = {"mask.expression_changed"};
  options.config_path = "pkg/attnverify.toml";
  options.base = "main";
  std::vector<Finding> f = ReviewFile("demo_splitk_decode.diff", options);
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "tile.constant_changed");
  EXPECT_EQ(f[0].verify, (std::vector<std::string>{"attnverify", "build", "--config",
                                                   "pkg/attnverify.toml", "--base", "main"}));
}

Diff ParseOk(const std::string& text) {
  Result<Diff> d = ParseUnifiedDiff(text, "inline.diff");
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? std::move(d).value() : Diff();
}

std::vector<Finding> ReviewText(const std::string& text) {
  return ReviewDiff(ParseOk(text), "c", ReviewOptions(), nullptr, nullptr);
}

TEST(RulesTest, SmallCases) {
  // Shared-memory attribute.
  auto f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,2 @@\n void launch() {\n"
      "-  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);\n"
      "+  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "smem.declaration_changed");
  EXPECT_EQ(f[0].line, 2);
  // Accumulator narrowed in CUDA.
  f = ReviewText("--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  float acc_o[8];\n+  __half acc_o[8];\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "accum.dtype_narrowed");
  // A loop bound loosened.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  for (int i = 0; i < n; ++i) x[i] = 0;\n"
      "+  for (int i = 0; i <= n; ++i) x[i] = 0;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.bound_loosened");
  // A min() clamp dropped.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  int end = min(start + kBlockN, seqlen_k);\n"
      "+  int end = start + kBlockN;\n");
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].rule, "guard.bound_loosened") << Dump(f);
  // cp.async wait loosened.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-    cp_async_wait<0>();\n+    cp_async_wait<1>();\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "sync.barrier_removed");
  EXPECT_NE(f[0].message.find("waits for 1 groups in flight instead of 0"), std::string::npos);
  // A barrier that only moved is not removed.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,4 +1,4 @@\n-  __syncthreads();\n   a = 1;\n   b = 2;\n"
      "+  __syncthreads();\n   c = 3;\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
  // A kernel signature.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,3 +1,3 @@\n __global__ void k(const float* q,\n"
      "-                  int stride_q) {\n+                  int64_t stride_q) {\n   return;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "kernel.interface_changed");
  EXPECT_EQ(f[0].checklist_item, 6);
  // Tile config as template arguments, and triton configs.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n"
      "-  using Kernel_traits = Flash_fwd_kernel_traits<Headdim, 128, 64, 4, false>;\n"
      "+  using Kernel_traits = Flash_fwd_kernel_traits<Headdim, 128, 128, 4, false>;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "tile.constant_changed");
  EXPECT_NE(f[0].message.find("template arguments 64 -> 128"), std::string::npos) << f[0].message;
  f = ReviewText(
      "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n"
      "-    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 64}, num_stages=3, num_warps=4),\n"
      "+    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128}, num_stages=2, num_warps=4),\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_NE(f[0].message.find("BLOCK_N 64 -> 128 (x2); num_stages 3 -> 2"), std::string::npos)
      << f[0].message;
  // Swapping two existing names is not a rename.
  f = ReviewText(
      "--- a/m.h\n+++ b/m.h\n@@ -1 +1 @@\n-  int causal_offset = s_k - s_q;\n+  int causal_offset "
      "= s_q - s_k;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "mask.expression_changed");
}

std::vector<ReviewCodeFile> CodeFiles(const Diff& d) {
  std::vector<ReviewCodeFile> files;
  for (const FileDiff& f : d.files) {
    ReviewCodeFile c;
    c.file = &f;
    c.language = LanguageOfPath(f.path());
    files.push_back(c);
  }
  return files;
}

// A function, type or variable renamed consistently across a diff's files raises nothing on
// lines that only carry the rename; anything else on those lines still does.
TEST(RulesTest, ConsistentRenamesAcrossFiles) {
  const std::string header =
      "--- a/m.h\n+++ b/m.h\n@@ -1,3 +1,3 @@\n"
      "-__device__ bool InWindow(int key, int seqlen_k);\n"
      "+__device__ bool KeyInRange(int key, int seqlen_k);\n"
      "-struct KeyTile {\n+struct KvTile {\n   int n;\n";
  const std::string uses =
      "--- a/k.cu\n+++ b/k.cu\n@@ -10,4 +10,4 @@ __global__ void kern(const float* q) {\n"
      "-  if (k < seqlen_k && InWindow(k, seqlen_k)) load(k);\n"
      "+  if (k < seqlen_k && KeyInRange(k, seqlen_k)) load(k);\n"
      "   x = 1;\n"
      "-  KeyTile tile = MakeTile(k < seqlen_k);\n"
      "+  KvTile tile = MakeTile(k < seqlen_k);\n"
      "   y = 2;\n";
  Diff d = ParseOk(header + uses);
  EXPECT_EQ(
      ConsistentRenames(CodeFiles(d)),
      (std::map<std::string, std::string>{{"InWindow", "KeyInRange"}, {"KeyTile", "KvTile"}}));
  std::vector<Finding> f = ReviewText(header + uses);
  EXPECT_TRUE(f.empty()) << Dump(f);

  // The same rename with the bound loosened on one call line: that line is still reported.
  f = ReviewText(header +
                 "--- a/k.cu\n+++ b/k.cu\n@@ -10 +10 @@\n"
                 "-  if (k < seqlen_k && InWindow(k, seqlen_k)) load(k);\n"
                 "+  if (k <= seqlen_k && KeyInRange(k, seqlen_k)) load(k);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.bound_loosened");
  EXPECT_EQ(f[0].file, "k.cu");

  // Not consistent: the old name is still called on the new side.
  const std::string partial = header +
                              "--- a/k.cu\n+++ b/k.cu\n@@ -10,2 +10,2 @@\n"
                              "-  if (k < seqlen_k && InWindow(k, seqlen_k)) load(k);\n"
                              "+  if (k < seqlen_k && KeyInRange(k, seqlen_k)) load(k);\n"
                              "   z = InWindow(k, seqlen_k);\n";
  d = ParseOk(partial);
  EXPECT_EQ(ConsistentRenames(CodeFiles(d)).count("InWindow"), 0u);
  f = ReviewText(partial);
  EXPECT_EQ(Keys(f).count({"mask.expression_changed", "k.cu", 10}), 1u) << Dump(f);

  // Not a rename: the new name existed before (the call switched to another function),
  // even with a declaration renamed to it.
  f = ReviewText(
      "--- a/m.h\n+++ b/m.h\n@@ -1 +1 @@\n"
      "-__device__ bool InWindow(int key, int seqlen_k);\n"
      "+__device__ bool InCausal(int key, int seqlen_k);\n"
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,2 @@\n"
      "-  if (k < seqlen_k && InWindow(k, seqlen_k)) load(k);\n"
      "+  if (k < seqlen_k && InCausal(k, seqlen_k)) load(k);\n"
      "   bool b = InCausal(k, seqlen_k);\n");
  EXPECT_EQ(Keys(f).count({"mask.expression_changed", "k.cu", 1}), 1u) << Dump(f);
  // Nor a call changed with no declaration of either name in the diff.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n"
      "-  if (k < seqlen_k && InWindow(k, seqlen_k)) load(k);\n"
      "+  if (k < seqlen_k && InWindow2(k, seqlen_k)) load(k);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);

  // A local variable renamed in its declaration and its uses in later blocks.
  const std::string local =
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,4 +1,4 @@\n"
      "-  const int limit = seqlen_k - s_q;\n+  const int last_key = seqlen_k - s_q;\n"
      "   a = 1;\n"
      "-  if (key > limit || key >= seqlen_k) continue;\n"
      "+  if (key > last_key || key >= seqlen_k) continue;\n"
      "   b = 2;\n";
  d = ParseOk(local);
  EXPECT_EQ(ConsistentRenames(CodeFiles(d)),
            (std::map<std::string, std::string>{{"limit", "last_key"}}));
  f = ReviewText(local);
  EXPECT_TRUE(f.empty()) << Dump(f);
}

// Regressions from reviewing real FlashMLA history (commits 9241ae3, 48c6dc4, 082094b):
// indexing by s_q, docstring prose a hunk starts inside, and smem pointers are not findings.
TEST(RulesTest, RealHistoryNoise) {
  // Indexing by s_q is no mask; it is a block-index remap (launch.block_index_remapped).
  auto f = ReviewText(
      "--- a/c.cu\n+++ b/c.cu\n@@ -1 +1 @@\n-  const int batch_idx = blockIdx.x;\n"
      "+  const int batch_idx = batch_s_q_idx / params.s_q;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "launch.block_index_remapped");
  EXPECT_NE(f[0].message.find("blockIdx.x is no longer read"), std::string::npos) << f[0].message;
  f = ReviewText(
      "--- a/i.py\n+++ b/i.py\n@@ -10,4 +10,4 @@ def f(x):\n     Args:\n"
      "-        x: the layout of k cache, including strides\n"
      "+        x: the layout of k cache, including the strides\n     \"\"\"\n     return x\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
  f = ReviewText(
      "--- a/p.cuh\n+++ b/p.cuh\n@@ -1 +1 @@\n-  uint32_t smem_int_ptr = "
      "cast_smem_ptr_to_uint(src);\n"
      "+  uint32_t smem_int_ptr = cast_smem_ptr_to_uint(dst);\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
  f = ReviewText(
      "--- a/s.cu\n+++ b/s.cu\n@@ -1 +1 @@\n-  int begin_n_split_idx = __ldg(p + 4);\n"
      "+  int begin_n_split_idx = *(p + 4);\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
}

// Rules added after reviewing held-out FlashMLA/DeepGEMM commits (71c7379, 261330b,
// d30fc36, 477618c, bb4424a, 79f48ee): barriers and fences added, 32-bit size arithmetic
// widened, GroupedMasked layouts, block-index remaps in CUTLASS_DEVICE code.
TEST(RulesTest, BarriersAddedWidthsAndLayouts) {
  auto f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,3 +1,5 @@ __global__ void k(float* p) {\n   a();\n"
      "+  __syncthreads();\n   b();\n+  tcgen05_after_thread_sync();\n   c();\n");
  ASSERT_EQ(f.size(), 2u) << Dump(f);
  EXPECT_EQ(f[0].rule, "sync.barrier_added");
  EXPECT_NE(f[0].message.find("every thread of the CTA"), std::string::npos) << f[0].message;
  EXPECT_NE(f[1].message.find("what does it order"), std::string::npos) << f[1].message;
  // A barrier that moved is not added.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,4 +1,4 @@\n-  __syncthreads();\n   a();\n   b();\n"
      "+  __syncthreads();\n   c();\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
  // Size arithmetic widened to 64 bits: a cast, sizeof first, a wider declaration.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  copy(p + sum_k * shape_m);\n"
      "+  copy(p + static_cast<uint64_t>(sum_k) * shape_m);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "arith.width_changed");
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  bytes += B*H*Q * sizeof(float);\n"
      "+  bytes += sizeof(float) * B*H*Q;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "arith.width_changed");
  // A size_t that was already there is no widening.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  auto ret = cudaMalloc(&p, sizeof(T) * n);\n"
      "+  size_t bytes = sizeof(T) * n;\n");
  EXPECT_EQ(Keys(f).count({"arith.width_changed", "k.cu", 1}), 0u) << Dump(f);
  // GroupedMasked is a grouped-GEMM layout, not a mask, wherever it is.
  f = ReviewText(
      "--- a/h.hpp\n+++ b/h.hpp\n@@ -1 +1 @@\n-  ok = a and gemm_type != "
      "GemmType::MGroupedMasked;\n"
      "+  ok = a and (gemm_type != GemmType::MGroupedMasked or b);\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
  // blockIdx reads in a CUTLASS_DEVICE method are a remap, not an interface change.
  f = ReviewText(
      "--- a/c.hpp\n+++ b/c.hpp\n@@ -1,3 +1,3 @@ struct Convert {\n"
      "   CUTLASS_DEVICE void copy(const float* src, Stride s) {\n"
      "-    auto p = src + get<0>(s) * blockIdx.x;\n+    auto p = src + get<0>(s) * blockIdx.y;\n"
      "   }\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "launch.block_index_remapped");
}

// Regressions from real kernel history (FlashMLA/DeepGEMM trials and the development set of
// doc/review.md), written as our own snippets: a fix is never reported as a loosened bound,
// a condition is read whole over its lines, and the question follows what changed, not the
// names on the line.
TEST(RulesTest, StatementChangesRegressions) {
  // Template brackets are not comparisons: `get<0>(...)` -> a length is a bound replaced.
  auto f = ReviewText(
      "--- a/e.hpp\n+++ b/e.hpp\n@@ -1,2 +1,2 @@ void store(int row, int m_block) {\n"
      "-  if (row < get<0>(layout.shape()) - m_block * kBlockM) { out[row] = 0; }\n"
      "+  if (row < seq.len - m_block * kBlockM) { out[row] = 0; }\n   done();\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].message.find("bound `get<0>(layout.shape()) - m_block * kBlockM` -> "
                              "`seq.len - m_block * kBlockM`"),
            std::string::npos)
      << f[0].message;
  // A term added over two lines, naming a stride and an LSE pointer: the condition, not
  // "the interface" nor "split-k combine".
  f = ReviewText(
      "--- a/e.h\n+++ b/e.h\n@@ -1,2 +1,3 @@ bool advance(int head) {\n"
      "-  if (n == 1 && k_stride == 0) {\n"
      "+  if (n == 1 && k_stride == 0 &&\n+      lse_ptr == nullptr) {\n"
      "     fold = true;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_NE(f[0].message.find("now also requires `lse_ptr == nullptr`"), std::string::npos)
      << f[0].message;
  // A tightened comparison is asked about, never called loosened.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  if (start != n) { tail(start); }\n"
      "+  if (start < n) { tail(start); }\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
  // `<` -> `<=` is still a loosened bound (an error).
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  if (i < n) { x[i] = 0; }\n"
      "+  if (i <= n) { x[i] = 0; }\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.bound_loosened");
  // An assertion reworded is not removed; one dropped is.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-  static_assert(gcd(kN, kK) == kN - kK, \"x\");\n"
      "+  static_assert(constexpr_gcd(kN, kK) == kN - kK, \"x\");\n");
  EXPECT_TRUE(f.empty()) << Dump(f);
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1 @@\n-  assert(num_iters == 1);\n   step();\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  // A wait on another barrier: the arrive side and the phase.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-    ready = try_wait(bar_addr, phase);\n"
      "+    ready = try_wait(smem_addr(&bars[stage]), phase);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "value.definition_changed");
  EXPECT_NE(f[0].message.find("Does the arrive side signal this same barrier"), std::string::npos)
      << f[0].message;
  // A stride swapped inside an expression is a definition change, not an interface change.
  f = ReviewText(
      "--- a/k.h\n+++ b/k.h\n@@ -1,2 +1,2 @@ void bwd(const Params& params) {\n"
      "-  index_t off_o = m_block * kBlockM * params.do_row_stride + h * params.o_head_stride;\n"
      "+  index_t off_o = m_block * kBlockM * params.o_row_stride + h * params.o_head_stride;\n"
      "   load(off_o);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "value.definition_changed");
  // A declared stride parameter still is the interface.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,2 @@\n void launch(float* q,\n"
      "-            int row_stride);\n+            int64_t row_stride);\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "value.definition_changed") << Dump(f);
}

// More regressions of the same kind: a loop header split over lines, a compile-time
// dispatch, a mask name on a line whose change is elsewhere, a comparison-only change in a
// call, a new early exit, a barrier-initialisation fence.
TEST(RulesTest, SplitStatementsAndExitsRegressions) {
  // The loop's bound moved to the next line with the new start: nothing was removed.
  auto f = ReviewText(
      "--- a/k.h\n+++ b/k.h\n@@ -1,3 +1,4 @@ void loop(int key) {\n"
      "-  for (int q = 0; q < num_queries;\n"
      "+  for (int q = first_query(key);\n+       q < num_queries;\n"
      "        q += kBlock) {\n     step(q);\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
  // `if constexpr (...) { return ...; }` is a compile-time choice, not an early return.
  f = ReviewText(
      "--- a/k.h\n+++ b/k.h\n@@ -1 +1 @@\n"
      "-  if constexpr (axis == 0) { return rows() * cols(); }\n"
      "+  if constexpr (axis == 0) { return (size_t)rows() * cols(); }\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.early_return_added") << Dump(f);
  // A mask name the change does not touch: the offset's stride changed, not the varlen test.
  f = ReviewText(
      "--- a/a.h\n+++ b/a.h\n@@ -1,2 +1,2 @@ void bwd(const Params& params) {\n"
      "-  off += (m + (params.cu_seqlens_q == nullptr ? 0 : 128 * b)) * params.h * params.d;\n"
      "+  off += (m + (params.cu_seqlens_q == nullptr ? 0 : 128 * b)) * row_stride;\n   use(off);\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "mask.expression_changed") << Dump(f);
  // Only a comparison changed, inside a call.
  f = ReviewText(
      "--- a/m.h\n+++ b/m.h\n@@ -1 +1 @@\n-  it.set_residual(iters == 1);\n"
      "+  it.set_residual(iters <= 1);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_NE(f[0].message.find("comparison `==` -> `<=`"), std::string::npos) << f[0].message;
  // A new branch that returns when a row index passes the length.
  f = ReviewText(
      "--- a/k.h\n+++ b/k.h\n@@ -1,2 +1,3 @@ void tile(int begin) {\n   int steps = n - begin;\n"
      "+  if (begin * kM >= seqlen_q) return;\n   load(begin);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_NE(f[0].message.find("new early exit (`return`) when `begin * kM >= seqlen_q`"),
            std::string::npos)
      << f[0].message;
  // A barrier-initialisation fence is asked about the sync after it, not a wait's phase.
  f = ReviewText(
      "--- a/p.hpp\n+++ b/p.hpp\n@@ -1,2 +1,3 @@ void init(Storage& s) {\n   init_barriers(s);\n"
      "+  cutlass::arch::fence_barrier_init();\n }\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "sync.barrier_added");
  EXPECT_NE(f[0].message.find("Does a CTA or cluster sync follow it"), std::string::npos)
      << f[0].message;
}

// Widening by a literal suffix, a layout chosen by the element type's size, a CuTe shape
// built differently (diff-only: the device-signature case needs whole files, see
// ReviewPatterns).
TEST(RulesTest, LiteralWidthsTypeChoicesAndShapes) {
  auto f = ReviewText(
      "--- a/k.h\n+++ b/k.h\n@@ -1 +1 @@\n-  off += (m + 128 * bidb) * row_stride;\n"
      "+  off += (m + 128ll * bidb) * row_stride;\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "arith.width_changed");
  f = ReviewText(
      "--- a/p.cuh\n+++ b/p.cuh\n@@ -1 +1 @@\n"
      "-  constexpr bool kSplit = (sizeof(DTypeKV) == 2) && (HEAD_DIM >= 512);\n"
      "+  constexpr bool kSplit = (sizeof(DTypeKV) <= 2) && (HEAD_DIM >= 512);\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_NE(f[0].message.find("on a type's size"), std::string::npos) << f[0].message;
  f = ReviewText(
      "--- a/m.hpp\n+++ b/m.hpp\n@@ -1 +1,2 @@\n"
      "-  Tensor mV = make_tensor(make_gmem_ptr(ptr_V), shape_K, stride_V);\n"
      "+  auto shape_V = make_shape(headdim_v, get<0>(shape_K), get<2>(shape_K));\n"
      "+  Tensor mV = make_tensor(make_gmem_ptr(ptr_V), shape_V, stride_V);\n");
  ASSERT_FALSE(f.empty()) << Dump(f);
  EXPECT_EQ(f[0].rule, "kernel.interface_changed");
  EXPECT_NE(f[0].message.find("Do its shape and its stride"), std::string::npos) << f[0].message;
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
}

// Word rules ask less: a bit or lane mask is not an attention mask, a partial warp is not a
// split, a warp reduction is not a combine, a divisibility test is not empty work, and a
// condition rewritten into other tests is asked about, not called a removed bounds check.
TEST(RulesTest, WordRulesAskLess) {
  auto f = ReviewText(
      "--- a/r.cuh\n+++ b/r.cuh\n@@ -1,2 +1,2 @@ __device__ float warpReduceSum(float v) {\n"
      "-  v += __shfl_xor_sync(FINAL_MASK, v, 16, 32);\n"
      "+  v += __shfl_xor_sync(kFullWarpMask, v, 16, kWarpSize);\n   return v;\n");
  for (const Finding& x : f) {
    EXPECT_NE(x.rule, "mask.expression_changed") << Dump(f);
    EXPECT_NE(x.rule, "splitk.combine_changed") << Dump(f);
  }
  f = ReviewText(
      "--- a/r.cuh\n+++ b/r.cuh\n@@ -1,2 +1,2 @@ __device__ float blockReduceSum(float v) {\n"
      "-  bool is_mask = threadIdx.x < (blockDim.x >> 5);\n"
      "+  bool is_mask = threadIdx.x < warp_count;\n   use(is_mask);\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "mask.expression_changed") << Dump(f);
  f = ReviewText(
      "--- a/r.cuh\n+++ b/r.cuh\n@@ -1,2 +1,3 @@ __device__ float blockReduceSum(float v) {\n"
      "+  bool is_partial_warp = tail_lanes != 0 && wid == warp_count - 1;\n"
      "   int lane = threadIdx.x & 31;\n   return v;\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "splitk.combine_changed") << Dump(f);
  f = ReviewText(
      "--- a/ops.py\n+++ b/ops.py\n@@ -1,2 +1,4 @@ def supports(d):\n"
      "+    if (d.k % pack) == 0 and (d.k // pack) <= buffer_size:\n+        return True\n"
      "     x = 1\n     return False\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.early_return_added") << Dump(f);
  f = ReviewText(
      "--- a/p.h\n+++ b/p.h\n@@ -1,3 +1,3 @@ void init(Options& o) {\n"
      "-  if (!isPaged(o.layout) && !isContiguous(o.layout) && stride < 0) {\n"
      "+  if (isSeparate(o.layout)) {\n     stride = 0;\n   }\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].message.find("condition rewritten"), std::string::npos) << f[0].message;
}

// A ternary's test split over lines or moved into a named bool is not removed; a shift is no
// comparison; a strict comparison between two values asks about ties.
TEST(RulesTest, TernariesShiftsAndTies) {
  auto f = ReviewText(
      "--- a/u.h\n+++ b/u.h\n@@ -1,2 +1,4 @@ __device__ void update(float* frag, int col) {\n"
      "-  frag[0] = (col < max_col) ? expf(frag[0]) : 0.f;\n"
      "+  frag[0] = (kFull || col < max_col)\n+      ? expf(frag[0])\n+      : 0.f;\n   done();\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
  f = ReviewText(
      "--- a/s.cuh\n+++ b/s.cuh\n@@ -1,2 +1,3 @@ __device__ void pick(float* d, int i) {\n"
      "-  d[0] = i < n ? v[i] : -INF;\n"
      "+  const bool valid = i < n;\n+  d[0] = valid ? v[i] : -INF;\n   done();\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
  f = ReviewText(
      "--- a/r.cuh\n+++ b/r.cuh\n@@ -1,2 +1,2 @@ __device__ void reduce(int t) {\n"
      "-  bool lead = threadIdx.x < (blockDim.x >> 5);\n"
      "+  bool lead = threadIdx.x < warp_count;\n   use(lead);\n");
  for (const Finding& x : f) EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
  f = ReviewText(
      "--- a/t.hpp\n+++ b/t.hpp\n@@ -1,2 +1,2 @@ void insert(float* a, float b) {\n"
      "-  for (int k = 0; k < 4; ++k) { if (a[k] <= b) { a[k] = b; } }\n"
      "+  for (int k = 0; k < 4; ++k) { if (a[k] < b) { a[k] = b; } }\n   done();\n");
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "guard.condition_changed");
  EXPECT_NE(f[0].message.find("equal values now take the other path"), std::string::npos)
      << f[0].message;
}

TEST(CodeTextTest, WordsAndComments) {
  EXPECT_EQ(IdentifierWords("kNumSplits"), (std::vector<std::string>{"k", "num", "splits"}));
  EXPECT_EQ(IdentifierWords("cu_seqlens_k"), (std::vector<std::string>{"cu", "seqlens", "k"}));
  EXPECT_EQ(IdentifierWords("HTTPServer"), (std::vector<std::string>{"http", "server"}));
  CommentStripper cpp(SourceLanguage::kCpp);
  EXPECT_EQ(cpp.Strip("int a; /* open"), "int a;");
  EXPECT_EQ(cpp.Strip("   still comment"), "");
  EXPECT_EQ(cpp.Strip("close */ int b; // tail"), "int b;");
  EXPECT_EQ(cpp.Strip("s = \"// not a comment\";"), "s = \"// not a comment\";");
  CommentStripper py(SourceLanguage::kPython);
  EXPECT_EQ(py.Strip("x = 1  # note"), "x = 1");
  EXPECT_EQ(py.Strip("    \"\"\"Doc"), "");
  EXPECT_EQ(py.Strip("    more doc"), "");
  EXPECT_EQ(py.Strip("    \"\"\""), "");
  EXPECT_EQ(py.Strip("y = '#'"), "y = '#'");
  EXPECT_TRUE(IsTestOrDocPath("tests/test_x.py"));
  EXPECT_TRUE(IsTestOrDocPath("csrc/attn_test.cu"));
  EXPECT_TRUE(IsTestOrDocPath("README.md"));
  EXPECT_FALSE(IsTestOrDocPath("csrc/flash_fwd.cu"));
  EXPECT_EQ(LanguageOfPath("a/b.cuh"), SourceLanguage::kCpp);
  EXPECT_EQ(LanguageOfPath("a/b.py"), SourceLanguage::kPython);
  EXPECT_EQ(LanguageOfPath("CMakeLists.txt"), SourceLanguage::kOther);
}

TEST(RulesTest, RuleTableIsComplete) {
  std::set<std::string> ids;
  for (const RuleInfo& r : BuiltinRules()) {
    EXPECT_TRUE(ids.insert(std::string(r.id)).second) << r.id;
    EXPECT_GE(r.checklist_item, 1);
    EXPECT_LE(r.checklist_item, 8);
    EXPECT_NE(ParseSeverity(SeverityName(r.severity)), std::nullopt);
  }
  EXPECT_EQ(ids.size(), 28u);
}

}  // namespace
}  // namespace av
