// The rules that read a statement whole (guard.condition_changed in
// rules_condition_changed.cc, value.definition_changed in rules_definition_changed.cc), and
// the word rules that must ask less: regressions from real kernel history written as our
// own snippets.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "review/rules_test_util.h"

namespace av {
namespace {

using namespace rules_test;  // NOLINT

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

}  // namespace
}  // namespace av
