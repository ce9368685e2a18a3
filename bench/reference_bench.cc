// Throughput of the fast reference ops in GFLOP/s and as a fraction of this machine's
// float32 FMA peak, measured in the same run (a register-resident AVX-512 FMA loop on
// every hardware thread; AVX2 + FMA on a CPU without AVX-512, where the fast kernels run
// their portable build — the `isa` label says which). FLOP counts: attention 2 (d + dv) per visible
// (query, key) pair (split-k partials and sparse attention too); GEMM 2 m n k. Run:
// build/reference_bench
// [--benchmark_filter=...] Figures go in the issue notes and doc/ops.md, never into tests.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/thread_pool.h"
#include "reference/fast_attention.h"
#include "reference/fast_fp8_dot.h"
#include "reference/fast_gemm.h"
#include "reference/fast_kernels.h"
#include "reference/fp8_quant.h"
#include "reference/mla_decode.h"
#include "reference/sparse_attention_fast.h"
#include "reference/splitk.h"
#include "tensor/float_convert.h"

namespace av {
namespace {

// 24 independent accumulators hide the 4-cycle FMA latency on both FMA ports. GCC 12's
// _mm512_reduce_add_ps starts from an _mm512_undefined_ps() that its own -Wuninitialized
// reports inside <avx512fintrin.h> (as in fast_kernels_avx512.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,fma"), noinline)) float FmaLoop512(int64_t iters) {
  __m512 acc[24];
#pragma GCC unroll 24
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(float(i) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t n = 0; n < iters; ++n)
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 s = acc[0];
#pragma GCC unroll 24
  for (int i = 1; i < 24; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}
// The same on a CPU without AVX-512 (AVX2 + FMA: 8 lanes, 12 accumulators of 16 registers).
__attribute__((target("avx2,fma"), noinline)) float FmaLoop256(int64_t iters) {
  __m256 acc[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(float(i) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t n = 0; n < iters; ++n)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 s = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[7];
}
#pragma GCC diagnostic pop

// The widest FMA loop this CPU runs (`iters` rounds), and the FLOP in one round of it.
bool HasAvx512() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
}
float FmaLoop(int64_t iters) { return HasAvx512() ? FmaLoop512(iters) : FmaLoop256(iters); }
double FmaRoundFlops() { return HasAvx512() ? 24 * 16 * 2 : 12 * 8 * 2; }

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// GFLOP/s of FmaLoop on one core per second of that thread's CPU time: unlike the wall-clock
// peak below it does not drop when other processes take the core, so `cpu_frac` (work per
// CPU second against it) compares kernels on a loaded machine (best of 3 runs).
double FmaCorePeakGflops() {
  static const double peak = [] {
    const int64_t iters = 20'000'000;
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const double t0 = ThreadCpuSeconds();
      volatile float sink = FmaLoop(iters);
      (void)sink;
      best = std::max(best, double(iters) * FmaRoundFlops() / (ThreadCpuSeconds() - t0) / 1e9);
    }
    return best;
  }();
  return peak;
}

// GFLOP/s of FmaLoop on every hardware thread at once (best of 3 runs of ~0.2 s).
double FmaPeakGflops() {
  static const double peak = [] {
    const int threads = ResolveThreadCount(0);
    const int64_t iters = 20'000'000;
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
      std::atomic<float> sink{0};
      auto t0 = std::chrono::steady_clock::now();
      ParallelFor(threads, threads, [&](int64_t, int) { sink = sink + FmaLoop(iters); });
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, double(threads) * double(iters) * FmaRoundFlops() / s / 1e9);
    }
    return best;
  }();
  return peak;
}

// fraction: wall-clock GFLOP/s over the all-thread peak (the figure; falls when
// other processes share the cores). cpu_frac: GFLOP per process CPU second over the
// one-core CPU-time peak (not lowered by time spent descheduled, so comparable across
// runs on a shared machine; blind to threads idling for lack of work).
void Report(benchmark::State& state, double flops_per_iter, double cpu_seconds,
            const std::string& label = "") {
  const double gflops = flops_per_iter * double(state.iterations()) / 1e9;
  state.counters["GFLOP/s"] = benchmark::Counter(gflops, benchmark::Counter::kIsRate);
  state.counters["fraction"] =
      benchmark::Counter(gflops / FmaPeakGflops(), benchmark::Counter::kIsRate);
  state.counters["cpu_frac"] = gflops / cpu_seconds / FmaCorePeakGflops();
  state.counters["peak_GFLOP/s"] = FmaPeakGflops();
  state.counters["threads"] = ResolveThreadCount(0);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["maxrss_MB"] = double(ru.ru_maxrss) / 1024.0;
  state.SetLabel(std::string("isa=") + GetBlockKernels<float>().isa +
                 (HasAvx512() ? " peak=avx512" : " peak=avx2") + label);
}

Tensor RandomBf16(std::mt19937& rng, Shape shape) {
  Tensor t = Tensor::Zeros(DType::kBF16, std::move(shape));
  std::uniform_real_distribution<float> dist(-1, 1);
  auto* p = reinterpret_cast<uint16_t*>(t.mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = FloatToBFloat16(dist(rng));
  return t;
}

Tensor Ints(std::vector<int32_t> v, Shape shape) {
  Tensor t = Tensor::Zeros(DType::kI32, std::move(shape));
  std::memcpy(t.mutable_data(), v.data(), v.size() * 4);
  return t;
}

void BM_FmaPeak(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(FmaPeakGflops());
  state.counters["peak_GFLOP/s"] = FmaPeakGflops();
  state.counters["core_peak_GFLOP/s"] = FmaCorePeakGflops();
}

// The fast reference as the sweep runs it for the attention family: float64 accumulation
// (FastOptions::accumulate_f64; argument `f64` = 1) or float32 (0); with float64, `tiles`
// = 1 lets bf16 inputs run on the AMX tile kernels where the CPU has them (the sweep's
// default), 0 keeps the float64 FMA kernels (before / after in the same run).
FastOptions Accumulation(const benchmark::State& state, int arg) {
  FastOptions f;
  f.accumulate_f64 = state.range(arg) != 0;
  f.tiles = state.range(arg + 1) != 0 ? TilePath::kAuto : TilePath::kOff;
  return f;
}


// FlashMLA's decode shape: b = 4, h_q = 128, s_k = 8192, d = 576, dv = 512, page 64, bf16.
void BM_MlaDecode(benchmark::State& state) {
  const int64_t b = 4, s_q = state.range(0), h_q = 128, s_k = 8192, d = 576, dv = 512, page = 64;
  std::mt19937 rng(1);
  const int64_t blocks_per = s_k / page;
  std::vector<int32_t> table;
  std::vector<int32_t> lens(static_cast<size_t>(b), static_cast<int32_t>(s_k));
  for (int64_t i = 0; i < b * blocks_per; ++i)
    table.push_back(int32_t((i * 7919) % (b * blocks_per)));
  MlaDecodeInputs in{RandomBf16(rng, {b, s_q, h_q, d}),
                     RandomBf16(rng, {b * blocks_per, page, 1, d}), Ints(table, {b, blocks_per}),
                     Ints(lens, {b})};
  MlaDecodeParams p;
  p.causal = true;
  double pairs = 0;  // visible (query, key) pairs under the bottom-right causal mask
  for (int64_t i = 0; i < s_q; ++i) pairs += double(b * h_q) * double(s_k - (s_q - 1 - i));
  FmaPeakGflops();
  FmaCorePeakGflops();
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    auto out = ComputeMlaDecodeFast(in, p, Accumulation(state, 1));
    if (!out.ok()) state.SkipWithError(out.status().message().c_str());
    benchmark::DoNotOptimize(out);
  }
  Report(state, pairs * 2 * double(d + dv), ProcessCpuSeconds() - cpu0,
         " kernel=" + DescribeAttentionKernel(Accumulation(state, 1)));
  state.counters["inputs_MB"] = double(in.q.nbytes() + in.k_cache.nbytes()) / (1 << 20);
}

// Causal prefill: b = 1, s = 4096, h = 16, d = dv = 128, bf16.
void BM_PrefillCausal(benchmark::State& state) {
  const int64_t s = 4096, h = 16, d = 128;
  std::mt19937 rng(2);
  AttentionInputs in;
  in.q = RandomBf16(rng, {1, s, h, d});
  in.k = RandomBf16(rng, {1, s, h, d});
  in.v = RandomBf16(rng, {1, s, h, d});
  AttentionParams p;
  p.mask.causal = true;
  FmaPeakGflops();
  FmaCorePeakGflops();
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    auto out = ComputeAttentionFast(in, p, Accumulation(state, 0));
    if (!out.ok()) state.SkipWithError(out.status().message().c_str());
    benchmark::DoNotOptimize(out);
  }
  Report(state, double(h) * double(s) * double(s + 1) / 2 * 2 * double(2 * d),
         ProcessCpuSeconds() - cpu0, " kernel=" + DescribeAttentionKernel(Accumulation(state, 0)));
}

// DeepGEMM's fp8_gemm_nt: m = 4096, n = 7168, k = 2048, 1x128 / 128x128 scales. Argument
// `dot`: 2 = the kernel the sweep runs (AMX tiles where the CPU has them, else as 1),
// 1 = AVX512-BF16 dot products where the CPU has them, 0 = the float32 FMA path
// (dequantised operands), all in the same run.
void BM_Fp8Gemm(benchmark::State& state) {
  const int64_t m = 4096, n = 7168, k = 2048;
  std::mt19937 rng(3);
  auto qa = QuantizePerToken(RandomBf16(rng, {m, k}), false);
  auto qb = QuantizePerBlock(RandomBf16(rng, {n, k}), false);
  if (!qa.ok() || !qb.ok()) {
    state.SkipWithError("quantisation failed");
    return;
  }
  FmaPeakGflops();
  FmaCorePeakGflops();
  const double cpu0 = ProcessCpuSeconds();
  FastOptions f;
  f.allow_bf16_dot = state.range(0) != 0;
  f.tiles = state.range(0) == 2 ? TilePath::kAuto : TilePath::kOff;
  for (auto _ : state) {
    auto out = ComputeFp8GemmNtFast(qa->data, qa->scales, qb->data, qb->scales, f);
    if (!out.ok()) state.SkipWithError(out.status().message().c_str());
    benchmark::DoNotOptimize(out);
  }
  Report(state, 2.0 * double(m) * double(n) * double(k), ProcessCpuSeconds() - cpu0,
         " kernel=" + DescribeFp8GemmKernel(f));
}

// Split-k partials (attention_splitk --impl fast) on the MLA decode shape above with
// FlashMLA's scheduler for an H800's 132 SMs (66 SM parts: ~57 splits of 9 blocks);
// same FLOP count as BM_MlaDecode, plus the combine's O(splits * dv) per row (not counted).
void BM_SplitKPartialsMla(benchmark::State& state) {
  const int64_t b = 4, s_q = state.range(0), h_q = 128, s_k = 8192, d = 576, dv = 512, page = 64;
  std::mt19937 rng(4);
  const int64_t blocks_per = s_k / page;
  std::vector<int32_t> table;
  std::vector<int32_t> lens(static_cast<size_t>(b), static_cast<int32_t>(s_k));
  for (int64_t i = 0; i < b * blocks_per; ++i)
    table.push_back(int32_t((i * 7919) % (b * blocks_per)));
  MlaDecodeInputs m{RandomBf16(rng, {b, s_q, h_q, d}),
                    RandomBf16(rng, {b * blocks_per, page, 1, d}), Ints(table, {b, blocks_per}),
                    Ints(lens, {b})};
  MlaDecodeParams mp;
  mp.causal = true;
  AttentionParams p;
  auto in = MlaDecodeAsAttention(m, mp, &p);
  auto plan =
      FlashMlaSplitPlan(std::vector<int64_t>(size_t(b), s_k), FlashMlaNumSmParts(132, s_q, h_q, 1));
  if (!in.ok() || !plan.ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  double pairs = 0;
  for (int64_t i = 0; i < s_q; ++i) pairs += double(b * h_q) * double(s_k - (s_q - 1 - i));
  FmaPeakGflops();
  FmaCorePeakGflops();
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    auto out = ComputeSplitPartialsFast(*in, p, *plan, {});
    if (!out.ok()) state.SkipWithError(out.status().message().c_str());
    benchmark::DoNotOptimize(out);
  }
  Report(state, pairs * 2 * double(d + dv), ProcessCpuSeconds() - cpu0);
  state.counters["splits"] = double(plan->splits.size());
}

// FlashMLA's sparse prefill shape: s_q = 256 queries, h_q = 128 heads on one latent KV head
// (d = 576, dv = 512), s_kv = 8192, topk = 2048 valid random indices, bf16.
// FLOP = 2 (d + dv) per (query, head, index).
void BM_SparseAttention(benchmark::State& state) {
  const int64_t s_q = 256, h_q = 128, s_kv = 8192, d = 576, dv = 512, topk = 2048;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> key(0, int32_t(s_kv - 1));
  std::vector<int32_t> idx(static_cast<size_t>(s_q * topk));
  for (int32_t& j : idx) j = key(rng);
  SparseAttentionInputs in{RandomBf16(rng, {s_q, h_q, d}), RandomBf16(rng, {s_kv, 1, d}),
                           Ints(idx, {s_q, 1, topk}), Tensor(), Tensor()};
  SparseAttentionParams p;
  p.head_dim_v = dv;
  FmaPeakGflops();
  FmaCorePeakGflops();
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    auto out = ComputeSparseAttentionFast(in, p, {});
    if (!out.ok()) state.SkipWithError(out.status().message().c_str());
    benchmark::DoNotOptimize(out);
  }
  Report(state, double(s_q * h_q * topk) * 2 * double(d + dv), ProcessCpuSeconds() - cpu0);
}

BENCHMARK(BM_FmaPeak)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MlaDecode)
    ->Args({1, 0, 0})
    ->Args({1, 1, 0})
    ->Args({1, 1, 1})
    ->Args({2, 0, 0})
    ->Args({2, 1, 0})
    ->Args({2, 1, 1})
    ->ArgNames({"s_q", "f64", "tiles"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);
BENCHMARK(BM_PrefillCausal)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({1, 1})
    ->ArgNames({"f64", "tiles"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);
BENCHMARK(BM_Fp8Gemm)->Arg(2)->Arg(1)->Arg(0)->ArgName("dot")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_SplitKPartialsMla)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);
BENCHMARK(BM_SparseAttention)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace
}  // namespace av

BENCHMARK_MAIN();
