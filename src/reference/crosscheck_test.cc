// Independent cross-check: testdata/reference/crosscheck.py computes torch references
// (explicit matmul + softmax with the anchors' own mask formulas, FlashMLA's block-table
// gather, the split-k combine formula, DeepGEMM's cast recipes, fp8 decoded by formula) for
// generated cases of every op; each must match our oracle to ~1e-12 (float64 both sides)
// and the fp8 codes exactly. Skipped, with the reason, without numpy or torch.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "reference/f64_array.h"
#include "reference/ref_ops.h"
#include "tensor/npy.h"
#include "testing/test_util.h"

namespace av {
namespace {

// The same bytes under another dtype (fp8 codes travel through .npy as uint8).
Result<Tensor> Reinterpret(const Tensor& t, DType dtype) {
  Tensor c = t.Contiguous();
  const size_t offset = static_cast<size_t>(c.data() - c.buffer()->data());
  return Tensor::FromBuffer(c.buffer(), offset, dtype, c.shape());
}

Result<Tensor> LoadCaseTensor(const nlohmann::json& c, const std::string& kind,
                              const std::string& name) {
  AV_ASSIGN_OR_RETURN(Tensor t, ReadNpy(c[kind][name].get<std::string>()));
  if (c["dtypes"].contains(name)) {
    auto dtype = ParseDTypeName(c["dtypes"][name].get<std::string>());
    if (!dtype) return InvalidInput("unknown dtype for " + name);
    return Reinterpret(t, *dtype);
  }
  return t;
}

// Worst |ours - theirs| / max(|theirs|, 1); infinities and NaN must sit in the same places.
double WorstDifference(const Tensor& ours, const Tensor& theirs, std::string* where) {
  if (ours.shape() != theirs.shape()) {
    *where = "shape " + ShapeToString(ours.shape()) + " vs " + ShapeToString(theirs.shape());
    return INFINITY;
  }
  F64Array a = LoadF64(ours), b = LoadF64(theirs);
  double worst = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double x = a.data[i], y = b.data[i];
    if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
    double diff = std::isfinite(x) && std::isfinite(y)
                      ? std::fabs(x - y) / std::max(std::fabs(y), 1.0)
                      : INFINITY;
    if (diff > worst) {
      worst = diff;
      *where = "element " + std::to_string(i) + ": ours " + std::to_string(x) + ", torch " +
               std::to_string(y);
    }
  }
  return worst;
}

TEST(RefCrossCheckTest, EveryOpMatchesIndependentTorchReferences) {
  std::string python = testing::FindPythonWithNumpy();
  if (python.empty()) GTEST_SKIP() << "no python3 with numpy (Debian python3-numpy) found";
  if (testing::RunShell(python + " -c 'import torch'").exit_code != 0) {
    GTEST_SKIP() << python << " has no torch (Debian python3-torch); cross-check skipped";
  }
  testing::TempDir dir;
  auto gen = testing::RunShell(python + " " + testing::SourceDir() +
                               "/testdata/reference/crosscheck.py " + dir.path());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  std::ifstream in(dir.File("cases.json"));
  nlohmann::json all = nlohmann::json::parse(in);
  std::set<std::string> ops_covered;
  int compared = 0;
  for (const auto& c : all["cases"]) {
    const std::string name = c["name"], op = c["op"];
    SCOPED_TRACE(name);
    NamedTensors inputs;
    for (const auto& [key, path] : c["inputs"].items()) {
      auto t = LoadCaseTensor(c, "inputs", key);
      ASSERT_TRUE(t.ok()) << t.status().message();
      inputs.emplace_back(key, *t);
    }
    OpParams params;
    for (const auto& [key, value] : c["params"].items()) params.Set(key, value.get<std::string>());
    auto out = RunReferenceOp(op, inputs, params);
    ASSERT_TRUE(out.ok()) << out.status().message();
    const double tol = c["tol"].get<double>();
    for (const auto& [key, path] : c["expected"].items()) {
      auto want = LoadCaseTensor(c, "expected", key);
      ASSERT_TRUE(want.ok()) << want.status().message();
      const Tensor* ours = nullptr;
      for (const auto& [n, t] : *out)
        if (n == key) ours = &t;
      ASSERT_NE(ours, nullptr) << "no output " << key;
      std::string where;
      EXPECT_LE(WorstDifference(*ours, *want, &where), tol) << key << " " << where;
      ++compared;
    }
    ops_covered.insert(op);
  }
  for (const ReferenceOp& op : ReferenceOps()) {
    if (op.name == "combine") continue;  // covered inside attention_splitk's outputs
    EXPECT_TRUE(ops_covered.count(std::string(op.name))) << op.name << " has no cross-check case";
  }
  EXPECT_GE(compared, 40);
  std::cout << "cross-checked " << compared << " outputs of " << all["cases"].size()
            << " cases against torch " << all["torch"].get<std::string>() << "\n";
}

}  // namespace
}  // namespace av
