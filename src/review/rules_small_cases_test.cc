// Small inline diffs, one rule each: shared memory, accumulators, guards, consistent
// renames across files, real-history noise, barriers added, widths and layouts.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "review/rules_test_util.h"

namespace av {
namespace {

using namespace rules_test;  // NOLINT

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
  // `bar.sync` respelt `barrier.sync` (the same PTX barrier, bar.sync being its .aligned
  // form) is no barrier removed; a barrier.sync dropped still is.
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,2 @@\n"
      "-  asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n));\n"
      "+  asm volatile(\"barrier.sync %0, %1;\" :: \"r\"(id), \"r\"(n));\n"
      "-  asm volatile(\"bar.arrive 1, 256;\");\n+  asm volatile(\"barrier.arrive 1, 256;\");\n");
  EXPECT_EQ(Find(f, "sync.barrier_removed"), nullptr) << Dump(f);
  // A named barrier's id re-numbered is a named-barrier question, not a wait for "1 groups".
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n"
      "-  asm volatile(\"bar.sync 0, %0;\" :: \"r\"(n));\n"
      "+  asm volatile(\"barrier.sync 1, %0;\" :: \"r\"(n));\n");
  EXPECT_EQ(Find(f, "sync.barrier_removed"), nullptr) << Dump(f);
  f = ReviewText(
      "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,1 @@\n"
      "-  asm volatile(\"barrier.sync %0, %1;\" :: \"r\"(id), \"r\"(n));\n   x = 1;\n");
  EXPECT_NE(Find(f, "sync.barrier_removed"), nullptr) << Dump(f);
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

TEST(RulesTest, AnIndexMovedIntoANewLocalIsTheSameValue) {
  // One hunk over q.cu, its header counted from the body.
  auto diff = [](const std::string& body) {
    const std::string lines =
        " __global__ void scale_kernel(const float* in, float* out, int rows, int cols) {\n"
        "   int row = blockIdx.x;\n   int col = threadIdx.x;\n" + body;
    int old_count = 0, new_count = 0;
    for (size_t at = 0; at < lines.size(); at = lines.find('\n', at) + 1) {
      old_count += lines[at] != '+';
      new_count += lines[at] != '-';
    }
    return "--- a/q.cu\n+++ b/q.cu\n@@ -1," + std::to_string(old_count) + " +1," +
           std::to_string(new_count) + " @@\n" + lines;
  };
  // The whole index moved into a 64-bit local: the same element, no new value to ask about.
  auto f = ReviewText(diff("+  uint64_t at = (uint64_t)row * cols + col;\n"
                      "+  uint64_t out_at = static_cast<uint64_t>(row) * cols + col;\n"
                      "-  float v = in[row * cols + col];\n+  float v = in[at];\n"
                      "-  out[row * cols + col] = v * 2.0f;\n+  out[out_at] = v * 2.0f;\n"
                      " }\n"));
  EXPECT_EQ(Find(f, "value.definition_changed"), nullptr) << Dump(f);
  // The local lost an operand on the way (`cols`): the element read changed, still asked.
  f = ReviewText(diff("+  uint64_t at = (uint64_t)row + col;\n"
                 "-  float v = in[row * cols + col];\n+  float v = in[at];\n"
                 "   out[row] = v;\n }\n"));
  const Finding* changed = Find(f, "value.definition_changed");
  ASSERT_NE(changed, nullptr) << Dump(f);
  EXPECT_NE(changed->message.find("`float v = in[row * cols + col];` -> `float v = in[at];`"),
            std::string::npos)
      << changed->message;
  // A difference spliced between `[` and `]` keeps its meaning; a local read next to `*` is
  // not spliced (`2 * at` is not `2 * row * cols - col`).
  f = ReviewText(diff("+  int at = row * cols - col;\n"
                      "-  float v = in[row * cols - col];\n+  float v = in[at];\n"
                      "-  float w = in[2 * row * cols - col];\n+  float w = in[2 * at];\n"
                      "   out[row] = v + w;\n }\n"));
  const Finding* doubled = Find(f, "value.definition_changed");
  ASSERT_NE(doubled, nullptr) << Dump(f);
  EXPECT_EQ(doubled->line, 6) << Dump(f);
  int definitions = 0;
  for (const Finding& x : f) definitions += x.rule == "value.definition_changed";
  EXPECT_EQ(definitions, 1) << Dump(f);
}

}  // namespace
}  // namespace av
