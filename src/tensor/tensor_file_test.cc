#include "tensor/tensor_file.h"

#include <gtest/gtest.h>

#include "tensor/safetensors.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string Data(const std::string& file) { return testing::SourceDir() + "/testdata/npy/" + file; }

TEST(TensorFileTest, ParseTensorSpecSplitsOnlyContainerNames) {
  auto st = ParseTensorSpec("out/run:3/o.safetensors:attn.o");
  EXPECT_EQ(st.path, "out/run:3/o.safetensors");
  EXPECT_EQ(st.name, "attn.o");
  auto npz = ParseTensorSpec("a.npz:q");
  EXPECT_EQ(npz.path, "a.npz");
  EXPECT_EQ(npz.name, "q");
  // A colon in an .npy path is part of the path.
  auto npy = ParseTensorSpec("c:/x.npy");
  EXPECT_EQ(npy.path, "c:/x.npy");
  EXPECT_EQ(npy.name, "");
  EXPECT_EQ(ParseTensorSpec("b.safetensors").name, "");
}

TEST(TensorFileTest, LoadsEachFormat) {
  auto npy = LoadTensor(Data("fortran_f8_2x3.npy"));
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  EXPECT_EQ(npy->shape(), (Shape{2, 3}));
  auto archive = LoadTensor(Data("savez_multi.npz"));
  ASSERT_FALSE(archive.ok());  // several members and no name
  EXPECT_NE(archive.status().message().find("name one as"), std::string::npos)
      << archive.status().message();
}

TEST(TensorFileTest, ContainerWithOneTensorNeedsNoName) {
  testing::TempDir dir;
  Tensor t = Tensor::Zeros(DType::kBF16, {3});
  ASSERT_TRUE(WriteSafetensors(dir.File("one.safetensors"), {{"o", t}}).ok());
  auto loaded = LoadTensor(dir.File("one.safetensors"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->dtype(), DType::kBF16);
  auto missing = LoadTensor(dir.File("one.safetensors") + ":lse");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("present: o"), std::string::npos);
}

TEST(TensorFileTest, UnknownExtensionIsAnInputError) {
  auto r = LoadTensor("tensor.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tensor.pt: unknown tensor file type"), std::string::npos);
}

}  // namespace
}  // namespace av
