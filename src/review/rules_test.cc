// The built-in rules over realistic diffs (testdata/review/*.diff, made with git from
// real before/after files): every finding expected is found at its file:line, and
// nothing else is — noise is a bug. Small inline cases: rules_small_cases_test.cc;
// statements read whole (conditions, definitions) and word rules: rules_statement_test.cc.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "review/rules_test_util.h"

namespace av {
namespace {

using namespace rules_test;  // NOLINT

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
  // tests/test_combine.py changed too, checking no less: the code rules never read it.
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
  EXPECT_EQ(ids.size(), 43u);
}

}  // namespace
}  // namespace av
