// The question follows what changed in a statement — a bound moved, a test kept in a name, a
// predicate's answer, a value written, a stride passed, an exit removed, a kernel's
// compile-time argument — never a word in a name. Our own snippets, each the shape of a
// change seen in real kernel history (doc/review.md, "Measured on real history").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "review/rules_test_util.h"

namespace av {
namespace {

using namespace rules_test;  // NOLINT

// One hunk of `path` inside `function`: context lines (" "), removed ("-") and added ("+")
// lines in order, with the header's counts computed.
std::string Hunk(const std::string& path, const std::string& function,
                 const std::vector<std::string>& lines) {
  int old_n = 0, new_n = 0;
  std::string body;
  for (const std::string& l : lines) {
    old_n += l[0] != '+';
    new_n += l[0] != '-';
    body += l + "\n";
  }
  return "--- a/" + path + "\n+++ b/" + path + "\n@@ -1," + std::to_string(old_n) + " +1," +
         std::to_string(new_n) + " @@ " + function + "\n" + body;
}

bool Says(const Finding* f, const std::string& text) {
  return f != nullptr && f->message.find(text) != std::string::npos;
}

TEST(WhatChanged, ANegatedConditionSwapsItsBranches) {
  // `if (last)` -> `if (!last)` around a post and a wait: the same terms on both sides, so
  // only the flip says what changed.
  auto f = ReviewText(Hunk("k.cuh", "__device__ void finish(int split, bool last, int* flags) {",
                           {"-  if (last) {", "+  if (!last) {", "     post(&flags[split]);",
                            "   } else {", "     wait_all(flags, split);", "   }"}));
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_TRUE(Says(c, "condition negated: `if (last) {` -> `if (!last) {`")) << c->message;
  EXPECT_EQ(c->severity, Severity::kWarning);
  // `!(a && b)` of `a && b` too; a term dropped is not a negation.
  f = ReviewText(Hunk("k.cuh", "__device__ void g(bool a, bool b) {",
                      {"-  if (a && b) {", "+  if (!(a && b)) {", "     go();", "   }"}));
  EXPECT_TRUE(Says(Find(f, "guard.condition_changed"), "condition negated")) << Dump(f);
  f = ReviewText(Hunk("k.cuh", "__device__ void g(bool a, bool b) {",
                      {"-  if (a && b) {", "+  if (a) {", "     go();", "   }"}));
  EXPECT_FALSE(Says(Find(f, "guard.condition_changed"), "condition negated")) << Dump(f);
}

TEST(WhatChanged, StridesPassedWithATernaryAreStillStrides) {
  // An argument list whose entries hold a ternary (`!varlen ? a : 0`) is no branch: the new
  // strides it passes are asked about.
  auto f = ReviewText(Hunk("launch.h", "void run(Params& params) {",
                           {"   Args args{ptr,",
                            "-      {_1{}, seqlen, !varlen ? heads * seqlen : 0},",
                            "+      {_1{}, params.lse_head_stride, !varlen ? params.lse_batch_stride : 0},",
                            "       heads};"}));
  const Finding* d = Find(f, "value.definition_changed");
  ASSERT_NE(d, nullptr) << Dump(f);
  EXPECT_TRUE(Says(d, "strides passed:")) << d->message;
  EXPECT_TRUE(Says(d, "the tensor is now described with `lse_batch_stride`")) << d->message;
}

TEST(WhatChanged, ACheckMacroRemovedIsAnAssertionRemoved) {
  // `TM_CHECK_EQ(...)`, `FT_CHECK(...)`, `CHECK_SHAPE(...)`: project check macros refuse
  // inputs like assert does; one removed and not made again lets those inputs run.
  auto f = ReviewText(Hunk("cast.cu", "Tensor convert(const Tensor& scales) {",
                           {"-  TM_CHECK_EQ(scales.dtype(), kFloat32);", "   auto out = make(scales);",
                            "   return out;"}));
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_TRUE(Says(c, "assertion `TM_CHECK_EQ(scales.dtype(), kFloat32);` removed")) << c->message;
  // Re-indented, it is the same check: nothing.
  f = ReviewText(Hunk("cast.cu", "Tensor convert(const Tensor& scales) {",
                      {"-  CHECK_SHAPE(scales, rows, cols);", "+    CHECK_SHAPE(scales, rows, cols);",
                       "   return scales;"}));
  EXPECT_EQ(Find(f, "guard.condition_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, ALineOfChecksCountsCheckByCheck) {
  // `CHECK_DEVICE(q); CHECK_DEVICE(k); CHECK_DEVICE(v);` split over lines, `v`'s check left
  // out: only that one is removed.
  auto f = ReviewText(Hunk("api.cpp", "void fwd(Tensor q, Tensor k, Tensor v) {",
                           {"-  CHECK_DEVICE(q); CHECK_DEVICE(k); CHECK_DEVICE(v);",
                            "+  CHECK_DEVICE(q);", "+  CHECK_DEVICE(k);", "   run(q, k, v);"}));
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_TRUE(Says(c, "assertion `CHECK_DEVICE(v);` removed")) << c->message;
  EXPECT_FALSE(Says(c, "CHECK_DEVICE(q)")) << c->message;
}

TEST(WhatChanged, AFunctionSwappedInsideAnArgumentOrACheckIsNoArgumentChange) {
  // `gcd(a, b)` -> `constexpr_gcd(a, b)` passes the same value; an assertion macro's test is
  // the condition rules' question.
  auto f = ReviewText(Hunk("k.cuh", "__device__ void tile(int n, int k) {",
                           {"-  launch_tiles(n, gcd(n, k), k);", "+  launch_tiles(n, constexpr_gcd(n, k), k);",
                            "-  DG_STATIC_ASSERT(n == 1 or gcd(n, k) == n, \"bad\");",
                            "+  DG_STATIC_ASSERT(n == 1 or constexpr_gcd(n, k) == n, \"bad\");"}));
  EXPECT_EQ(Find(f, "call.argument_changed"), nullptr) << Dump(f);
  // Another value in the same place is asked.
  f = ReviewText(Hunk("k.cuh", "__device__ void tile(int n, int k) {",
                      {"-  launch_tiles(n, gcd(n, k), k);", "+  launch_tiles(n, gcd(k, n) + 1, k);"}));
  EXPECT_NE(Find(f, "call.argument_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, ALongTemplateArgumentListComparesNothing) {
  // A traits type of many arguments nested in a launcher's template list (more than 16
  // tokens): its angle brackets are no comparisons, so the causal flag passed on asks nothing.
  auto f = ReviewText(Hunk("launch.h", "void run_dispatch(Params& params, cudaStream_t stream) {",
                           {"-    run_fwd<Traits<Headdim, kBlockM, kBlockN, 4, false, false, T>, Is_causal>(params, stream);",
                            "+    run_fwd<Traits<Headdim, kBlockM, kBlockN_even, 4, false, false, T>, Is_causal>(params, stream);"}));
  EXPECT_EQ(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, ABoundMovedIntoTheLoopIsNotARemovedBoundsCheck) {
  // `for (i = begin + t; i < end; ...)` -> `for (t = ...; t < N; ...) if (begin + t < end)`:
  // the bound is tested again; no error claims it was removed.
  auto f = ReviewText(Hunk("k.cuh", "__device__ void store(int* cnt, int begin, int end) {",
                           {"-  for (int i = begin + threadIdx.x; i < end; i += 128) {",
                            "-    cnt[i] = 1;", "-  }",
                            "+  for (int t = threadIdx.x; t < kRows; t += 128) {",
                            "+    if (begin + t < end) { cnt[begin + t] = 1; }", "+  }",
                            "   done();"}));
  for (const Finding& x : f) {
    EXPECT_NE(x.severity, Severity::kError) << Dump(f);
    EXPECT_NE(x.rule, "guard.bound_loosened") << Dump(f);
    EXPECT_NE(x.rule, "guard.boundary_changed") << Dump(f);  // a loop header, no edge branch
  }
  // The bound really gone: still the error.
  f = ReviewText(Hunk("k.cuh", "__device__ void store(int* cnt, int begin, int end) {",
                      {"-  for (int i = begin + threadIdx.x; i < end; i += 128) {",
                       "+  for (int i = begin + threadIdx.x;; i += 128) {", "     cnt[i] = 1;",
                       "   }"}));
  ASSERT_NE(Find(f, "guard.bound_loosened"), nullptr) << Dump(f);
  EXPECT_EQ(Find(f, "guard.bound_loosened")->severity, Severity::kError);
}

TEST(WhatChanged, AProductIsNotAPointerDeclarationSoASwappedFactorIsReviewed) {
  // `(n + A - 1) / A * A;` declares nothing: swapping A for B is a new value, not a rename.
  auto f = ReviewText(Hunk("k.cu", "void pad(int n) {",
                           {"   int padded;", "-  padded = (n + kTile - 1) / kTile * kTile;",
                            "+  padded = (n + kPad - 1) / kPad * kPad;",
                            "   alloc(padded);"}));
  ASSERT_EQ(f.size(), 1u) << Dump(f);
  EXPECT_EQ(f[0].rule, "value.definition_changed");
}

TEST(WhatChanged, AStoredValueIsAskedAboutItsReadersNotItsAddress) {
  auto f = ReviewText(Hunk("k.cu", "__global__ void attn(float* lse_out) {",
                           {"-  lse_out[0] = log2f(den) + row_max;",
                            "+  lse_out[0] = log2f(den) + row_max - kOffset;", "   done();"}));
  const Finding* d = Find(f, "value.definition_changed");
  ASSERT_NE(d, nullptr) << Dump(f);
  EXPECT_TRUE(Says(d, "the value written changed (now also reads `kOffset`)")) << d->message;
  EXPECT_FALSE(Says(d, "which element does it address")) << d->message;
}

TEST(WhatChanged, ATestKeptInANameWithItsBoundReplaced) {
  auto f = ReviewText(Hunk("sched.cuh", "__device__ bool next(State& state) {",
                           {"-  const int live = idx < count_;",
                            "+  const int live = idx < state.count;", "   if (live) {"}));
  const Finding* d = Find(f, "value.definition_changed");
  ASSERT_NE(d, nullptr) << Dump(f);
  EXPECT_TRUE(Says(d, "`live` now tests `idx < state.count` (bound `count_` -> `state.count`)"))
      << d->message;
  EXPECT_TRUE(Says(d, "Can the new bound lie beyond the old one")) << d->message;
}

TEST(WhatChanged, APredicateWhoseAnswerChanged) {
  auto f = ReviewText(Hunk("k.h", "__device__ static bool separate(int splits) {",
                           {"-  return true;", "+  return splits > 1;", " }"}));
  const Finding* d = Find(f, "value.definition_changed");
  ASSERT_NE(d, nullptr) << Dump(f);
  EXPECT_TRUE(Says(d, "now returns `splits > 1` (was `true`)")) << d->message;
  // `x` -> `x != 0` answers the same: nothing to ask.
  f = ReviewText(Hunk("k.h", "__device__ bool valid() const {",
                      {"-  return flag;", "+  return flag != 0;", " }"}));
  EXPECT_EQ(Find(f, "value.definition_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, AnOffsetFunctionThatNowAddsATerm) {
  auto f = ReviewText(Hunk("layout.h", "int param_offset(int head, int token) const {",
                           {"-  return head_param(head) + token_param(token);",
                            "+  return data_end() + head_param(head) + token_param(token);",
                            " }"}));
  const Finding* d = Find(f, "value.definition_changed");
  ASSERT_NE(d, nullptr) << Dump(f);
  EXPECT_TRUE(Says(d, "now also reading `data_end`")) << d->message;
  EXPECT_TRUE(Says(d, "every caller gets the new offset or size")) << d->message;
}

TEST(WhatChanged, AnOrTermDroppedThatGotItsOwnBranch) {
  auto f = ReviewText(Hunk("api.cpp", "void setup(bool paged, bool swapped) {",
                           {"-  if (paged || swapped) {", "+  if (swapped) {",
                            "     alloc_accum();", "+  } else if (paged) {",
                            "+    check_one_split();", "   }"}));
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_TRUE(Says(c, "no longer taken when only `paged` holds (it has its own branch at line 3"))
      << c->message;
}

TEST(WhatChanged, AnEarlyExitRemoved) {
  auto f = ReviewText(Hunk("k.cu", "__device__ void finish(int* out, bool sep) {",
                           {"   write_partial(out);", "-  if (sep) {", "-    return;", "-  }",
                            "   reduce(out);"}));
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_TRUE(Says(c, "early `return` removed (it left when `if (sep) {`)")) << c->message;
}

TEST(WhatChanged, AKernelInstantiatedWithAnotherNumberUnderTheSameLaunch) {
  auto f = ReviewText(Hunk("q.cu", "void launch(dim3 grid, dim3 block) {",
                           {"-  ScaleKernel<64, false><<<grid, block>>>(in, out);",
                            "+  ScaleKernel<128, false><<<grid, block>>>(in, out);", " }"}));
  const Finding* g = Find(f, "launch.grid_changed");
  ASSERT_NE(g, nullptr) << Dump(f);
  EXPECT_TRUE(Says(g, "instantiated with `128` where it had `64`, with the same grid and block"))
      << g->message;
  // Another kernel under the same launch is a swapped kernel, not a launch change.
  f = ReviewText(Hunk("q.cu", "void launch(dim3 grid, dim3 block) {",
                      {"-  OldKernel<64><<<grid, block>>>(in, out);",
                       "+  NewKernel<64><<<grid, block>>>(in, out);", " }"}));
  EXPECT_EQ(Find(f, "launch.grid_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, SharedMemoryCastsAndTheAttributeRemoved) {
  // A buffer cast to another op's storage declares no shared memory.
  auto f = ReviewText(Hunk("a.h", "__device__ void reduce(char* smem_buf) {",
                           {"-  run(*(typename Reduce::SharedStorage*)smem_buf);",
                            "+  run(*(typename ReduceOp::SharedStorage*)smem_buf);", " }"}));
  EXPECT_EQ(Find(f, "smem.declaration_changed"), nullptr) << Dump(f);
  // The attribute no longer set: asked as such, not as "does it still fit".
  f = ReviewText(Hunk("d.h", "bool invoke(const Params& p) {",
                      {"-  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);",
                       "   k<<<grid, block, kSmem>>>(p);"}));
  const Finding* s = Find(f, "smem.declaration_changed");
  ASSERT_NE(s, nullptr) << Dump(f);
  EXPECT_TRUE(Says(s, "the dynamic shared-memory attribute is no longer set here")) << s->message;
}

TEST(WhatChanged, StridesPassedInAnArgumentList) {
  auto f = ReviewText(Hunk("launch.h", "void run(Params& params) {",
                           {"   Args args{ptr,", "-    {_1{}, seqlen_q, params.h * seqlen_q},",
                            "+    {_1{}, params.acc_head_stride, params.acc_batch_stride},",
                            "   };"}));
  const Finding* d = Find(f, "value.definition_changed");
  ASSERT_NE(d, nullptr) << Dump(f);
  EXPECT_TRUE(Says(d, "strides passed")) << d->message;
}

TEST(WhatChanged, WordRulesAskOnlyWhenTheEditTouchesTheirSubject) {
  // A combine launcher gains a stream argument: nothing about how partials combine.
  auto f = ReviewText(Hunk("attn.cu", "void run_attention(Params& p) {",
                           {"-  launch_combine(p.partial_o, p.lse);",
                            "+  launch_combine(p.partial_o, p.lse, stream);", " }"}));
  EXPECT_EQ(Find(f, "splitk.combine_changed"), nullptr) << Dump(f);
  // The LSE's own arithmetic changed: asked.
  f = ReviewText(Hunk("attn.cu", "__device__ void merge(float* lse) {",
                      {"-  lse[i] = logf(sum) + m;", "+  lse[i] = log2f(sum) + m;", " }"}));
  EXPECT_NE(Find(f, "splitk.combine_changed"), nullptr) << Dump(f);
  // A function named for a mask whose edit compares nothing: no mask question.
  f = ReviewText(Hunk("attn.cu", "__device__ void apply_causal_mask(float* s, int n) {",
                      {"-  prefetch(s, n);", "+  prefetch(s, n, 2);", " }"}));
  EXPECT_EQ(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, ARefusalRemovedIsNoBoundsCheck) {
  // A test that raised for unsupported inputs is gone: those inputs run now. A warning that
  // says so, never "bounds check removed" at error severity.
  auto f = ReviewText(Hunk("iface.py", "def backward_fake(q, k, arch):",
                           {"     is_local = False", "-    if arch < 90:",
                            "-        raise ValueError(f\"unsupported {arch=}\")", "-",
                            "     block_m = 128"}));
  EXPECT_EQ(Find(f, "guard.bound_loosened"), nullptr) << Dump(f);
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_TRUE(Says(c, "check removed: `if arch < 90:`")) << c->message;
}

TEST(WhatChanged, APythonConfigurationTestRemovedIsNoBoundsCheck) {
  // Host Python tests configuration against literals: removing such a test changes which
  // path runs, it lets no index past an end. An order between two varying values still is
  // a bound.
  auto f = ReviewText(Hunk("router.py", "def select(self, logits):",
                           {"     use_fused = False",
                            "-    if self.n_groups <= 0 and self.mode == 'sigmoid' and len(self.ids) > 0:",
                            "-        use_fused = True", "     return use_fused"}));
  EXPECT_EQ(Find(f, "guard.bound_loosened"), nullptr) << Dump(f);
  f = ReviewText(Hunk("sched.py", "def blocks(n_block_min, n_block_max):",
                      {"     out = []", "-    if n_block_min < n_block_max:",
                       "-        out.append(n_block_min)", "     return out"}));
  const Finding* g = Find(f, "guard.bound_loosened");
  ASSERT_NE(g, nullptr) << Dump(f);
  EXPECT_EQ(g->severity, Severity::kError);
}

TEST(WhatChanged, PresenceTestsAndTileHeuristicsAreNoMaskChange) {
  // Whether an optional varlen input was passed selects a path; a stage count chosen with
  // `causal` among its inputs is a configuration. Neither compares a position with a bound.
  auto f = ReviewText(Hunk("attn_varlen.py", "def attention_fwd(q, k, cu_seqlens=None):",
                           {"     out = q", "+    if cu_seqlens is not None:",
                            "+        out = out.contiguous()", "     return out"}));
  EXPECT_EQ(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
  f = ReviewText(Hunk("attn.py", "def attention_fwd(q, k, causal):",
                      {"     D = q.shape[-1]", "+    num_stages = 1 if D <= 64 else (2 if not causal else 1)",
                       "     return D"}));
  EXPECT_EQ(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
  // A window bound compared with a position is still asked.
  f = ReviewText(Hunk("attn.py", "def attention_fwd(q, k, causal):",
                      {"     D = q.shape[-1]", "+    keep = cols <= rows + window_size", "     return D"}));
  EXPECT_NE(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, AStreamAddedToALaunchIsAskedAsTheStream) {
  // Grid, block and shared memory unchanged: only the stream is new. Not "the dynamic shared
  // memory changes".
  auto f = ReviewText(Hunk("launch.cu", "void launch(Args a, cudaStream_t stream) {",
                           {"-  gemm_kernel<<<blocks, THREADS, SHARED_MEM>>>(a);",
                            "+  gemm_kernel<<<blocks, THREADS, SHARED_MEM, stream>>>(a);", " }"}));
  const Finding* g = Find(f, "launch.grid_changed");
  ASSERT_NE(g, nullptr) << Dump(f);
  EXPECT_TRUE(Says(g, "only the stream the kernel is launched on changes")) << g->message;
  EXPECT_FALSE(Says(g, "dynamic shared memory")) << g->message;
  f = ReviewText(Hunk("launch.cu", "void launch(Args a, cudaStream_t stream) {",
                      {"-  gemm_kernel<<<blocks, THREADS, SHARED_MEM, stream>>>(a);",
                       "+  gemm_kernel<<<blocks, THREADS, 2 * SHARED_MEM, stream>>>(a);", " }"}));
  g = Find(f, "launch.grid_changed");
  ASSERT_NE(g, nullptr) << Dump(f);
  EXPECT_TRUE(Says(g, "the dynamic shared memory the launch passes changes")) << g->message;
}

TEST(WhatChanged, AParameterListLineDeclaresOnlyItsLastParameter) {
  // `void* workspace, int groupsize = -1,` -> `int groupsize = -1,`: groupsize is still an
  // int; the parameter removed before it is not its old type.
  auto f = ReviewText(Hunk("api.cc", "int mul(const Tensor& A,",
                           {"-    void* workspace, int groupsize = -1,", "+    int groupsize = -1,",
                            "     int thread_k = -1) {"}));
  for (const Finding& x : f) EXPECT_FALSE(Says(&x, "is now declared")) << Dump(f);
}

TEST(WhatChanged, AStructMemberArrayWidenedAsksAboutTheKernelParameterLimit) {
  auto f = ReviewText(Hunk("meta.cuh", "struct TensorListMetadata {",
                           {"   void* addresses[4][36];", "-  int sizes[36];", "+  int64_t sizes[36];",
                            "   int block_to_tensor[320];"}));
  const Finding* w = Find(f, "arith.width_changed");
  ASSERT_NE(w, nullptr) << Dump(f);
  EXPECT_TRUE(Says(w, "4 KB parameter limit")) << w->message;
  // A local read from such an array is no member.
  f = ReviewText(Hunk("adam.cu", "__device__ void step(const Meta& tl, int loc) {",
                      {"-  int n = tl.sizes[loc];", "+  int64_t n = tl.sizes[loc];", "   use(n);"}));
  w = Find(f, "arith.width_changed");
  ASSERT_NE(w, nullptr) << Dump(f);
  EXPECT_FALSE(Says(w, "4 KB")) << w->message;
}

TEST(WhatChanged, ACastFollowedByPlusHasLostAnOperand) {
  // `(uint64_t)row * (uint64_t) + (uint64_t)column`: the columns count fell out of a widened
  // index; the cast applies to `+column`.
  auto f = ReviewText(Hunk("quantize.cu", "__global__ void quantize_kernel(const float* input) {",
                           {"-  float x = input[row * columns + column];",
                            "+  uint64_t idx = (uint64_t)row * (uint64_t) + (uint64_t)column;",
                            "+  float x = input[idx];", "   x /= s;"}));
  const Finding* w = nullptr;
  for (const Finding& x : f) {
    if (x.rule == "arith.width_changed" && Says(&x, "casts the unary plus")) w = &x;
  }
  ASSERT_NE(w, nullptr) << Dump(f);
  EXPECT_TRUE(Says(w, "this reads `row * (uint64_t)(+...)`")) << w->message;
  // A cast of a whole operand (`(uint64_t)row * cols + col`) is no such thing.
  f = ReviewText(Hunk("quantize.cu", "__global__ void quantize_kernel(const float* input) {",
                      {"-  float x = input[row * columns + column];",
                       "+  float x = input[(uint64_t)row * columns + column];", "   x /= s;"}));
  for (const Finding& x : f) EXPECT_FALSE(Says(&x, "unary plus")) << Dump(f);
}

TEST(WhatChanged, ANumberReplacedByANameOfTheSameValueIsNoTileChange) {
  // Whole files: `BLOCK_SIZE = 1024` is defined in the file, so `1024` -> `BLOCK_SIZE` is the
  // same tile. Without the definition nothing can be told and nothing is asked.
  auto f = ReviewText(Hunk("geglu.py", "def geglu_forward(gate, up):",
                           {"     n = gate.numel()", "-    BLOCK_SIZE = 1024,", "+    BLOCK_SIZE = BLOCK,",
                            "     return n"}));
  EXPECT_EQ(Find(f, "tile.constant_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, AChoiceOnWhetherAnInputWasPassedIsNoMaskChange) {
  auto f = ReviewText(Hunk("cache.py", "def store_kv_state(self, block_table):",
                           {"-        block_table if block_table is not None else none_tensor)",
                            "+        block_table if block_table is not None else none_tensor,",
                            "     )"}));
  EXPECT_EQ(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, APythonBoundTestChangedInPlaceIsAsked) {
  // A Triton kernel's branch on a tile straddling a bound: the test changed in place.
  auto f = ReviewText(Hunk("parallel.py", "def fwd_kernel(T, C, BLOCK_T: tl.constexpr):",
                           {"     kv_i = tl.program_id(0) * BLOCK_T", "-    if kv_i >= T - C:",
                            "+    if kv_i + BLOCK_T > T - C:", "         acc = acc * 0"}));
  const Finding* c = Find(f, "guard.condition_changed");
  ASSERT_NE(c, nullptr) << Dump(f);
  EXPECT_TRUE(Says(c, "`kv_i >= T - C` -> `kv_i + BLOCK_T > T - C`")) << c->message;
  EXPECT_EQ(c->severity, Severity::kWarning);
  // A configuration test against a literal is not asked here.
  f = ReviewText(Hunk("router.py", "def select(self):",
                      {"     x = 1", "-    if self.n_groups <= 0:", "+    if self.n_groups <= 1:",
                       "         x = 2"}));
  for (const Finding& x : f) EXPECT_FALSE(Says(&x, "which elements or programs")) << Dump(f);
}

TEST(WhatChanged, ABlockSyncRespeltIsNoBarrierRemoved) {
  // cooperative_groups' `block.sync()` is __syncthreads under another name.
  auto f = ReviewText(Hunk("sgmv.cuh", "__global__ void shrink(float* y) {",
                           {"   load(y);", "-  __syncthreads();", "+  block.sync();", "   use(y);"}));
  EXPECT_EQ(Find(f, "sync.barrier_removed"), nullptr) << Dump(f);
  f = ReviewText(Hunk("sgmv.cuh", "__global__ void shrink(float* y) {",
                      {"   load(y);", "-  __syncthreads();", "+  grid.sync();", "   use(y);"}));
  EXPECT_NE(Find(f, "sync.barrier_removed"), nullptr) << Dump(f);  // a grid barrier is another
}

TEST(WhatChanged, ABlockReindentedUnderANewScopeChangesNothing) {
  // The same lines, one indent deeper, split into two change blocks by an unchanged pragma:
  // they moved with their block; nothing is read as an edit of its neighbour.
  auto f = ReviewText(Hunk("store.cuh", "__device__ void store(float* y_ptr, int n) {",
                           {"-          y_ptr += 4 * cell;", "-          y_smem.offset += 8;",
                            "+          row_idx += 8;", "+          y_ptr += 8 * d_out;",
                            "+          y_smem.offset += 8 * num_cells_n - 4 * num_blocks_n;",
                            "         }", "-        row_idx += 8;", "-        y_ptr += 8 * d_out;",
                            "-        y_smem.offset += 8 * num_cells_n - 4 * num_blocks_n;",
                            "+            y_ptr += 4 * cell;", "+            y_smem.offset += 8;",
                            "       }"}));
  for (const Finding& x : f) {
    EXPECT_FALSE(Says(&x, "`y_smem.offset += 8;` ->")) << Dump(f);
    EXPECT_FALSE(Says(&x, "-> `y_smem.offset += 8;`")) << Dump(f);
  }
  EXPECT_TRUE(f.empty()) << Dump(f);
}

TEST(WhatChanged, ParenthesesDroppedAroundAWholeInitializerChangeNothing) {
  // `base = (blockIdx.x * BLOCK);` -> `base = blockIdx.x * BLOCK;`, moved by a line: no
  // remap. Parentheses that group part of an expression still count.
  auto f = ReviewText(Hunk("quant.cu", "__global__ void quantize(float* x, int n) {",
                           {"-  const int base_idx = (blockIdx.x * BLOCK_SIZE);", "   int valid = n;",
                            "+  const int base_idx = blockIdx.x * BLOCK_SIZE;", "   x[base_idx] = 0;"}));
  EXPECT_EQ(Find(f, "launch.block_index_remapped"), nullptr) << Dump(f);
  f = ReviewText(Hunk("quant.cu", "__global__ void quantize(float* x, int n) {",
                      {"-  const int base_idx = (blockIdx.x + 1) * BLOCK_SIZE;",
                       "+  const int base_idx = blockIdx.x + 1 * BLOCK_SIZE;", "   x[base_idx] = 0;"}));
  EXPECT_NE(Find(f, "launch.block_index_remapped"), nullptr) << Dump(f);
}

TEST(WhatChanged, AVectorizedCopyAddedAsksAboutAlignmentAndTails) {
  auto f = ReviewText(Hunk("tile.cu", "__global__ void tile_kernel(const float* src, float* dst, int n) {",
                           {"-  dst[i] = src[i];",
                            "+  reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];",
                            " }"}));
  const Finding* v = Find(f, "memory.vectorized_access");
  ASSERT_NE(v, nullptr) << Dump(f);
  EXPECT_TRUE(Says(v, "accessed as `uint4` (16 bytes at a time)")) << v->message;
  EXPECT_TRUE(Says(v, "16-byte aligned")) << v->message;
  // The same vector access on both sides (its index changed) is not new.
  f = ReviewText(Hunk("tile.cu", "__global__ void tile_kernel(const float* src, float* dst, int n) {",
                      {"-  reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];",
                       "+  reinterpret_cast<uint4*>(dst)[j] = reinterpret_cast<const uint4*>(src)[j];",
                       " }"}));
  EXPECT_EQ(Find(f, "memory.vectorized_access"), nullptr) << Dump(f);
}

TEST(WhatChanged, ACastAddedInsideAClampIsAWideningStoredBackNarrow) {
  // `(int64_t)` added to an operand of a min(): not a clamp moved, not an argument replaced;
  // the sum is 64-bit and lands in an `int`.
  auto f = ReviewText(Hunk("gn.cu", "__global__ void sum_kernel(Params params, int hw_begin) {",
                           {"-  int hw_end = min(hw_begin + params.acts_per_block, params.hw);",
                            "+  int hw_end = min((int64_t) hw_begin + params.acts_per_block, params.hw);",
                            "   use(hw_end);"}));
  const Finding* w = Find(f, "arith.width_changed");
  ASSERT_NE(w, nullptr) << Dump(f);
  EXPECT_TRUE(Says(w, "The 64-bit value is stored in `int hw_end`")) << w->message;
  EXPECT_EQ(Find(f, "call.argument_changed"), nullptr) << Dump(f);
  for (const Finding& x : f) EXPECT_FALSE(Says(&x, "clamp moved")) << Dump(f);
}

TEST(WhatChanged, AModuleNamedArchIsNoChoiceByArchitecture) {
  // `cute.arch.` is a namespace on a call's path; `if arch >= 90` tests the GPU.
  auto f = ReviewText(Hunk("epilogue.py", "def epilogue(self):",
                           {"     x = 1", "+    cute.arch.cp_async_bulk_wait_group(0, read=True)",
                            "     return x"}));
  EXPECT_EQ(Find(f, "arch.dispatch_changed"), nullptr) << Dump(f);
  f = ReviewText(Hunk("tiles.py", "def tiles(arch):",
                      {"     block = 64", "+    if arch >= 90:", "+        block = 128",
                       "     return block"}));
  EXPECT_NE(Find(f, "arch.dispatch_changed"), nullptr) << Dump(f);
}

TEST(WhatChanged, FlagsDispatchesAndArgumentsAskNoWordQuestion) {
  // A flag named for a softmax, a dispatch macro naming the LSE, a mask flag passed on to a
  // kernel: nothing is computed or compared, so no softmax, combine or mask question.
  auto f = ReviewText(Hunk("moe.cc", "void forward(Params& p) {",
                           {"+  bool softmax = true;", "+  if (p.sigmoid) { softmax = false; }",
                            "   gate(p, softmax);"}));
  EXPECT_EQ(Find(f, "softmax.stability_changed"), nullptr) << Dump(f);
  f = ReviewText(Hunk("attn.cu", "void run_attention(Params& p) {",
                      {"+  DISPATCH_RETURN_LSE(return_lse, RETURN_LSE, {",
                       "     launch<RETURN_LSE>(p);", "+  });"}));
  EXPECT_EQ(Find(f, "splitk.combine_changed"), nullptr) << Dump(f);
  f = ReviewText(Hunk("attn.cu", "void dispatch(Params& p) {",
                      {"+  run_fwd<Traits<kHeadDim, kBlockM>, Is_causal>(p, stream);", " }"}));
  EXPECT_EQ(Find(f, "mask.expression_changed"), nullptr) << Dump(f);
  // The LSE merged with exp and a max: still asked.
  f = ReviewText(Hunk("attn.cu", "__device__ void merge(float* lse, float m) {",
                      {"+  lse[i] = m + logf(expf(lse[i] - m) + expf(other - m));", " }"}));
  EXPECT_NE(Find(f, "splitk.combine_changed"), nullptr) << Dump(f);
}

}  // namespace
}  // namespace av
