// The built-in reviewer's cost against the size of a change (reliability M6): one change
// block of N changed lines (N/2 guards loosened, `<` -> `<=`, as removed/added pairs), parsed
// and reviewed; and one 50 MB added line. The time per changed line must stay flat from 4k
// to 200k lines. Run: build/review_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <string>

#include "diff/diff.h"
#include "review/rules.h"

namespace av {
namespace {

// The shape of reliability.md's reproducer: a single hunk whose every line changes.
std::string GuardDiff(int64_t changed_lines) {
  const int64_t n = changed_lines / 2;
  std::string d =
      "diff --git a/src/k.cu b/src/k.cu\nindex 1111111..2222222 100644\n--- a/src/k.cu\n"
      "+++ b/src/k.cu\n@@ -1," +
      std::to_string(n) + " +1," + std::to_string(n) + " @@\n";
  for (int64_t i = 0; i < n; ++i) {
    d += "-  if (i < seqlen_k) acc += x[" + std::to_string(i) + "];\n";
    d += "+  if (i <= seqlen_k) acc += x[" + std::to_string(i) + "];\n";
  }
  return d;
}

void BM_ReviewChangedLines(benchmark::State& state) {
  const std::string text = GuardDiff(state.range(0));
  int64_t findings = 0;
  for (auto _ : state) {
    Result<Diff> diff = ParseUnifiedDiff(text, "bench.diff");
    if (!diff.ok()) {
      state.SkipWithError(diff.status().message().c_str());
      return;
    }
    std::vector<Finding> f = ReviewDiff(*diff, "k", ReviewOptions(), nullptr, nullptr);
    findings = static_cast<int64_t>(f.size());
    benchmark::DoNotOptimize(f);
  }
  state.counters["changed_lines"] = static_cast<double>(state.range(0));
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["us_per_line"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert,
      benchmark::Counter::kIs1000);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReviewChangedLines)
    ->Arg(4'000)
    ->Arg(8'000)
    ->Arg(16'000)
    ->Arg(32'000)
    ->Arg(200'000)
    ->Unit(benchmark::kMillisecond);

// One added line of 50 MB of tokens: rules see its first 16 KiB.
void BM_ReviewLongLine(benchmark::State& state) {
  std::string text =
      "diff --git a/src/k.cu b/src/k.cu\nindex 1111111..2222222 100644\n--- a/src/k.cu\n"
      "+++ b/src/k.cu\n@@ -1 +1 @@\n-  if (i < seqlen_k) acc += x[0];\n+  if (i <= seqlen_k) ";
  const std::string unit = "acc += x; ";
  while (text.size() < (size_t{50} << 20)) text += unit;
  text += "\n";
  for (auto _ : state) {
    Result<Diff> diff = ParseUnifiedDiff(text, "bench.diff");
    if (!diff.ok()) {
      state.SkipWithError(diff.status().message().c_str());
      return;
    }
    std::vector<Finding> f = ReviewDiff(*diff, "k", ReviewOptions(), nullptr, nullptr);
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReviewLongLine)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace av

BENCHMARK_MAIN();
