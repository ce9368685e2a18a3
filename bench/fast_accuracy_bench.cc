// Accuracy of the fast reference against the float64 oracle on the numerics sweep's own
// stress inputs: every case of the grid below is built by the sweep's case builder (the
// same bytes a sweep writes), run through RunReferenceOp with the oracle and with the fast
// path — "f64", the fast reference as the sweep runs it (float64 accumulation for the
// attention family; bf16 inputs on the AMX tile kernels where the CPU has them),
// "f64-fma", its float64 FMA kernels (only where the tiles are there to compare), and
// "f32", its float32 path (RefImpl::fast_f32) — and compared. Per
// sweep, generator and dtype it prints the worst |lse_fast - lse_oracle| (finite
// LSEs; an infinite one must match exactly, else it is counted as a mismatch), the worst
// |o_fast - o_oracle| and that error over the case's max |o_oracle|, and the case ids.
// The FP8 GEMM at DeepGEMM's (n, k) shapes gets the same treatment for each fast kernel,
// the AMX tiles and the AVX512-BF16 dot products (where the CPU has them) and the float32
// FMA path: the
// worst |d_fast - d_oracle| over max(1, max|d_oracle|), the ratio the sweep's referee
// holds to its agreement bound (1e-5 for the float32 paths).
// Not a Google Benchmark: it measures error, not time. Run from the repository root:
//   build/fast_accuracy_bench            (MLA decode s_k <= 4096, h_q <= 128; ~2 min)
//   build/fast_accuracy_bench --quick    (the small shapes only; seconds)
// Figures go in doc/numerics.md, never into tests.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "reference/fast_gemm.h"
#include "reference/ref_ops.h"
#include "reference/tile_registers.h"
#include "sweep/case_builder.h"
#include "sweep/shapes_config.h"

namespace av {
namespace {

// MLA decode at FlashMLA's shape (d 576, dv 512, page 64, h_kv 1), and causal / windowed /
// varlen attention (d 128). Lengths: random, edges (63, 64, 65 ...), half_empty (0 and 1);
// causal attention with s_q > s_k has rows that see no key.
constexpr const char* kGrid = R"({"version": 1, "sweeps": [
  {"name": "mla", "op": "mla_decode",
   "grid": {"b": [4], "s_q": [1, 2], "s_k": [140, 4096], "h_q": [16, 128],
            "lengths": ["random", "half_empty", "edges"]},
   "fixed": {"causal": true}, "dtypes": ["bf16"], "seeds": [0],
   "generators": ["randn", "large_logits", "near_tie"]},
  {"name": "mla_small", "op": "mla_decode",
   "grid": {"b": [4], "s_q": [1, 4], "s_k": [1, 20, 65], "h_q": [1, 9, 64],
            "lengths": ["random", "half_empty"]},
   "fixed": {"causal": true}, "dtypes": ["bf16"], "seeds": [0, 1],
   "generators": ["randn", "large_logits", "near_tie"]},
  {"name": "attn", "op": "attention",
   "grid": {"s_q": [1, 65, 300], "s_k": [1, 64, 300], "causal": [true]},
   "fixed": {"b": 2, "h_q": 4, "h_kv": 2, "d": 128},
   "dtypes": ["bf16", "f16"], "seeds": [0],
   "generators": ["randn", "large_logits", "near_tie"]},
  {"name": "attn_varlen", "op": "attention",
   "grid": {"lengths": ["random", "half_empty", "edges"], "window_left": [-1, 32]},
   "fixed": {"b": 4, "s_q": 200, "s_k": 200, "h_q": 4, "d": 128, "layout": "varlen",
             "causal": true},
   "dtypes": ["bf16"], "seeds": [0],
   "generators": ["randn", "large_logits", "near_tie"]},
  {"name": "fp8", "op": "fp8_gemm",
   "comment": "DeepGEMM's n, k at m = 1 and 128; a grid is not crossed with cases",
   "cases": [{"m": 1, "n": 2112, "k": 7168}, {"m": 1, "n": 576, "k": 7168},
             {"m": 1, "n": 24576, "k": 1536}, {"m": 1, "n": 32768, "k": 512},
             {"m": 1, "n": 7168, "k": 16384}, {"m": 1, "n": 4096, "k": 7168},
             {"m": 1, "n": 7168, "k": 2048}, {"m": 128, "n": 2112, "k": 7168},
             {"m": 128, "n": 576, "k": 7168}, {"m": 128, "n": 24576, "k": 1536},
             {"m": 128, "n": 32768, "k": 512}, {"m": 128, "n": 7168, "k": 16384},
             {"m": 128, "n": 4096, "k": 7168}, {"m": 128, "n": 7168, "k": 2048}], "seeds": [0]}
]})";

std::vector<double> Doubles(const Tensor& t) {
  Tensor c = t.Contiguous();
  std::vector<double> v(static_cast<size_t>(c.numel()));
  LoadAsDouble(c.dtype(), c.data(), int64_t(c.element_size()), c.numel(), v.data());
  return v;
}

const Tensor* Find(const NamedTensors& ts, const std::string& name) {
  for (const auto& [n, t] : ts)
    if (n == name) return &t;
  return nullptr;
}

struct Worst {
  double lse = 0, o_abs = 0, o_rel = 0;
  std::string lse_case, o_case;
  int64_t cases = 0, inf_mismatch = 0, finite_lse = 0, empty_rows = 0;
};

void Measure(const std::string& id, const NamedTensors& oracle, const NamedTensors& fast,
             Worst* out) {
  Worst& w = *out;
  ++w.cases;
  const std::vector<double> lo = Doubles(*Find(oracle, "lse")), lf = Doubles(*Find(fast, "lse"));
  for (size_t i = 0; i < lo.size(); ++i) {
    if (std::isinf(lo[i]) || std::isinf(lf[i])) {
      ++w.empty_rows;
      if (lo[i] != lf[i]) ++w.inf_mismatch;
      continue;
    }
    ++w.finite_lse;
    const double e = std::abs(lf[i] - lo[i]);
    if (!(e <= w.lse)) w.lse = e, w.lse_case = id;
  }
  const std::vector<double> oo = Doubles(*Find(oracle, "o")), of = Doubles(*Find(fast, "o"));
  double max_o = 0, max_e = 0;
  for (size_t i = 0; i < oo.size(); ++i) {
    max_o = std::max(max_o, std::abs(oo[i]));
    const double e = std::abs(of[i] - oo[i]);
    if (!(e <= max_e)) max_e = e;
  }
  if (max_e > w.o_abs) w.o_abs = max_e;
  const double rel = max_o > 0 ? max_e / max_o : max_e;
  if (rel > w.o_rel) w.o_rel = rel, w.o_case = id;
}

// Worst |fast - oracle| / max(1, max|oracle|) of an FP8 GEMM case, per fast kernel.
struct GemmWorst {
  double rel = 0;
  std::string id;
  int64_t cases = 0;
};

void MeasureGemm(const std::string& id, const NamedTensors& in, const Tensor& oracle,
                 std::map<std::string, GemmWorst>* out) {
  const std::vector<double> o = Doubles(oracle);
  double max_o = 1;
  for (double x : o) max_o = std::max(max_o, std::abs(x));
  // The AMX tiles, the AVX512-BF16 dot product, the FMA path: each kernel the CPU has, once.
  std::set<std::string> done;
  for (int kernel = 0; kernel < 3; ++kernel) {
    FastOptions options;
    options.allow_bf16_dot = kernel < 2;
    options.tiles = kernel == 0 ? TilePath::kAuto : TilePath::kOff;
    const std::string k = DescribeFp8GemmKernel(options);
    if (!done.insert(k).second) continue;
    Result<Tensor> fast = ComputeFp8GemmNtFast(*Find(in, "a"), *Find(in, "sa"), *Find(in, "b"),
                                               *Find(in, "sb"), options);
    if (!fast.ok()) {
      std::fprintf(stderr, "%s: %s\n", id.c_str(), fast.status().message().c_str());
      continue;
    }
    const std::vector<double> f = Doubles(*fast);
    double worst = 0;
    for (size_t i = 0; i < o.size(); ++i) worst = std::max(worst, std::abs(f[i] - o[i]));
    GemmWorst& w = (*out)["fp8/" + k];
    ++w.cases;
    if (worst / max_o > w.rel) w.rel = worst / max_o, w.id = id;
  }
}

int Main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  Result<ShapesConfig> shapes = ParseShapesConfig(kGrid, "fast_accuracy_bench grid");
  if (!shapes.ok()) return std::fprintf(stderr, "%s\n", shapes.status().message().c_str()), 2;
  Result<std::vector<CaseSpec>> cases = ExpandCases(*shapes);
  if (!cases.ok()) return std::fprintf(stderr, "%s\n", cases.status().message().c_str()), 2;
  std::map<std::string, Worst> by_gen;  // "sweep/generator"
  std::map<std::string, GemmWorst> gemm;  // per fast kernel
  for (const CaseSpec& spec : *cases) {
    if (spec.kind != VariantKind::kBase) continue;
    if (quick && spec.id.find("s_k=4096") != std::string::npos) continue;
    if (quick && spec.op == "fp8_gemm" && spec.id.find("m=1.") == std::string::npos) continue;
    Result<BuiltCase> built = BuildCase(spec);
    if (!built.ok()) return std::fprintf(stderr, "%s\n", built.status().message().c_str()), 2;
    Result<NamedTensors> in = ApplyLayouts(built->file_tensors, built->layouts);
    if (!in.ok()) return std::fprintf(stderr, "%s\n", in.status().message().c_str()), 2;
    Result<NamedTensors> oracle =
        RunReferenceOp(spec.op, *in, built->op_params, RefImpl{ImplKind::kOracle});
    if (spec.op == "fp8_gemm") {
      if (!oracle.ok()) return std::fprintf(stderr, "%s\n", oracle.status().message().c_str()), 3;
      MeasureGemm(spec.id, *in, *Find(*oracle, "d"), &gemm);
      continue;
    }
    auto it = spec.params.find("generator");
    const std::string gen = it == spec.params.end() ? "randn" : it->second.AsString();
    const std::string key = spec.sweep + "/" + gen + "/" + std::string(DTypeName(spec.dtype));
    // f64: the fast reference as the sweep runs it (bf16 attention on AMX tiles where the
    // CPU has them); f64-fma: its float64 FMA kernels; f32: the float32 path.
    for (const char* path : {"f64", "f64-fma", "f32"}) {
      const std::string name = path;
      if (name == "f64-fma" && !CpuHasAmxBf16()) continue;  // f64 is the FMA path already
      RefImpl impl{ImplKind::kFast};
      impl.fast_f32 = name == "f32";
      impl.fast_tiles = name == "f64";
      Result<NamedTensors> fast = RunReferenceOp(spec.op, *in, built->op_params, impl);
      if (!oracle.ok() || !fast.ok()) {
        std::fprintf(stderr, "%s: %s\n", spec.id.c_str(),
                     (oracle.ok() ? fast : oracle).status().message().c_str());
        return 3;
      }
      Worst& w = by_gen[key + " " + name];
      Measure(spec.id, *oracle, *fast, &w);
    }
  }
  std::printf("%-34s %5s %9s %10s %10s %10s  %s\n", "sweep/generator/dtype", "cases", "lse_rows",
              "max|dlse|", "max|do|", "do/max|o|", "worst lse case; worst o case");
  for (const auto& [key, w] : by_gen) {
    std::printf("%-34s %5lld %9lld %10.2e %10.2e %10.2e  %s; %s\n", key.c_str(), (long long)w.cases,
                (long long)w.finite_lse, w.lse, w.o_abs, w.o_rel, w.lse_case.c_str(),
                w.o_case.c_str());
    if (w.empty_rows > 0 || w.inf_mismatch > 0)
      std::printf("%-34s   empty rows %lld, infinite-LSE mismatches %lld\n", "",
                  (long long)w.empty_rows, (long long)w.inf_mismatch);
  }
  std::printf("\n%-34s %5s %22s  %s\n", "fp8 GEMM kernel", "cases",
              "max|dd|/max(1,max|d|)", "worst case");
  for (const auto& [key, w] : gemm)
    std::printf("%-34s %5lld %22.2e  %s\n", key.c_str(), (long long)w.cases, w.rel, w.id.c_str());
  return 0;
}

}  // namespace
}  // namespace av

int main(int argc, char** argv) { return av::Main(argc, argv); }
