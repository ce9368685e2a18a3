// The op table and the `attnverify ref` command: names are checked (an unknown tensor or
// an inapplicable parameter is an error, not silently ignored), parameters reach the op,
// and the real binary round-trips safetensors files.
#include "reference/ref_ops.h"

#include <gtest/gtest.h>

#include <limits>

#include "reference/attention.h"
#include "reference/f64_array.h"
#include "reference/ref_test_util.h"
#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::Named;

using testing::BitwiseEqual;
using testing::IntTensor;
using testing::RandomTensor;

OpParams P(std::map<std::string, std::string> values) { return OpParams(std::move(values)); }

NamedTensors AttentionCase(std::mt19937_64& rng) {
  return {{"q", RandomTensor(rng, {2, 3, 4, 8}, DType::kF32)},
          {"k", RandomTensor(rng, {2, 5, 2, 8}, DType::kF32)},
          {"v", RandomTensor(rng, {2, 5, 2, 6}, DType::kF32)}};
}

// The result conversion streams through a buffer; it must be LoadF64().ToTensor() bit for
// bit: widening, rounding to nearest even, NaN and infinities, strides, across chunks.
TEST(RefOpsTest, ConvertTensorEqualsTheFloat64CopyBitForBit) {
  std::mt19937_64 rng(77);
  Tensor x = RandomTensor(rng, {3, 5000}, DType::kF64, -1e5, 1e5);
  F64Array v = LoadF64(x);
  v.data[1] = std::numeric_limits<double>::quiet_NaN();
  v.data[4097] = -std::numeric_limits<double>::infinity();
  v.data[9000] = 1e300;   // overflows bf16 and f32
  v.data[9001] = 1e-310;  // a float64 subnormal, below every narrower type
  for (DType from : {DType::kF64, DType::kF32, DType::kBF16}) {
    const Tensor t = v.ToTensor(from);
    auto strided = t.Slice(1, 1, 5000, 3);
    ASSERT_TRUE(strided.ok());
    for (const Tensor& in : {t, *strided})
      for (DType to : {DType::kF64, DType::kF32, DType::kBF16, DType::kF16})
        EXPECT_TRUE(BitwiseEqual(ConvertTensor(in, to), LoadF64(in).ToTensor(to)))
            << DTypeName(from) << " -> " << DTypeName(to);
  }
}

// keep_f32_results (the numerics sweep's setting) leaves a fast float32 result as it is —
// the same values as the widened float64 one — unless out_dtype asks for a dtype; without
// it the fast result follows out_dtype's default, float64. The oracle is never affected.
TEST(RefOpsTest, KeepF32ResultsLeavesFastFloat32ResultsUnwidened) {
  std::mt19937_64 rng(78);
  const NamedTensors in = {{"a", RandomTensor(rng, {5, 70}, DType::kBF16)},
                           {"b", RandomTensor(rng, {9, 70}, DType::kBF16)}};
  RefImpl fast{ImplKind::kFast};
  auto widened = RunReferenceOp("gemm", in, P({}), fast);
  fast.keep_f32_results = true;
  auto kept = RunReferenceOp("gemm", in, P({}), fast);
  auto asked = RunReferenceOp("gemm", in, P({{"out_dtype", "f64"}}), fast);
  RefImpl oracle;
  oracle.keep_f32_results = true;
  auto exact = RunReferenceOp("gemm", in, P({}), oracle);
  ASSERT_TRUE(widened.ok() && kept.ok() && asked.ok() && exact.ok());
  EXPECT_EQ(Named(*widened, "d").dtype(), DType::kF64);
  EXPECT_EQ(Named(*kept, "d").dtype(), DType::kF32);
  EXPECT_EQ(Named(*asked, "d").dtype(), DType::kF64);
  EXPECT_EQ(Named(*exact, "d").dtype(), DType::kF64);
  EXPECT_TRUE(BitwiseEqual(ConvertTensor(Named(*kept, "d"), DType::kF64), Named(*widened, "d")));
}

TEST(RefOpsTest, AttentionParamsReachTheOracle) {
  std::mt19937_64 rng(71);
  NamedTensors in = AttentionCase(rng);
  OpParams params({{"causal", "true"}, {"window_left", "1"}, {"softcap", "3"}});
  auto out = RunReferenceOp("attention", in, params);
  ASSERT_TRUE(out.ok()) << out.status().message();
  AttentionInputs a;
  a.q = in[0].second;
  a.k = in[1].second;
  a.v = in[2].second;
  AttentionParams p;
  p.mask = {true, 1, -1};
  p.softcap = 3;
  auto ref = ComputeAttention(a, p);
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(BitwiseEqual(Named(*out, "o"), ref->o));
  EXPECT_TRUE(BitwiseEqual(Named(*out, "lse"), ref->lse));
  auto f32 = RunReferenceOp("attention", in, P({{"out_dtype", "f32"}}));
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(Named(*f32, "o").dtype(), DType::kF32);
}

TEST(RefOpsTest, UnknownTensorsParametersAndOpsAreErrors) {
  std::mt19937_64 rng(72);
  NamedTensors in = AttentionCase(rng);
  in.push_back({"cu_seqlen_q", IntTensor({0, 3}, {2})});  // typo of cu_seqlens_q
  auto out = RunReferenceOp("attention", in, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("\"cu_seqlen_q\" is not read by attention"),
            std::string::npos);
  in.pop_back();
  out = RunReferenceOp("attention", in, P({{"num_sms", "132"}}));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("\"num_sms\" does not apply to attention"),
            std::string::npos);
  out = RunReferenceOp("attention", in, P({{"causal", "yes"}}));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("causal"), std::string::npos);
  out = RunReferenceOp("atention", in, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("unknown reference op"), std::string::npos);
}

TEST(RefOpsTest, SplitKWithFlashMlaPlanCombinesToAttention) {
  std::mt19937_64 rng(73);
  NamedTensors in = AttentionCase(rng);
  in.push_back({"seqlens_k", IntTensor({5, 2}, {2})});
  auto split = RunReferenceOp("attention_splitk", in, P({{"num_sms", "4"}, {"causal", "1"}}));
  ASSERT_TRUE(split.ok()) << split.status().message();
  auto whole = RunReferenceOp("attention", in, P({{"causal", "1"}}));
  ASSERT_TRUE(whole.ok());
  EXPECT_LE(testing::MaxRelDiff(Named(*split, "o"), Named(*whole, "o")), 2e-6);
  EXPECT_EQ(Named(*split, "num_splits").dtype(), DType::kI32);
  // The partials feed the combine op and give the same result.
  NamedTensors parts = {{"o_accum", Named(*split, "o_accum")},
                        {"lse_accum", Named(*split, "lse_accum")},
                        {"num_splits", Named(*split, "num_splits")}};
  auto merged = RunReferenceOp("combine", parts, {});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_TRUE(BitwiseEqual(Named(*merged, "o"), Named(*split, "o")));
}

class RefCliTest : public ::testing::Test {
 protected:
  av::testing::TempDir dir_;
  std::string Run(const std::string& args, int* code) {
    auto r = av::testing::RunShell(std::string(ATTNVERIFY_BINARY) + " ref " + args);
    *code = r.exit_code;
    return r.output;
  }
};

TEST_F(RefCliTest, MetadataAndFlagsSetParametersAndOutputsRoundTrip) {
  std::mt19937_64 rng(74);
  NamedTensors in = AttentionCase(rng);
  const std::string inputs = dir_.File("in.safetensors"), outputs = dir_.File("out.safetensors");
  ASSERT_TRUE(WriteSafetensors(inputs, in, {{"causal", "true"}, {"format", "pt"}}).ok());
  int code = -1;
  std::string log =
      Run("attention --inputs " + inputs + " --out " + outputs + " --softcap 2", &code);
  ASSERT_EQ(code, 0) << log;
  auto file = ReadSafetensors(outputs);
  ASSERT_TRUE(file.ok()) << file.status().message();
  auto ref = RunReferenceOp("attention", in, P({{"causal", "true"}, {"softcap", "2"}}));
  ASSERT_TRUE(ref.ok());
  ASSERT_NE(file->Find("o"), nullptr);
  EXPECT_TRUE(BitwiseEqual(*file->Find("o"), Named(*ref, "o")));
  EXPECT_EQ(file->metadata.at("op"), "attention");
  EXPECT_EQ(file->metadata.at("impl"), "oracle");
  EXPECT_EQ(file->metadata.at("causal"), "true");
  EXPECT_EQ(file->metadata.at("softcap"), "2");
}

TEST_F(RefCliTest, FastAndLowprecRunAndMatchTheLibrary) {
  std::mt19937_64 rng(75);
  NamedTensors in = AttentionCase(rng);
  const std::string inputs = dir_.File("in.safetensors"), outputs = dir_.File("o.safetensors");
  ASSERT_TRUE(WriteSafetensors(inputs, in).ok());
  for (ImplKind kind : {ImplKind::kFast, ImplKind::kLowprec}) {
    const std::string impl = kind == ImplKind::kFast ? "fast" : "lowprec";
    int code = -1;
    std::string log = Run("attention --inputs " + inputs + " --out " + outputs + " --impl " + impl +
                              " --threads 2 --causal",
                          &code);
    ASSERT_EQ(code, 0) << log;
    auto file = ReadSafetensors(outputs);
    ASSERT_TRUE(file.ok()) << file.status().message();
    RefImpl ref_impl;
    ref_impl.kind = kind;
    ref_impl.threads = 1;  // results do not depend on the thread count
    auto ref = RunReferenceOp("attention", in, P({{"causal", "true"}}), ref_impl);
    ASSERT_TRUE(ref.ok()) << ref.status().message();
    ASSERT_NE(file->Find("o"), nullptr);
    EXPECT_EQ(file->Find("o")->dtype(), DType::kF64);
    EXPECT_TRUE(BitwiseEqual(*file->Find("o"), Named(*ref, "o"))) << impl;
    EXPECT_EQ(file->metadata.at("impl"), impl);
  }
}

TEST_F(RefCliTest, ImplNotBuiltForAnOpExits2) {
  std::mt19937_64 rng(76);
  const std::string inputs = dir_.File("in.safetensors");
  ASSERT_TRUE(WriteSafetensors(inputs, AttentionCase(rng)).ok());
  int code = -1;
  std::string log = Run("attention --inputs " + inputs + " --out " + dir_.File("o.safetensors") +
                            " --impl lowprec --lowprec-dtype f32",
                        &code);
  EXPECT_EQ(code, 2) << log;
  log =
      Run("attention --inputs " + inputs + " --out " + dir_.File("o.safetensors") + " --num-sms 8",
          &code);
  EXPECT_EQ(code, 2) << log;
  EXPECT_NE(log.find("does not apply"), std::string::npos) << log;
  NamedTensors x = {{"x", testing::RandomTensor(rng, {2, 128})}};
  ASSERT_TRUE(WriteSafetensors(inputs, x).ok());
  log = Run(
      "fp8_quant --inputs " + inputs + " --out " + dir_.File("o.safetensors") + " --impl lowprec",
      &code);  // fp8_quant has oracle and fast only
  EXPECT_EQ(code, 2) << log;
  EXPECT_NE(log.find("not built"), std::string::npos) << log;
}

}  // namespace
}  // namespace av
