#include "profile/units.h"

#include <gtest/gtest.h>

#include <sstream>

#include "profile/csv_reader.h"
#include "profile/kernel_name.h"

namespace av::profile {
namespace {

TEST(ProfileUnits, NumbersAsProfilersPrintThem) {
  EXPECT_EQ(ParseProfilerNumber("406240"), 406240);
  EXPECT_EQ(ParseProfilerNumber("13,485"), 13485);
  EXPECT_EQ(ParseProfilerNumber("795,373,665.48"), 795373665.48);
  EXPECT_EQ(ParseProfilerNumber("1.234.567"), 1234567);  // '.' thousands (de_DE)
  EXPECT_EQ(ParseProfilerNumber("1.234,5"), 1234.5);
  EXPECT_EQ(ParseProfilerNumber("0,74"), 0.74);
  EXPECT_EQ(ParseProfilerNumber("-3"), -3);
  EXPECT_FALSE(ParseProfilerNumber("n/a"));
  EXPECT_FALSE(ParseProfilerNumber(""));
  EXPECT_FALSE(ParseProfilerNumber("PolicySpread"));
  EXPECT_FALSE(ParseProfilerNumber("1,23,4"));
  EXPECT_FALSE(ParseProfilerNumber("--1"));
  EXPECT_FALSE(ParseProfilerNumber("inf"));
}

TEST(ProfileUnits, ScaledUnitsToBase) {
  EXPECT_EQ(NormaliseUnit(6.75, "us").value, 6750);
  EXPECT_EQ(NormaliseUnit(6.75, "us").unit, "ns");
  EXPECT_EQ(NormaliseUnit(2, "msecond").value, 2e6);
  EXPECT_EQ(NormaliseUnit(2.33, "Mbyte").value, 2.33e6);
  EXPECT_EQ(NormaliseUnit(1.5, "Ghz").value, 1.5e9);
  EXPECT_EQ(NormaliseUnit(3, "Gbyte/s").unit, "byte/s");
  EXPECT_EQ(NormaliseUnit(795, "cycle/second").unit, "hz");
  EXPECT_EQ(NormaliseUnit(4, "Kbyte/block").value, 4000);
  EXPECT_EQ(NormaliseUnit(12, "warp").unit, "warp");
}

TEST(ProfileKernelName, NsysAndNcuSpellingsShareAKey) {
  KernelName nsys = NormaliseKernelName(
      "void flash::flash_fwd_kernel<Traits<(int)128, (bool)0, cutlass::bfloat16_t>, (bool)1>"
      "(flash::Flash_fwd_params)");
  KernelName ncu =
      NormaliseKernelName("flash_fwd_kernel<Traits<128, 0, bfloat16_t>, 1>(Flash_fwd_params)");
  EXPECT_EQ(nsys.key, "flash_fwd_kernel<Traits<128,0,bfloat16_t>,1>");
  EXPECT_EQ(nsys.key, ncu.key);
  EXPECT_EQ(nsys.short_name, "flash_fwd_kernel");
  EXPECT_EQ(NormaliseKernelName("_Z6kernelPf").key, "kernel");
  EXPECT_EQ(NormaliseKernelName("_Z6kernelPf").demangled, "kernel(float*)");
  EXPECT_EQ(NormaliseKernelName("void (anonymous namespace)::k<(unsigned long)2>(int)").key,
            "k<2>");
}

TEST(ProfileCsv, QuotesCommasLineBreaksAndCrlf) {
  std::istringstream in("a,\"b,c\",\"d\"\"e\"\r\n\"multi\nline\",x\n,\nlast");
  CsvReader r(in, "f.csv");
  std::vector<std::string> f;
  ASSERT_TRUE(*r.Next(&f));
  EXPECT_EQ(f, (std::vector<std::string>{"a", "b,c", "d\"e"}));
  ASSERT_TRUE(*r.Next(&f));
  EXPECT_EQ(f, (std::vector<std::string>{"multi\nline", "x"}));
  EXPECT_EQ(r.line(), 2u);
  ASSERT_TRUE(*r.Next(&f));
  EXPECT_EQ(f, (std::vector<std::string>{"", ""}));
  ASSERT_TRUE(*r.Next(&f));
  EXPECT_EQ(f, (std::vector<std::string>{"last"}));
  EXPECT_FALSE(*r.Next(&f));
}

}  // namespace
}  // namespace av::profile
