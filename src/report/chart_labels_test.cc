// The HTML charts' labels (report/chart_labels.h): bounded, and distinct for distinct
// kernels (issue 38: instantiations cut to one 45-character prefix read as one kernel).
#include "report/chart_labels.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "report/checklist.h"
#include "report/report_writers.h"

namespace av {
namespace {

// CUTLASS- and FlashMLA-style demangled names that share a long prefix.
const std::vector<std::string> kNames = {
    "void cutlass::Kernel2<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, "
    "256, 64>, cutlass::bfloat16_t, 3> >(cutlass::gemm::kernel::GemmUniversal::Params)",
    "void cutlass::Kernel2<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, "
    "128, 64>, cutlass::bfloat16_t, 4> >(cutlass::gemm::kernel::GemmUniversal::Params)",
    "void cutlass::Kernel2<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, "
    "256, 64>, cutlass::half_t, 3> >(cutlass::gemm::kernel::GemmUniversal::Params)",
    "flash_fwd_mla_combine_kernel<cutlass::bfloat16_t, 512, 64, 8>(DecodingParamsStruct)",
    "flash_fwd_mla_combine_kernel<cutlass::bfloat16_t, 512, 96, 8>(DecodingParamsStruct)",
    "short_kernel",
};

TEST(ChartLabels, BoundedAndDistinctForDistinctNames) {
  const std::vector<std::string> labels = ChartLabels(kNames, 44);
  ASSERT_EQ(labels.size(), kNames.size());
  std::set<std::string> seen(labels.begin(), labels.end());
  EXPECT_EQ(seen.size(), kNames.size());
  for (const std::string& l : labels) EXPECT_LE(l.size(), 44u + 3) << l;
  EXPECT_EQ(labels[5], "short_kernel");
  // The old cut (the first 44 characters) gave the three CUTLASS names one label.
  EXPECT_EQ(kNames[0].substr(0, 44), kNames[1].substr(0, 44));
  // Equal names keep equal labels (one kernel on two archs).
  const std::vector<std::string> twice = ChartLabels({kNames[0], kNames[0], kNames[1]}, 44);
  EXPECT_EQ(twice[0], twice[1]);
  EXPECT_NE(twice[0], twice[2]);
}

TEST(ChartLabels, ThePerfChartShowsOneLabelPerKernel) {
  ChecklistReport r;
  for (size_t i = 0; i < 3; ++i) {
    PerfBar b;
    b.kernel = kNames[i];
    b.shape = "b=1";
    b.status = CheckStatus::kPass;
    b.base_median_ns = b.head_median_ns = 1000;
    b.ratio = 1;
    r.perf.push_back(b);
  }
  const std::string svg = PerfSvg(r);
  std::set<std::string> labels;
  for (size_t at = svg.find("<text x=\"0\""); at != std::string::npos;
       at = svg.find("<text x=\"0\"", at + 1)) {
    const size_t open = svg.find('>', at);
    labels.insert(svg.substr(open + 1, svg.find("</text>", open) - open - 1));
  }
  EXPECT_EQ(labels.size(), 3u) << svg;
}

// Issue 38: imported (example, hand-made) timings read as measured: the chart and the
// table say they are imported and name the export.
TEST(ChartLabels, ImportedTimingsAreMarkedInTheChartAndTheTable) {
  ChecklistReport r;
  PerfBar b;
  b.kernel = "splitk_mla_decode_kernel";
  b.status = CheckStatus::kPass;
  b.base_median_ns = b.head_median_ns = 1000;
  b.ratio = 1;
  b.source = "ncu_base_EXAMPLE.csv (ncu) -> ncu_head_EXAMPLE.csv (ncu)";
  r.perf.push_back(b);
  const std::string svg = PerfSvg(r);
  EXPECT_NE(svg.find("splitk_mla_decode_kernel (imported)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("imported from ncu_base_EXAMPLE.csv (ncu)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("from imported profiler exports"), std::string::npos) << svg;
  const std::string md = PerfTableMarkdown(r);
  EXPECT_NE(md.find("| source (imported) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ncu_base_EXAMPLE.csv (ncu) -> ncu_head_EXAMPLE.csv (ncu) |"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace av
