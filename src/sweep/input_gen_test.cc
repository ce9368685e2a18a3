// Tests of the bulk input generator: StoreDoubles equals the per-element StoreFromDouble
// bit for bit, a masked tensor equals a per-element loop of Normal() (masked rows skip
// their draws), every case of a sweep covering each op, layout, generator, padding,
// dtype and invariance variant still hashes to the pinned bytes (golden digest), and
// inputs.safetensors as WriteCase streams it equals SerializeSafetensors with the sha256
// it reports. The normal generator itself is tested in rng_test.cc.
#include "sweep/input_gen.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/file.h"
#include "core/sha256.h"
#include "core/xxh3.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/rng.h"
#include "sweep/shapes_config.h"
#include "tensor/float_convert.h"
#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::vector<double> EdgeDoubles() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0,
                           -0.0,
                           inf,
                           -inf,
                           std::numeric_limits<double>::quiet_NaN(),
                           -std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::max(),
                           1.0,
                           -1.0,
                           65504.0,
                           65519.99,
                           65520.0,
                           6.1035156e-05,
                           5.96e-08,
                           3.3895313892515355e38,
                           3.3961775292304e38,
                           1.1754943508222875e-38,
                           1.17e-38,
                           9.2e-41};
  // Halfway points and their neighbours for bf16 (8-bit) and f16 (11-bit) significands.
  for (int e = -30; e <= 30; e += 3) {
    for (double frac :
         {1.0 + 1.0 / 256, 1.0 + 3.0 / 256, 1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048, 1.99609375}) {
      const double x = std::ldexp(frac, e);
      v.push_back(x);
      v.push_back(-x);
      v.push_back(std::nextafter(x, 0.0));
      v.push_back(std::nextafter(x, 10 * x));
    }
  }
  // Random bit patterns over every exponent.
  Rng rng(99);
  for (int i = 0; i < 200000; ++i) v.push_back(std::bit_cast<double>(rng.NextU64()));
  // And values around the normal-range boundaries of each format.
  for (int i = 0; i < 20000; ++i) {
    const int e = static_cast<int>(rng.UniformInt(80)) - 160 + (i % 4) * 40;
    v.push_back(std::ldexp(rng.Uniform(1, 2), e) * (i % 2 ? -1 : 1));
  }
  return v;
}

TEST(SweepInputGenTest, StoreDoublesEqualsStoreFromDouble) {
  const std::vector<double> v = EdgeDoubles();
  for (DType dt :
       {DType::kBF16, DType::kF16, DType::kF32, DType::kF64, DType::kF8E4M3FN, DType::kF8E5M2}) {
    const size_t es = DTypeSize(dt);
    std::vector<std::byte> bulk(v.size() * es), each(v.size() * es);
    StoreDoubles(dt, v.data(), static_cast<int64_t>(v.size()), bulk.data());
    for (size_t i = 0; i < v.size(); ++i) StoreFromDouble(dt, v[i], each.data() + i * es);
    for (size_t i = 0; i < v.size(); ++i) {
      ASSERT_EQ(std::memcmp(bulk.data() + i * es, each.data() + i * es, es), 0)
          << DTypeName(dt) << " of " << std::hexfloat << v[i];
    }
  }
}

TEST(SweepInputGenTest, MaskedRowsAreNaNButStillDrawAndPaddingIsNaN) {
  Rng a(5), b(5);
  GenRowMask odd_pages = [](int64_t i0, int64_t i1) { return i0 % 2 == 0 && i1 < 2; };
  Tensor t = GenerateFloatTensor(a, GenValues{2.0, {}}, DType::kF32, {3, 3, 1, 4}, {3, 3, 1, 6},
                                 odd_pages);
  for (int64_t p = 0; p < 3; ++p) {
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t c = 0; c < 6; ++c) {
        int64_t idx[] = {p, r, 0, c};
        const double got = t.GetDouble(idx);
        if (c >= 4) {
          EXPECT_TRUE(std::isnan(got));
          continue;
        }
        const double z = b.Normal();  // drawn for every logical element, masked or not
        if (p % 2 == 0 && r < 2)
          EXPECT_EQ(got, static_cast<float>(2.0 * z));
        else
          EXPECT_TRUE(std::isnan(got)) << p << " " << r << " " << c;
      }
    }
  }
}

// A tensor past the parallel threshold (4M stored elements) is cut into row ranges, one
// per hardware thread, each from a copy of the stream moved to its first row. Its bytes
// must still be the per-element loop's, and the stream must end where that loop leaves
// it: an odd row length (577) puts a pending sine half at the ranges' edges, masked rows
// (skipped draws) fall on both sides of them, and padding columns are NaN.
TEST(SweepInputGenTest, LargeTensorsGeneratedInPiecesEqualThePerElementLoop) {
  Rng a(6), b(6);
  a.Normal();  // both streams start with a pending sine half
  b.Normal();
  const Shape shape = {40, 197, 1, 577}, storage = {40, 197, 1, 580};
  GenRowMask mask = [](int64_t i0, int64_t i1) { return (i0 * 7 + i1) % 5 != 0; };
  Tensor t = GenerateFloatTensor(a, GenValues{3.0, {}}, DType::kBF16, shape, storage, mask);
  ASSERT_GE(t.numel(), int64_t{1} << 22);
  const auto* bits = reinterpret_cast<const uint16_t*>(t.data());
  std::byte nan_code[2];
  StoreFromDouble(DType::kBF16, std::numeric_limits<double>::quiet_NaN(), nan_code);
  uint16_t nan_bits;
  std::memcpy(&nan_bits, nan_code, 2);
  int64_t i = 0;
  for (int64_t p = 0; p < 40; ++p) {
    for (int64_t r = 0; r < 197; ++r) {
      for (int64_t c = 0; c < 580; ++c, ++i) {
        if (c >= 577) {
          ASSERT_EQ(bits[i], nan_bits) << i;
          continue;
        }
        const double z = b.Normal();
        std::byte want[2];
        StoreFromDouble(DType::kBF16, mask(p, r) ? 3.0 * z : std::numeric_limits<double>::quiet_NaN(),
                        want);
        uint16_t w;
        std::memcpy(&w, want, 2);
        ASSERT_EQ(bits[i], w) << "element " << i << " (page " << p << ", row " << r << ")";
      }
    }
  }
  EXPECT_EQ(a.Normal(), b.Normal());  // the streams continue from the same place
  EXPECT_EQ(a.NextU64(), b.NextU64());
}

// An FP8 GEMM operand past the parallel threshold, both generators, against the
// per-element loop of its definition (input_gen.h).
TEST(SweepInputGenTest, LargeGemmOperandsGeneratedInPiecesEqualThePerElementLoop) {
  for (bool saturating : {false, true}) {
    const int64_t rows = 4099, k = 1025;  // odd k: pending sine halves at the piece edges
    Tensor x = GenerateGemmOperand(Rng(9), rows, k, saturating);
    ASSERT_GE(x.numel(), int64_t{1} << 22);
    const auto* got = reinterpret_cast<const float*>(x.data());
    Rng b(9);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < k; ++c) {
        double v = b.Normal();
        if (saturating) {
          if (c % 128 == r % 128) v *= 1000;
          if (r % 7 == 3) v = 0;
          if (c % 128 == (r + 5) % 128 && r % 7 != 3) v = (c % 2 ? -1 : 1) * 4000;
        }
        ASSERT_EQ(std::bit_cast<uint32_t>(got[r * k + c]),
                  std::bit_cast<uint32_t>(static_cast<float>(v)))
            << "saturating " << saturating << " row " << r << " column " << c;
      }
    }
  }
}

// Every case of this sweep, variants included, hashed as "id sha256(inputs)" lines; the
// digest of those lines pins the inputs of generator av-normal/3 (rng.h). A change here
// changes the bytes every user's seeds produce: say so in doc/formats/shapes-json.md.
constexpr const char* kGoldenShapes = R"({"version": 1, "sweeps": [
 {"name": "a", "op": "attention", "fixed": {"b": 3, "h_q": 4, "h_kv": 2, "d": 16, "dv": 8, "s_q": 5, "s_k": 70, "page_size": 16, "lengths": "random"},
  "grid": {"layout": ["batched", "varlen", "paged"], "padded": [false, true]},
  "generators": ["randn", "large_logits", "near_tie"], "dtypes": ["bf16", "f16", "f32"]},
 {"name": "m", "op": "mla_decode", "fixed": {"d": 40, "dv": 32, "page_size": 16, "h_q": 4, "b": 4, "s_q": 2, "s_k": 70},
  "grid": {"lengths": ["full", "random", "edges", "half_empty"], "padded": [false, true]},
  "generators": ["randn", "near_tie"], "dtypes": ["bf16", "f16"], "invariance": {"num_splits": [2], "page_table_permutation": true, "batch_permutation": true, "seeds": 2}},
 {"name": "s", "op": "sparse_attention", "fixed": {"s_q": 4, "s_kv": 40, "h_q": 4, "d": 16, "topk": 8},
  "grid": {"indices": ["random", "mixed"]}, "generators": ["near_tie"], "dtypes": ["bf16"]},
 {"name": "g", "op": "gemm", "cases": [{"m": 7, "n": 5, "k": 33, "padded": true}], "dtypes": ["f32", "f16"]},
 {"name": "f", "op": "fp8_gemm", "cases": [{"m": 130, "n": 129, "k": 200}], "generators": ["randn", "fp8_saturating"]}
]})";

TEST(SweepInputGenTest, GoldenInputBytesOfEveryOpLayoutGeneratorAndVariant) {
  auto cfg = ParseShapesConfig(kGoldenShapes, "golden.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  auto cases = ExpandCases(*cfg);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_EQ(cases->size(), 220u);
  std::string lines;
  for (const CaseSpec& c : *cases) {
    auto built = BuildCase(c);
    ASSERT_TRUE(built.ok()) << c.id << ": " << built.status().message();
    auto bytes = SerializeSafetensors(built->file_tensors, built->op_params.values());
    ASSERT_TRUE(bytes.ok());
    lines += c.id + " " + Sha256Hex(*bytes) + "\n";
  }
  EXPECT_EQ(Sha256Hex(lines), "6a17d7b599af1117b554c45ed8b8136de5230521f91e6be3f72b8764f9e2f2c9");
}

TEST(SweepInputGenTest, WrittenInputsEqualSerializeSafetensorsAndTheirHash) {
  testing::TempDir dir;
  CaseSpec c;
  c.op = "mla_decode";
  c.sweep = "t";
  c.id = "t.case";
  c.params = {
      {"b", 3},          {"s_k", 70},           {"h_q", 2},       {"d", 16},       {"dv", 8},
      {"page_size", 16}, {"lengths", "random"}, {"padded", true}, {"causal", true}};
  auto built = BuildCase(c);
  ASSERT_TRUE(built.ok()) << built.status().message();
  auto wc = WriteCase(dir.path(), c, *built);
  ASSERT_TRUE(wc.ok()) << wc.status().message();
  auto want = SerializeSafetensors(built->file_tensors, built->op_params.values());
  ASSERT_TRUE(want.ok());
  auto got = ReadFileToString(wc->inputs_path);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, *want);
  EXPECT_EQ(wc->inputs_sha256, Sha256Hex(*want));
  EXPECT_EQ(wc->inputs_xxh3, Xxh3Hex(*want));
  EXPECT_EQ((*wc->case_json)["inputs_sha256"], wc->inputs_sha256);

  // The next run overwrites the same case's files in place: a smaller case leaves no
  // stale tail.
  CaseSpec small = c;
  small.params = {{"b", 1}, {"s_k", 5}, {"h_q", 1}, {"d", 16}, {"dv", 8}, {"page_size", 16}};
  auto built_small = BuildCase(small);
  ASSERT_TRUE(built_small.ok()) << built_small.status().message();
  auto wc_small = WriteCase(dir.path(), small, *built_small);
  ASSERT_TRUE(wc_small.ok()) << wc_small.status().message();
  auto want_small =
      SerializeSafetensors(built_small->file_tensors, built_small->op_params.values());
  ASSERT_TRUE(want_small.ok());
  ASSERT_LT(want_small->size(), want->size());
  EXPECT_EQ(*ReadFileToString(wc_small->inputs_path), *want_small);
  EXPECT_EQ(wc_small->inputs_sha256, Sha256Hex(*want_small));
}

// Issue 35: a rerun's inputs used to be a symbolic link to its base case's file, and its
// case.json named its variant, group and the shared sha256, so a candidate could find the
// base and copy its outputs. Now a rerun gets a plain copy of the bytes (same digests) in
// an opaque folder, and the candidate's case.json says none of that.
TEST(SweepInputGenTest, AVariantsCopyIsAPlainFileAndItsCaseJsonNamesNoBase) {
  testing::TempDir dir;
  CaseSpec base;
  base.op = "mla_decode";
  base.sweep = "t";
  base.id = "t.case";
  base.params = {{"b", 2}, {"s_k", 40}, {"h_q", 2}, {"d", 16}, {"dv", 8}, {"page_size", 16}};
  auto built = BuildCase(base);
  ASSERT_TRUE(built.ok()) << built.status().message();
  auto wc = WriteCase(dir.path(), base, *built, {"c0007", true});
  ASSERT_TRUE(wc.ok()) << wc.status().message();
  auto bytes = ReadFileToString(wc->inputs_path);
  ASSERT_TRUE(bytes.ok());
  OwnedBuffer copy_of(bytes->size());
  std::memcpy(copy_of.mutable_data(), bytes->data(), bytes->size());
  CaseSpec rerun = base;
  rerun.id = "t.case.rerun=1";
  rerun.kind = VariantKind::kRerun;
  rerun.variant = "rerun=1";
  rerun.group = base.id;
  auto copy = WriteCaseCopy(dir.path(), rerun, *wc, copy_of, {"c0003", true});
  ASSERT_TRUE(copy.ok()) << copy.status().message();
  EXPECT_FALSE(std::filesystem::is_symlink(copy->inputs_path));
  EXPECT_EQ(copy->dir, dir.File("cases/c0003"));
  EXPECT_EQ(*ReadFileToString(copy->inputs_path), *bytes);
  EXPECT_EQ(copy->inputs_sha256, wc->inputs_sha256);
  EXPECT_EQ(copy->inputs_xxh3, wc->inputs_xxh3);
  for (const WrittenCase* w : {&*wc, &*copy}) {
    auto text = ReadFileToString(w->dir + "/case.json");
    ASSERT_TRUE(text.ok());
    for (const char* tell : {"variant", "group", "inputs_sha256", "seed", "t.case", "rerun"})
      EXPECT_EQ(text->find(tell), std::string::npos) << tell << " in " << *text;
  }
  EXPECT_EQ((*copy->case_json)["id"], "c0003");
  // The record `cases --export` writes keeps them (the harness checks the digest).
  auto full = WriteCase(dir.path(), rerun, *built);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ((*full->case_json)["variant"], "rerun=1");
  EXPECT_EQ((*full->case_json)["inputs_sha256"], wc->inputs_sha256);
  // Bytes that are not the base's are refused, never written as its copy.
  copy_of.mutable_data()[copy_of.size() - 1] ^= std::byte{1};
  EXPECT_FALSE(WriteCaseCopy(dir.path(), rerun, *wc, copy_of, {"c0003", true}).ok());
}

// The next run rewrites a case folder in place: identical bytes are left untouched (no
// write at all), differing bytes of the same length are rewritten, and a link a candidate
// left at a case's inputs is replaced, never written through.
TEST(SweepInputGenTest, RewritesInPlaceOnlyWhatDiffersAndNeverFollowsALink) {
  testing::TempDir dir;
  CaseSpec c;
  c.op = "mla_decode";
  c.sweep = "t";
  c.id = "t.case";
  c.params = {{"b", 2}, {"s_k", 40}, {"h_q", 2}, {"d", 16}, {"dv", 8}, {"page_size", 16}};
  auto built = BuildCase(c);
  ASSERT_TRUE(built.ok()) << built.status().message();
  auto first = WriteCase(dir.path(), c, *built);
  ASSERT_TRUE(first.ok()) << first.status().message();
  struct stat before, after;
  ASSERT_EQ(::stat(first->inputs_path.c_str(), &before), 0);
  // Same bytes: nothing is written, so the file's modification time stays.
  ::usleep(20000);
  auto again = WriteCase(dir.path(), c, *built);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(::stat(again->inputs_path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(again->inputs_sha256, first->inputs_sha256);
  // Another seed, the same length: the file holds the new bytes.
  CaseSpec reseeded = c;
  reseeded.seed = 7;
  auto built7 = BuildCase(reseeded);
  ASSERT_TRUE(built7.ok());
  auto want7 = SerializeSafetensors(built7->file_tensors, built7->op_params.values());
  ASSERT_TRUE(want7.ok());
  auto seven = WriteCase(dir.path(), reseeded, *built7);
  ASSERT_TRUE(seven.ok());
  auto got7 = ReadFileToString(seven->inputs_path);
  ASSERT_EQ(got7->size(), ReadFileToString(first->inputs_path)->size());
  EXPECT_EQ(*got7, *want7);
  EXPECT_NE(seven->inputs_sha256, first->inputs_sha256);
  EXPECT_EQ(seven->inputs_sha256, Sha256Hex(*want7));

  // A link a candidate left at a base case's inputs: replaced by a plain file; its
  // target keeps its bytes.
  ASSERT_TRUE(WriteFileAtomically(dir.File("victim"), "not yours").ok());
  ASSERT_EQ(::unlink(seven->inputs_path.c_str()), 0);
  ASSERT_EQ(::symlink(dir.File("victim").c_str(), seven->inputs_path.c_str()), 0);
  auto replaced = WriteCase(dir.path(), reseeded, *built7);
  ASSERT_TRUE(replaced.ok()) << replaced.status().message();
  EXPECT_FALSE(std::filesystem::is_symlink(replaced->inputs_path));
  EXPECT_EQ(*ReadFileToString(replaced->inputs_path), *want7);
  EXPECT_EQ(*ReadFileToString(dir.File("victim")), "not yours");
}

}  // namespace
}  // namespace av
