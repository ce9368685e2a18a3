// Cost of the sweep's per-case overhead outside the reference and the candidate: input
// generation (BuildCase), writing the case folder (WriteCase: safetensors, sha256,
// case.json), and reading the candidate's outputs back. Cases: one FlashMLA decode case
// (b=4, s_q=2, h_q=128, s_k=8192, d=576, page 64) and the default sweep's mla_decode
// cases (config/shapes.json, variants included, prepared as `attnverify numerics` does:
// the base case built once, its variants reusing it). Run:
//   build/sweep_bench [--benchmark_filter=...]   (ATTNVERIFY_SHAPES overrides shapes.json)
// Figures go in the issue notes, never into tests.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/invariance.h"
#include "sweep/rng.h"
#include "sweep/shapes_config.h"

namespace av {
namespace {

namespace fs = std::filesystem;

CaseSpec BigMlaCase() {
  CaseSpec c;
  c.op = "mla_decode";
  c.sweep = "bench";
  c.params = {{"b", 4}, {"s_q", 2}, {"h_q", 128}, {"s_k", 8192}};
  c.dtype = DType::kBF16;
  c.id = "bench.mla_decode.b=4.s_q=2.h_q=128.s_k=8192.bf16.s0";
  return c;
}

// config/shapes.json beside this source file's folder, unless ATTNVERIFY_SHAPES says.
std::string ShapesPath() {
  if (const char* env = std::getenv("ATTNVERIFY_SHAPES")) return env;
  return (fs::path(__FILE__).parent_path().parent_path() / "config" / "shapes.json").string();
}

std::vector<CaseSpec> DefaultMlaCases() {
  Result<ShapesConfig> cfg = LoadShapesConfig(ShapesPath());
  CHECK(cfg.ok()) << cfg.status().message();
  Result<std::vector<CaseSpec>> all = ExpandCases(*cfg);
  CHECK(all.ok()) << all.status().message();
  std::vector<CaseSpec> out;
  for (const CaseSpec& c : *all) {
    if (c.op == "mla_decode") out.push_back(c);
  }
  return out;
}

std::string TempWorkDir() {
  fs::path p = fs::temp_directory_path() / ("attnverify_sweep_bench." + std::to_string(::getpid()));
  fs::create_directories(p);
  return p.string();
}

int64_t InputBytes(const BuiltCase& b) {
  int64_t n = 0;
  for (const auto& [name, t] : b.file_tensors) n += static_cast<int64_t>(t.nbytes());
  return n;
}

void BM_RngNormal(benchmark::State& state) {
  Rng rng(StreamKey("bench", "q", 0));
  double sum = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) sum += rng.Normal();
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_RngNormal);

void BM_RngNormals(benchmark::State& state) {
  Rng rng(StreamKey("bench", "q", 0));
  std::vector<double> out(4096);
  for (auto _ : state) {
    rng.Normals(out.data(), static_cast<int64_t>(out.size()));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(out.size()));
}
BENCHMARK(BM_RngNormals);

void BM_BuildBigMla(benchmark::State& state) {
  const CaseSpec spec = BigMlaCase();
  int64_t bytes = 0;
  for (auto _ : state) {
    Result<BuiltCase> b = BuildCase(spec);
    CHECK(b.ok()) << b.status().message();
    bytes = InputBytes(*b);
    benchmark::DoNotOptimize(b);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_BuildBigMla)->Unit(benchmark::kMillisecond);

void BM_BuildAndWriteBigMla(benchmark::State& state) {
  const CaseSpec spec = BigMlaCase();
  const std::string work = TempWorkDir();
  int64_t bytes = 0;
  for (auto _ : state) {
    Result<BuiltCase> b = BuildCase(spec);
    CHECK(b.ok()) << b.status().message();
    Result<WrittenCase> w = WriteCase(work, spec, *b);
    CHECK(w.ok()) << w.status().message();
    bytes = InputBytes(*b);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  fs::remove_all(work);
}
BENCHMARK(BM_BuildAndWriteBigMla)->Unit(benchmark::kMillisecond);

// What `attnverify numerics --filter mla_decode` spends in Prepare for the whole default
// sweep: per group the base case built once, each case's folder written (num_splits and
// rerun variants link to the base's inputs). Iterations after the first rewrite folders
// that exist, as a rerun of the sweep does.
void BM_PrepareDefaultMlaSweep(benchmark::State& state) {
  const std::vector<CaseSpec> cases = DefaultMlaCases();
  const std::string work = TempWorkDir();
  const bool write = state.range(0) != 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    std::optional<BuiltCase> base;
    for (const CaseSpec& c : cases) {
      if (c.kind == VariantKind::kBase) base.reset();
      std::optional<BuiltCase> built;
      if (c.kind == VariantKind::kSeed) {
        Result<BuiltCase> b = BuildCase(c);
        CHECK(b.ok()) << b.status().message();
        built = std::move(*b);
      } else {
        if (!base) {
          CaseSpec plain = c;
          plain.kind = VariantKind::kBase;
          Result<BuiltCase> b = BuildCase(plain);
          CHECK(b.ok()) << b.status().message();
          base = std::move(*b);
        }
        built = *base;
        Status st = ApplyInputVariant(c, &*built);
        CHECK(st.ok()) << st.message();
      }
      bytes += InputBytes(*built);
      if (write) {
        // Every case its own inputs file, variants included (a variant's copy is what the
        // candidate must not tell from a base case's file).
        Result<WrittenCase> w = WriteCase(work, c, *built);
        CHECK(w.ok()) << w.status().message();
      }
    }
  }
  state.counters["cases"] = static_cast<double>(cases.size());
  state.SetBytesProcessed(state.iterations() * bytes);
  fs::remove_all(work);
}
BENCHMARK(BM_PrepareDefaultMlaSweep)
    ->ArgName("write")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace av

BENCHMARK_MAIN();
