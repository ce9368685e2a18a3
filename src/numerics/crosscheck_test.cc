// Cross-check against an independent implementation: numpy computes every metric
// (math.fsum sums) and each anchor's verdict with its own formula — torch.testing
// itself for allclose when torch is installed. Skipped, with the reason, without numpy.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "numerics/compare.h"
#include "tensor/tensor_file.h"
#include "testing/test_util.h"

namespace av {
namespace {

double Number(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>() == "inf" ? INFINITY : NAN;
  return j.get<double>();
}

void ExpectRelClose(double ours, double theirs, const std::string& what) {
  if (std::isinf(theirs)) {
    EXPECT_EQ(ours, theirs) << what;
    return;
  }
  double scale = std::max(std::fabs(theirs), 1e-300);
  EXPECT_LE(std::fabs(ours - theirs) / scale, 1e-12)
      << what << ": ours " << ours << ", numpy " << theirs;
}

struct Variant {
  const char* key;
  RuleKind kind;
  std::optional<double> atol, rtol, cos, k;
};

TEST(CrossCheckTest, MetricsAndVerdictsAgreeWithNumpyAndTorch) {
  std::string python = testing::FindPythonWithNumpy();
  if (python.empty()) GTEST_SKIP() << "no python3 with numpy (Debian python3-numpy) found";
  testing::TempDir dir;
  auto gen = testing::RunShell(python + " " + testing::SourceDir() +
                               "/testdata/numerics/crosscheck.py " + dir.path());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  std::ifstream in(dir.File("expected.json"));
  nlohmann::json expected = nlohmann::json::parse(in);
  std::cout << "allclose oracle: " << expected["allclose_oracle"].get<std::string>() << "\n";

  const Variant variants[] = {
      {"allclose", RuleKind::kAllclose, {}, {}, {}, {}},
      {"allclose_loose", RuleKind::kAllclose, 1e-3, 1e-2, {}, {}},
      {"flashmla", RuleKind::kFlashMla, 1e-5, 1e-2, 1e-7, {}},
      {"flashmla_loose", RuleKind::kFlashMla, 1e-3, 5e-2, 1e-4, {}},
      {"cos_diff", RuleKind::kCosDiff, {}, {}, 1e-3, {}},
      {"cos_diff_tight", RuleKind::kCosDiff, {}, {}, 1e-9, {}},
      {"lowprec_multiple", RuleKind::kLowprecMultiple, 0.0, {}, {}, 2.0},
  };
  int checked = 0;
  for (const auto& c : expected["cases"]) {
    const std::string name = c["name"];
    const std::string base = dir.File(name) + "/";
    auto cand = LoadTensor(base + "cand.npy");
    auto ref = LoadTensor(base + "ref.npy");
    auto low = LoadTensor(base + "low.npy");
    ASSERT_TRUE(cand.ok() && ref.ok() && low.ok()) << name;
    for (const Variant& v : variants) {
      RuleRequest req;
      req.kind = v.kind;
      req.atol = v.atol;
      req.rtol = v.rtol;
      req.cos_tol = v.cos;
      req.k = v.k;
      const Tensor* lowp = v.kind == RuleKind::kLowprecMultiple ? &*low : nullptr;
      auto report = CompareTensors(*cand, *ref, lowp, req);
      ASSERT_TRUE(report.ok()) << name << " " << v.key << ": " << report.status().message();
      EXPECT_EQ(report->passed, c["verdicts"][v.key].get<bool>())
          << name << " under " << v.key << "\n"
          << (report->failures.empty() ? "" : report->failures[0]);
      ++checked;
      if (v.kind != RuleKind::kAllclose || v.atol) continue;
      const auto& m = c["metrics"];
      const Metrics& ours = report->metrics;
      EXPECT_EQ(ours.compared, m["compared"].get<int64_t>()) << name;
      ExpectRelClose(ours.max_abs, Number(m["max_abs"]), name + " max_abs");
      ExpectRelClose(ours.max_rel, Number(m["max_rel"]), name + " max_rel");
      ExpectRelClose(ours.mean_abs, Number(m["mean_abs"]), name + " mean_abs");
      ExpectRelClose(ours.rmse, Number(m["rmse"]), name + " rmse");
      ExpectRelClose(ours.cos_diff, Number(m["cos_diff"]), name + " cos_diff");
      ExpectRelClose(ours.nmse, Number(m["nmse"]), name + " nmse");
    }
  }
  EXPECT_GE(checked, 400);
}

}  // namespace
}  // namespace av
