// Throughput of RedactSecrets (MB/s of prompt scanned) on diff-like text, with the
// environment's literal secrets and all pattern rules, against std::regex doing only two
// of those patterns, which is why redaction uses hand-written scanners (doc/provider.md).
// Also the worst case for a backtracking engine: one long run of token characters.
// Run: build/redact_bench [--benchmark_filter=...]. Figures go in notes, never in tests.
#include <benchmark/benchmark.h>

#include <regex>
#include <string>

#include "llm/redact.h"

namespace av {
namespace {

// ~`bytes` of unified-diff text, a few secret-like tokens sprinkled in.
std::string DiffText(size_t bytes) {
  const std::string lines[] = {
      "+  const int kBlockN = 64;  // keys per tile, see splitk_decode.h\n",
      "-  for (int i = 0; i < s_k; i += kBlockN) { acc[i] += q[i] * k[i]; }\n",
      " @@ -120,7 +120,9 @@ __global__ void splitk_mla_decode_kernel(const Params p) {\n",
      "+  // token budget: task-" + std::string(30, 'a') + " bearer of news\n",
      "+  export HF_HOME=/data/cache; authorization: pending review\n",
  };
  std::string out;
  size_t i = 0;
  while (out.size() < bytes) out += lines[i++ % 5];
  return out;
}

RedactionContext Context() {
  std::map<std::string, std::string> env = {{"TAOTOKEN_API_KEY", "bench-key-0123456789abcdef"},
                                            {"GITHUB_TOKEN", "bench-gh-token-abcdef012345"},
                                            {"AWS_SECRET_ACCESS_KEY", "bench-aws-secret-key-0000"},
                                            {"DB_PASSWORD", "bench-password-1"}};
  return RedactionContext::FromEnvironment(env, "TAOTOKEN_API_KEY");
}

void BM_RedactDiff(benchmark::State& state) {
  const std::string text = DiffText(static_cast<size_t>(state.range(0)));
  const RedactionContext ctx = Context();
  for (auto _ : state) benchmark::DoNotOptimize(RedactSecrets(text, ctx));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_RedactDiff)->Arg(64 << 10)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

// One 1 MiB token: the input a backtracking regex handles worst.
void BM_RedactLongToken(benchmark::State& state) {
  const std::string text = "sk-" + std::string(static_cast<size_t>(state.range(0)), 'a');
  const RedactionContext ctx = Context();
  for (auto _ : state) benchmark::DoNotOptimize(RedactSecrets(text, ctx));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_RedactLongToken)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

// std::regex with just the Anthropic and GitHub patterns, for comparison.
void BM_StdRegexTwoPatterns(benchmark::State& state) {
  const std::string text = DiffText(static_cast<size_t>(state.range(0)));
  const std::regex re("sk-ant-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{36,}");
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::regex_replace(text, re, "[REDACTED]"));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_StdRegexTwoPatterns)->Arg(64 << 10)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace av

BENCHMARK_MAIN();
