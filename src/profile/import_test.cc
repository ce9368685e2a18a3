// Golden tests over the real profiler samples (../shared/profiler-samples; figures checked
// by hand against the raw lines quoted beside each assertion) and the readers' edge cases.
#include "profile/import.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "testing/test_util.h"

namespace av::profile {
namespace {

std::string Sample(const std::string& name) {
  return av::testing::SourceDir() + "/../shared/profiler-samples/" + name;
}

#define SKIP_WITHOUT(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present (shared samples)"

ImportOptions Opt() { return {"head", "s1", "t.csv", "abc"}; }

double Fig(const KernelProfile& k, size_t launch, const char* name) {
  const Figure* f = k.launches.at(launch).Find(name);
  return f ? f->value : -1;
}

TEST(ProfileImport, NcuDetails2025SuperbenchGolden) {
  std::string path = Sample("ncu_details_cc100_fp8gemm_superbench.log");
  SKIP_WITHOUT(path);
  auto r = ImportProfileFile(path, ImportFormat::kAuto, {"base", "", "", ""});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const KernelProfile& k = (*r)[0];
  EXPECT_EQ(k.format, "ncu-details");
  EXPECT_EQ(k.tool_version, "details page, 2023+ layout (20 columns)");
  EXPECT_EQ(k.name.short_name,
            "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_"
            "align4_1sm_bias_f16_relu_aux_scalemax");
  ASSERT_EQ(k.launches.size(), 1u);
  EXPECT_EQ(k.launches[0].grid, "(9, 32, 1)");
  EXPECT_EQ(k.launches[0].block, "(384, 1, 1)");
  EXPECT_EQ(Fig(k, 0, fig::kDuration), 406240);       // "Duration","ns","406240"
  EXPECT_EQ(Fig(k, 0, fig::kDramThroughput), 0.74);   // "DRAM Throughput","%","0.74"
  EXPECT_EQ(Fig(k, 0, fig::kSmThroughput), 23.59);    // "Compute (SM) Throughput"
  EXPECT_EQ(Fig(k, 0, fig::kMemThroughput), 21.68);   // "Memory Throughput"
  EXPECT_EQ(Fig(k, 0, fig::kRegisters), 168);         // "Registers Per Thread"
  EXPECT_EQ(Fig(k, 0, fig::kAchievedOcc), 15.53);     // "Achieved Occupancy"
  EXPECT_EQ(Fig(k, 0, fig::kTheoreticalOcc), 18.75);  // "Theoretical Occupancy"
  EXPECT_EQ(Fig(k, 0, fig::kSmemDynamic), 205696);    // "byte/block","205696"
  EXPECT_EQ(Fig(k, 0, fig::kSmemDriver), 1024);
  EXPECT_EQ(Fig(k, 0, fig::kSmemStatic), 0);
  EXPECT_EQ(k.launches[0].occupancy_limiter, "registers");  // Block Limit Registers 1 (SM 32)
  EXPECT_EQ(k.source_sha256.size(), 64u);
}

TEST(ProfileImport, NcuDetailsAutoScaledUnitsGolden) {
  std::string path = Sample("ncu_details_cc120_metrics_llm-perf-opt.csv");
  SKIP_WITHOUT(path);
  auto r = ImportProfileFile(path, ImportFormat::kAuto, Opt());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const KernelProfile& k = (*r)[0];
  EXPECT_EQ(Fig(k, 0, fig::kDuration), 6750);  // "Duration","us","6.75"
  const Figure* d = k.launches[0].Find(fig::kDuration);
  EXPECT_EQ(d->raw, "6.75");
  EXPECT_EQ(d->raw_unit, "us");
  EXPECT_DOUBLE_EQ(Fig(k, 0, fig::kDramRead), 2.33e6);  // "dram__bytes_read.sum","Mbyte","2.33"
  EXPECT_EQ(Fig(k, 0, fig::kDramWrite), 0);
  EXPECT_EQ(Fig(k, 0, fig::kDramThroughput), 19.66);
  // ncu prints this kernel without namespaces or casts; the key is the template instance.
  EXPECT_EQ(k.name.short_name, "kernel");
}

TEST(ProfileImport, NcuDetails2019ThousandsSeparatorsGolden) {
  std::string path = Sample("ncu_details_v2019_kerneltime_xplacer_excerpt.log");
  SKIP_WITHOUT(path);
  auto r = ImportProfileFile(path, ImportFormat::kAuto, Opt());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].tool_version, "details page, 2019-2020 layout (12 columns)");
  EXPECT_EQ((*r)[0].name.key, "cuda_compute_step_factor");
  EXPECT_EQ(Fig((*r)[0], 0, fig::kDuration), 8992);  // "nsecond","8,992"
  EXPECT_EQ(Fig((*r)[0], 0, fig::kRegisters), 20);
  EXPECT_EQ(Fig((*r)[0], 0, fig::kAchievedOcc), 48.68);
  EXPECT_EQ(Fig((*r)[0], 0, fig::kDramThroughput), 43.86);  // "SOL FB","%","43.86"
  EXPECT_EQ((*r)[0].launches[0].grid, "506");               // Launch Statistics row
  EXPECT_EQ((*r)[1].name.key, "cuda_compute_flux");
  EXPECT_EQ(Fig((*r)[1], 0, fig::kDuration), 40512);  // "nsecond","40,512"
  EXPECT_EQ(Fig((*r)[1], 0, fig::kRegisters), 60);
  EXPECT_EQ(Fig((*r)[1], 0, fig::kTheoreticalOcc), 46.88);
}

TEST(ProfileImport, NsysKernSumGolden) {
  std::string path = Sample("nsys_cuda_gpu_kern_sum_decode_llm-perf-opt.csv");
  SKIP_WITHOUT(path);
  auto r = ImportProfileFile(path, ImportFormat::kAuto, Opt());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 46u);  // 47 lines, one header
  const KernelProfile* split = nullptr;
  for (const KernelProfile& k : *r) {
    if (k.name.short_name == "flash_fwd_splitkv_kernel") split = &k;
  }
  ASSERT_NE(split, nullptr);
  // 2.4,4254167,768,5539.3,5536.0,5472,5632,27.3,"void flash::flash_fwd_splitkv_kernel<...>"
  ASSERT_TRUE(split->summary.has_value());
  EXPECT_EQ(split->summary->instances, 768);
  EXPECT_EQ(split->summary->total_ns, 4254167);
  EXPECT_EQ(split->summary->med_ns, 5536.0);
  EXPECT_EQ(split->summary->min_ns, 5472);
  EXPECT_EQ(split->summary->stddev_ns, 27.3);
  EXPECT_EQ(split->name.key.rfind(
                "flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128,64,128,4,0,0,bfloat16_t", 0),
            0u)
      << split->name.key;
}

TEST(ProfileImport, NsysAndNcuNamesOfOneKernelShareAKey) {
  std::string nsys = Sample("nsys_cuda_gpu_kern_sum_decode_llm-perf-opt.csv");
  std::string ncu = Sample("ncu_details_cc120_metrics_llm-perf-opt.csv");
  SKIP_WITHOUT(nsys);
  auto a = ImportProfileFile(nsys, ImportFormat::kAuto, Opt());
  auto b = ImportProfileFile(ncu, ImportFormat::kAuto, Opt());
  ASSERT_TRUE(a.ok() && b.ok());
  bool found = false;
  for (const KernelProfile& k : *a) found |= k.name.key == (*b)[0].name.key;
  EXPECT_TRUE(found) << (*b)[0].name.key;
}

TEST(ProfileImport, OlderGpukernsumColumns) {
  std::istringstream in(
      "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n"
      "60.0,3000,3,1000.0,900,1100,\"void k<(int)1, float>(int, float*)\"\n");
  auto r = ImportNsysKernSum(in, Opt());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].summary->avg_ns, 1000.0);
  EXPECT_EQ((*r)[0].summary->med_ns, -1);  // gpukernsum has no median
  EXPECT_EQ((*r)[0].name.key, "k<1,float>");
}

TEST(ProfileImport, NcuRawPageWithUnitsRowAndInstanceValues) {
  std::istringstream in(
      "==PROF== Connected to process 1\n"
      "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"gpu__time_duration.sum\","
      "\"launch__registers_per_thread\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld."
      "sum\"\n"
      "\"\",\"\",\"\",\"\",\"us\",\"register/thread\",\"\"\n"
      "\"0\",\"k\",\"(1, 1, 1)\",\"(128, 1, 1)\",\"1.5\",\"64\",\"(3;4)\"\n"
      "\"1\",\"k\",\"(1, 1, 1)\",\"(128, 1, 1)\",\"1.6\",\"64\",\"7\"\n");
  auto r = ImportNcu(in, Opt());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  ASSERT_EQ((*r)[0].launches.size(), 2u);
  EXPECT_EQ((*r)[0].format, "ncu-raw");
  EXPECT_EQ(Fig((*r)[0], 0, fig::kDuration), 1500);
  EXPECT_EQ(Fig((*r)[0], 0, fig::kBankLd), 7);  // (3;4) summed: a .sum metric
  EXPECT_EQ(Fig((*r)[0], 1, fig::kRegisters), 64);
}

TEST(ProfileImport, RaggedMetricRowsAndRuleRowsWithCommas) {
  std::istringstream in(
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\","
      "\"Rule Name\",\"Rule Description\"\n"
      "\"0\",\"k\",\"S\",\"Duration\",\"ms\",\"1.5\",\n"
      "\"0\",\"k\",\"S\",\"\",\"\",\"\",\"R\",\"a \"\"quoted\"\", comma, text\"\n");
  auto r = ImportNcuDetails(in, Opt());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Fig((*r)[0], 0, fig::kDuration), 1.5e6);
}

TEST(ProfileImport, NcuErrorFileQuotesTheError) {
  std::istringstream in(
      "==PROF== Connected to process 9\n==ERROR== ERR_NVGPUCTRPERM - The user does not have "
      "permission\n");
  auto r = ImportNcu(in, Opt());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ERR_NVGPUCTRPERM"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().rfind("t.csv: ", 0), 0u);
}

TEST(ProfileImport, TruncatedFileIsAnErrorNamingTheLine) {
  std::istringstream cut_in_quote(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"Duration\",\"ns\",\"10\"\n\"0\",\"k\",\"Dura");
  auto a = ImportNcuDetails(cut_in_quote, Opt());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("t.csv:3: quoted field not closed"), std::string::npos)
      << a.status().message();
  std::istringstream cut_between(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"Duration\"\n");
  auto b = ImportNcuDetails(cut_between, Opt());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("t.csv:2: 3 fields"), std::string::npos)
      << b.status().message();
}

TEST(ProfileImport, TimingCsvAndLocaleWithDotThousands) {
  std::istringstream in(
      "# EXAMPLE timings\nkernel,shape,time_ns\n"
      "attn,b1,\"1.234.567\"\nattn,b1,\"1.234,5\"\nattn,b2,13\n");
  auto r = ImportTimingCsv(in, {"base", "", "t.csv", "x"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);  // (attn, b1) and (attn, b2)
  ASSERT_EQ((*r)[0].launches.size(), 2u);
  EXPECT_EQ((*r)[0].launches[0].Find(fig::kDuration)->value, 1234567);
  EXPECT_EQ((*r)[0].launches[1].Find(fig::kDuration)->value, 1234.5);
  EXPECT_EQ((*r)[1].shape, "b2");
  std::istringstream again("kernel,shape,time_ns\nattn,b1,1\nattn,b2,2\n");
  auto one = ImportTimingCsv(again, Opt());  // --shape s1 names every row's shape
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
}

TEST(ProfileImport, GoogleBenchmarkSkipsAggregates) {
  std::string text = R"({"context":{"library_version":"v1.8.3"},"benchmarks":[
    {"name":"BM_attn/128","run_name":"BM_attn/128","run_type":"iteration","real_time":2.0,"time_unit":"us"},
    {"name":"BM_attn/128","run_name":"BM_attn/128","run_type":"iteration","real_time":2.2,"time_unit":"us"},
    {"name":"BM_attn/128_mean","run_name":"BM_attn/128","run_type":"aggregate","real_time":2.1,"time_unit":"us"}]})";
  auto r = ImportGoogleBenchmark(text, {"base", "", "b.json", "x"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].shape, "128");
  EXPECT_EQ((*r)[0].tool_version, "v1.8.3");
  ASSERT_EQ((*r)[0].launches.size(), 2u);
  EXPECT_EQ(Fig((*r)[0], 1, fig::kDuration), 2200);
  EXPECT_FALSE(ImportGoogleBenchmark(std::string(100, '['), {"base", "", "b.json", "x"}).ok());
}

// A generated 50 MB details export: read in one pass, one record in memory at a time.
TEST(ProfileImport, FiftyMegabyteExportStreams) {
  av::testing::TempDir dir;
  std::string path = dir.File("big.csv");
  {
    std::ofstream out(path);
    out << "==PROF== Connected to process 1\n"
           "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    std::string row;
    for (int id = 0; out.tellp() < (50 << 20); ++id) {
      row = "\"" + std::to_string(id) +
            "\",\"void ns::kern<(int)128>(float*)\",\"Duration\",\"ns\",\"" +
            std::to_string(1000 + id % 7) + "\"\n";
      for (int m = 0; m < 40; ++m) {
        out << "\"" << id << "\",\"void ns::kern<(int)128>(float*)\",\"Other " << m
            << "\",\"\",\"1\"\n";
      }
      out << row;
    }
  }
  ASSERT_GE(std::filesystem::file_size(path), 50u << 20);
  struct rusage before, after;
  ::getrusage(RUSAGE_SELF, &before);
  auto r = ImportProfileFile(path, ImportFormat::kAuto, Opt());
  ::getrusage(RUSAGE_SELF, &after);
  // Peak memory grows by the launches kept (~10 MB), not by the file's 50 MB.
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 32 << 10) << "KiB";
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name.key, "kern<128>");
  EXPECT_GT((*r)[0].launches.size(), 10000u);
}

TEST(ProfileImport, UnknownFileSaysWhichFormatsAreKnown) {
  av::testing::TempDir dir;
  std::string path = dir.File("x.txt");
  std::ofstream(path) << "hello\n";
  auto r = ImportProfileFile(path, ImportFormat::kAuto, Opt());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--format"), std::string::npos);
}

// Reliability turn 3, N5: a negative ncu Duration was stored (-24120 ns) and the time gate
// passed the head as "x-1.0" faster. Every time figure below zero is an error at its line.
TEST(ProfileImport, NegativeDurationIsAnErrorNamingTheLine) {
  const std::string header =
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  std::istringstream details(header + "\"0\",\"k\",\"Duration\",\"us\",\"24.12\"\n" +
                             "\"1\",\"k\",\"Duration\",\"us\",\"-24.12\"\n");
  auto a = ImportNcu(details, Opt());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "t.csv:3: Duration is negative: \"-24.12\" us");
  // An instance value whose sum is positive but holds a negative part.
  std::istringstream instances(header + "\"0\",\"k\",\"gpu__time_duration.sum\",\"ns\",\"(50;-3)\"\n");
  auto b = ImportNcu(instances, Opt());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("t.csv:2: gpu__time_duration.sum is negative"),
            std::string::npos)
      << b.status().message();
  std::istringstream raw(
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"ns\"\n\"0\",\"k\",\"-5\"\n");
  auto c = ImportNcu(raw, Opt());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("t.csv:3: gpu__time_duration.sum is negative"),
            std::string::npos)
      << c.status().message();
}

// Reliability turn 3, N6: a Duration in "parsec" was kept unscaled and read as ns, so a head
// 100x slower passed as 10x faster. A time in a unit that is not a time unit is an error.
TEST(ProfileImport, TimeInAnUnknownUnitIsAnErrorNamingTheLine) {
  std::istringstream details(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"Duration\",\"parsec\",\"2412\"\n");
  auto a = ImportNcu(details, Opt());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(),
            "t.csv:2: Duration: unit \"parsec\" is not a time unit (ns, us, ms, s)");
  std::istringstream raw(
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"cycle\"\n"
      "\"0\",\"k\",\"5\"\n");
  auto b = ImportNcu(raw, Opt());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("t.csv:3: gpu__time_duration.sum: unit \"cycle\""),
            std::string::npos)
      << b.status().message();
  // Known units still scale, and a raw page without a units row is in ns (the metric's unit).
  std::istringstream no_units("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"0\",\"k\",\"7\"\n");
  auto c = ImportNcu(no_units, Opt());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(Fig((*c)[0], 0, fig::kDuration), 7);
  std::istringstream nsys(
      "Time (%),Total Time (parsec),Instances,Avg (parsec),Med (parsec),Name\n"
      "60.0,3000,3,1000.0,1000,k\n");
  auto d = ImportNsysKernSum(nsys, Opt());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("t.csv:1: \"Total Time (parsec)\": unit \"parsec\" is not "
                                      "a time unit"),
            std::string::npos)
      << d.status().message();
}

// The same figures in a perf.json edited by hand (or written before the importers refused
// them) are refused when it is read, so the time gate never judges them.
TEST(ProfileImport, PerfJsonWithANegativeOrNonNsDurationIsRefused) {
  const std::string good = R"({"schema": "attnverify.perf/1", "kernels": [{"label": "head",
    "shape": "s", "tool": "ncu", "tool_version": "", "format": "ncu-details",
    "name": {"raw": "k", "demangled": "k", "key": "k", "short": "k"},
    "source": {"file": "h.csv", "sha256": ""},
    "launches": [{"id": "0", "grid": "", "block": "", "occupancy_limiter": "",
      "figures": {"duration_ns": {"value": 24120, "unit": "ns", "raw": "24.12", "raw_unit": "us"}}}]}]})";
  auto ok = ParsePerfJson(good, "perf.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  for (auto [from, to] : {std::pair{"\"value\": 24120", "\"value\": -24120"},
                          {"\"unit\": \"ns\"", "\"unit\": \"parsec\""}}) {
    std::string bad = good;
    bad.replace(bad.find(from), std::string(from).size(), to);
    auto r = ParsePerfJson(bad, "perf.json");
    ASSERT_FALSE(r.ok()) << to;
    EXPECT_NE(r.status().message().find("figures.duration_ns"), std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace av::profile
