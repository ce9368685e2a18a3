#include "agent/quantities.h"

#include <gtest/gtest.h>

namespace av {
namespace {

bool Supported(const std::string& evidence, const std::string& claim) {
  QuantityIndex index;
  index.Add(evidence);
  std::vector<Quantity> q = ExtractQuantities(claim);
  if (q.empty()) return false;
  for (const Quantity& one : q) {
    if (!index.Supports(one)) return false;
  }
  return true;
}

TEST(Quantities, OneSharedMemorySizeWrittenThreeWays) {
  for (const char* evidence : {"\"smem_cap_bytes\": 232448", "cap 227 KiB", "0x38c00 max"}) {
    EXPECT_TRUE(Supported(evidence, "232448 bytes")) << evidence;
    EXPECT_TRUE(Supported(evidence, "227 KiB")) << evidence;
    EXPECT_TRUE(Supported(evidence, "0x38c00")) << evidence;
    EXPECT_FALSE(Supported(evidence, "228 KiB")) << evidence;
    EXPECT_FALSE(Supported(evidence, "240000 bytes")) << evidence;
  }
}

TEST(Quantities, RoundedFiguresMatchToTheirPrintedPrecision) {
  EXPECT_TRUE(Supported("max abs err 0.21503", "an error of 0.215"));
  EXPECT_TRUE(Supported("max abs err 0.21503", "an error of 0.22"));
  EXPECT_FALSE(Supported("max abs err 0.21503", "an error of 0.23"));
  EXPECT_FALSE(Supported("max abs err 0.21503", "an error of 0.214"));
  EXPECT_TRUE(Supported("3.8e-06", "3.8e-6"));
  EXPECT_TRUE(Supported("1500 us", "1.5 ms"));
  EXPECT_TRUE(Supported("occupancy 0.5", "50%"));
}

TEST(Quantities, NumbersInsideWordsAreNotQuantities) {
  EXPECT_TRUE(ExtractQuantities("sm_90a fp8 e4m3 bf16 x86").empty());
  std::vector<Quantity> q = ExtractQuantities("a 128x64 tile");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].values[0], 128);
  EXPECT_EQ(q[1].values[0], 64);
  q = ExtractQuantities("227 KiB, 2.5 ms");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].text, "227 KiB");
  EXPECT_EQ(q[1].text, "2.5 ms");
}

TEST(Quantities, MeasuredTopics) {
  EXPECT_TRUE(ClaimHasMeasuredTopic("shared memory rises to 294912 bytes"));
  EXPECT_TRUE(ClaimHasMeasuredTopic("168 registers per thread"));
  EXPECT_TRUE(ClaimHasMeasuredTopic("throughput drops"));
  EXPECT_TRUE(ClaimHasMeasuredTopic("max abs error 2.48"));
  EXPECT_FALSE(ClaimHasMeasuredTopic("the loop now visits split * chunk first"));
}

}  // namespace
}  // namespace av
