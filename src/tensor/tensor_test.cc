#include "tensor/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

Tensor Iota(DType dtype, Shape shape) {
  Tensor t = Tensor::Zeros(dtype, shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    t.SetDouble(t.Unravel(i), static_cast<double>(i));
  }
  return t;
}

TEST(TensorTest, ZerosIsContiguousAndZero) {
  Tensor t = Tensor::Zeros(DType::kF32, {2, 3, 4});
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 96u);
  EXPECT_EQ(t.strides(), (Shape{12, 4, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.GetDouble(std::vector<int64_t>{1, 2, 3}), 0.0);
}

TEST(TensorTest, ScalarHasOneElement) {
  Tensor t = Tensor::Zeros(DType::kF64, {});
  EXPECT_EQ(t.numel(), 1);
  t.SetDouble({}, 2.5);
  EXPECT_EQ(t.GetDouble({}), 2.5);
}

TEST(TensorTest, SliceSharesMemoryAndOffsets) {
  Tensor t = Iota(DType::kF32, {4, 5});
  auto s = t.Slice(1, 1, 5, 2);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->shape(), (Shape{4, 2}));
  EXPECT_EQ(s->strides(), (Shape{5, 2}));
  EXPECT_FALSE(s->is_contiguous());
  EXPECT_EQ(s->GetDouble(std::vector<int64_t>{2, 1}), 13.0);  // row 2, column 3
  EXPECT_EQ(s->buffer(), t.buffer());
}

TEST(TensorTest, SliceRejectsOutOfRange) {
  Tensor t = Iota(DType::kF32, {4, 5});
  EXPECT_FALSE(t.Slice(1, 2, 6).ok());
  EXPECT_FALSE(t.Slice(2, 0, 1).ok());
  EXPECT_FALSE(t.Slice(0, 3, 2).ok());
  EXPECT_FALSE(t.Slice(0, 0, 2, 0).ok());
  auto empty = t.Slice(0, 2, 2);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->numel(), 0);
}

TEST(TensorTest, PermuteAndContiguousCopy) {
  Tensor t = Iota(DType::kI32, {2, 3});
  std::vector<int> order{1, 0};
  auto p = t.Permute(order);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->shape(), (Shape{3, 2}));
  EXPECT_EQ(p->GetDouble(std::vector<int64_t>{2, 1}), 5.0);
  Tensor c = p->Contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.buffer(), t.buffer());
  // Row-major order of the transposed view: 0 3 1 4 2 5.
  const double expected[] = {0, 3, 1, 4, 2, 5};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(c.GetDouble(c.Unravel(i)), expected[i]);
  std::vector<int> bad{0, 0};
  EXPECT_FALSE(t.Permute(bad).ok());
}

// Contiguous() of every kind of view, on writable and on read-only memory (a mapped
// file takes the copy paths: one memcpy, a memcpy per row, or element by element).
TEST(TensorTest, ContiguousOfEveryViewEqualsItsElements) {
  testing::TempDir dir;
  const Tensor src = Iota(DType::kF32, {3, 4, 5});
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("t.bin"),
                          std::string(reinterpret_cast<const char*>(src.data()), src.nbytes()))
          .ok());
  auto mapped = MappedFile::Open(dir.File("t.bin"));
  ASSERT_TRUE(mapped.ok());
  auto ro = Tensor::FromBuffer(*mapped, 0, DType::kF32, {3, 4, 5});
  ASSERT_TRUE(ro.ok()) << ro.status().message();
  for (const Tensor& base : {src, *ro}) {
    std::vector<Tensor> views = {base};
    std::vector<int> perm{2, 0, 1};
    views.push_back(*base.Permute(perm));      // last stride 4*5: element by element
    views.push_back(*base.Slice(2, 1, 4));     // rows of 3 of 5: a memcpy per row
    views.push_back(*base.Slice(1, 1, 3));     // a middle dimension cut
    views.push_back(*base.Slice(0, 2, 3));     // one batch: contiguous, offset
    views.push_back(*base.Slice(2, 0, 5, 2));  // stepped last dimension
    views.push_back(*(*base.Slice(0, 0, 3, 2)).Slice(2, 1, 5));  // both
    for (const Tensor& v : views) {
      const Tensor c = v.Contiguous();
      ASSERT_TRUE(c.is_contiguous());
      ASSERT_EQ(c.shape(), v.shape());
      for (int64_t i = 0; i < v.numel(); ++i) {
        ASSERT_EQ(c.GetDouble(c.Unravel(i)), v.GetDouble(v.Unravel(i)))
            << ShapeToString(v.shape()) << " element " << i;
      }
    }
  }
}

TEST(TensorTest, ReshapeNeedsContiguousAndSameCount) {
  Tensor t = Iota(DType::kF32, {2, 6});
  auto r = t.Reshape({3, 4});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->GetDouble(std::vector<int64_t>{2, 3}), 11.0);
  EXPECT_FALSE(t.Reshape({5, 2}).ok());
  std::vector<int> order{1, 0};
  EXPECT_FALSE(t.Permute(order)->Reshape({12}).ok());
}

TEST(TensorTest, FromBufferChecksBounds) {
  auto buffer = CopyToBuffer(std::string(24, '\0'));
  EXPECT_TRUE(Tensor::FromBuffer(buffer, 0, DType::kF32, {2, 3}).ok());
  EXPECT_TRUE(Tensor::FromBuffer(buffer, 8, DType::kF32, {4}).ok());
  auto too_big = Tensor::FromBuffer(buffer, 8, DType::kF32, {5});
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("only 16 bytes"), std::string::npos)
      << too_big.status().message();
  EXPECT_FALSE(Tensor::FromBuffer(buffer, 25, DType::kU8, {0}).ok());
  // Column-major view of 2x3 needs exactly 6 elements.
  EXPECT_TRUE(Tensor::FromBuffer(buffer, 0, DType::kF32, {2, 3}, {1, 2}).ok());
  EXPECT_FALSE(Tensor::FromBuffer(buffer, 0, DType::kF32, {2, 3}, {1, 3}).ok());
  EXPECT_FALSE(Tensor::FromBuffer(buffer, 0, DType::kF32, {2, 3}, {-1, 2}).ok());
}

TEST(TensorTest, FromBufferRejectsOverflowingShapes) {
  auto buffer = CopyToBuffer("abcd");
  const int64_t big = int64_t{1} << 40;
  EXPECT_FALSE(Tensor::FromBuffer(buffer, 0, DType::kU8, {big, big}).ok());
  EXPECT_FALSE(Tensor::FromBuffer(buffer, 0, DType::kU8, {-1}).ok());
  EXPECT_FALSE(Tensor::FromBuffer(buffer, 0, DType::kU8, {2, 2}, {big * 64, 1}).ok());
  EXPECT_FALSE(CheckedNumel(std::vector<int64_t>{big, big}).ok());
  EXPECT_EQ(*CheckedNumel(std::vector<int64_t>{big, 0, big}), 0);
}

TEST(TensorTest, EmptyTensorWithHugeDimensionsIsFine) {
  // Regression: ContiguousStrides overflowed (UB) for (0, 2^40, 2^40).
  const int64_t big = int64_t{1} << 40;
  auto t = Tensor::FromBuffer(CopyToBuffer(""), 0, DType::kF32, {0, big, big});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->numel(), 0);
  EXPECT_EQ(t->strides()[0], std::numeric_limits<int64_t>::max());
}

TEST(TensorTest, ContiguousCopyOfAnEmptyView) {
  // Regression: Contiguous() on a zero-element strided view CHECK-failed, because an
  // empty owned buffer has a null data pointer.
  Tensor t = Tensor::Zeros(DType::kF32, {0, 3});
  std::vector<int> order{1, 0};
  Tensor c = t.Permute(order)->Contiguous();
  EXPECT_EQ(c.numel(), 0);
  EXPECT_EQ(c.shape(), (Shape{3, 0}));
}

TEST(TensorTest, FileViewsAreReadOnlyButCopyable) {
  auto buffer = CopyToBuffer(std::string(8, '\0'));
  // CopyToBuffer returns an owned buffer; a const view of it still reads fine.
  auto t = Tensor::FromBuffer(buffer, 0, DType::kF64, {1});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->GetDouble(std::vector<int64_t>{0}), 0.0);
}

TEST(TensorTest, SetDoubleSaturatesIntegersAndRoundsFloats) {
  Tensor t = Tensor::Zeros(DType::kI8, {4});
  t.SetDouble(std::vector<int64_t>{0}, 300.0);
  t.SetDouble(std::vector<int64_t>{1}, -300.0);
  t.SetDouble(std::vector<int64_t>{2}, -2.9);
  t.SetDouble(std::vector<int64_t>{3}, std::nan(""));
  EXPECT_EQ(t.At<int8_t>(std::vector<int64_t>{0}), 127);
  EXPECT_EQ(t.At<int8_t>(std::vector<int64_t>{1}), -128);
  EXPECT_EQ(t.At<int8_t>(std::vector<int64_t>{2}), -2);
  EXPECT_EQ(t.At<int8_t>(std::vector<int64_t>{3}), 0);

  Tensor i64 = Tensor::Zeros(DType::kI64, {1});
  i64.SetDouble(std::vector<int64_t>{0}, 1e300);
  EXPECT_EQ(i64.At<int64_t>(std::vector<int64_t>{0}), std::numeric_limits<int64_t>::max());

  Tensor h = Tensor::Zeros(DType::kF16, {1});
  h.SetDouble(std::vector<int64_t>{0}, 1.0 + 1.0 / 4096);  // below the half-ulp: rounds to 1
  EXPECT_EQ(h.GetDouble(std::vector<int64_t>{0}), 1.0);
  Tensor b = Tensor::Zeros(DType::kBool, {1});
  b.SetDouble(std::vector<int64_t>{0}, -0.5);
  EXPECT_EQ(b.At<uint8_t>(std::vector<int64_t>{0}), 1);
}

TEST(TensorTest, LoadAsDoubleHonoursStride) {
  const float values[] = {1.5f, -2.0f, 3.25f, 4.0f};
  double out[2];
  LoadAsDouble(DType::kF32, reinterpret_cast<const std::byte*>(values), 8, 2, out);
  EXPECT_EQ(out[0], 1.5);
  EXPECT_EQ(out[1], 3.25);
}

}  // namespace
}  // namespace av
