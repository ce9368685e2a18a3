// Throughput of CompareTensors (GB/s of candidate + reference bytes read), per rule and
// dtype pair, on in-memory tensors. Run: build/compare_bench [--benchmark_filter=...]
// Figures go in the issue notes, never into tests.
#include <benchmark/benchmark.h>

#include <cmath>

#include "numerics/compare.h"

namespace av {
namespace {

Tensor Fill(DType dtype, int64_t n, double noise) {
  Tensor t = Tensor::Zeros(dtype, {n});
  // A cheap deterministic signal with a small perturbation; values stay finite.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double jitter = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
    double v = std::sin(0.001 * static_cast<double>(i)) + noise * jitter;
    StoreFromDouble(dtype, v, t.mutable_data() + i * static_cast<int64_t>(t.element_size()));
  }
  return t;
}

void BM_Compare(benchmark::State& state, RuleKind kind, DType cand_dtype, DType ref_dtype) {
  const int64_t n = state.range(0);
  Tensor ref = Fill(ref_dtype, n, 0.0);
  // exact: equal tensors (its common, passing case); the others: a perturbed candidate.
  Tensor cand = Fill(cand_dtype, n, kind == RuleKind::kExact ? 0.0 : 1e-3);
  Tensor low = Fill(cand_dtype, n, 5e-4);
  RuleRequest req;
  req.kind = kind;
  if (kind == RuleKind::kAllclose) req.atol = 1e-2, req.rtol = 1e-2;
  for (auto _ : state) {
    auto report =
        CompareTensors(cand, ref, kind == RuleKind::kLowprecMultiple ? &low : nullptr, req);
    benchmark::DoNotOptimize(report);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(cand.nbytes() + ref.nbytes()));
  state.SetItemsProcessed(state.iterations() * n);
}

constexpr int64_t kElements = 16 << 20;  // 16 Mi elements: 64 MiB per f32 tensor

BENCHMARK_CAPTURE(BM_Compare, allclose_f32_f32, RuleKind::kAllclose, DType::kF32, DType::kF32)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compare, allclose_bf16_f32, RuleKind::kAllclose, DType::kBF16, DType::kF32)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compare, flashmla_bf16_f32, RuleKind::kFlashMla, DType::kBF16, DType::kF32)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compare, cos_diff_bf16_f32, RuleKind::kCosDiff, DType::kBF16, DType::kF32)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compare, lowprec_bf16_f32, RuleKind::kLowprecMultiple, DType::kBF16,
                  DType::kF32)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compare, exact_f16_f16, RuleKind::kExact, DType::kF16, DType::kF16)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compare, allclose_f8e4m3_f32, RuleKind::kAllclose, DType::kF8E4M3FN,
                  DType::kF32)
    ->Arg(kElements)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace av

BENCHMARK_MAIN();
