#include "pipeline/package_init.h"

#include <filesystem>

#include "core/file.h"
#include "pipeline/default_configs.h"

namespace av {

namespace fs = std::filesystem;

std::string DefaultAttnverifyToml() {
  return R"toml(# attnverify.toml: the acceptance package of one kernel refactor (attnverify init).
# Every relative path is relative to this file's folder. Each table is read by the
# command named beside it; an unknown key is an error, so a typo never weakens a check.
# Formats: doc/run.md, doc/review.md, doc/report.md and doc/formats/ in attnverify's source.

[slice]                      # attnverify slice: one unified diff per component
repo = ".."                  # the git work tree holding the kernels
base = "HEAD~1"              # the revision the change is measured against

[components]                 # name = path globs relative to the repo; first match wins
flashmla = ["src/flash_mla/**"]
deepgemm = ["src/deep_gemm/**"]
main_attention = ["src/main_attention/**"]

[review]                     # attnverify review: findings over the diffs
reviewer = "builtin"         # offline rule engine; each finding names the command that checks it

# [build]                    # attnverify build: nvcc -Xptxas -v on base and head
# root = ".."
# sources = ["src/flash_mla/flash_fwd_mla.cu"]
# flags = ["-O3", "-std=c++17"]
# archs = ["sm_90a"]
# block_size = 128
# [[build.kernel]]
# name = "flash_fwd_splitkv_mla_kernel"
# dynamic_smem = "2 * 64 * 576 * 2"    # bytes, as the launch passes them

[numerics]                   # attnverify numerics: the candidate over the shape sweep
shapes = "config/shapes.json"
tolerances = "config/tolerances.json"
reference = "fast"           # blocked, float64-accumulating; the float64 oracle ("oracle")
                             # re-judges every failing or near-tolerance case and 1 in 64
oracle_sample = 64           # cases cross-checked by the oracle (stable hash of the id); 0 = off

# [candidate]                # your kernel: one run over work/cases.json ({cases})
# command = ["python3", "../tests/attnverify_candidate.py", "{cases}"]
# adapter = "torch_sdpa"     # instead of command: flash_mla, deep_gemm, flash_attn, torch_sdpa
# timeout_s = 600

[policy]                     # attnverify report: items that must PASS to accept
required = [1, 2, 3, 4, 5, 6, 7, 8]
# The GPU-only checks (4.perf: timings before and after; 3.bank_conflicts: ncu) are
# required only when a GPU host produces that evidence for this package. Offline they
# show as MISSING without holding the verdict back.
gpu_evidence = false
# require_agent_review = true  # the agent review (attnverify agent) must run, no stage failed
)toml";
}

std::string DefaultChecklistMarkdown() {
  return R"md(# Acceptance checklist

`attnverify report` (or `attnverify run`) fills in each item as PASS, FAIL, MISSING or N/A
(it does not apply to this change) from the evidence in this package; a conclusion without
evidence does not enter the report.

1. **Numerical correctness**: FP16/BF16/FP8 error against the reference; accumulation
   order; softmax stability (max subtraction, exp, normalisation).
2. **Masks and boundaries**: causal, sliding window, varlen, padding, across block
   boundaries; which shapes are not covered.
3. **Shared memory and registers**: ptxas report, occupancy, register spills, bank conflicts.
4. **GEMM tile scheduling**: tile sizes, K split, boundary guards, async copies, pipeline
   stages; time and throughput before and after for the same shapes.
5. **Split-k**: number of splits, accumulation order, partial write-back, sync points,
   shared memory reuse; checked at several sequence lengths.
6. **Attention interface**: Q/K/V layout, strides, head dim, batch/head merging, output
   dtype; caller arguments against the kernel's declaration.
7. **Fallback**: the old path can still be selected, by shape or dtype; the chosen path is
   recorded.
8. **Evidence**: every conclusion points to a command, a log or a metrics file.
)md";
}

Result<InitResult> InitPackage(const std::string& package_dir, bool force) {
  const fs::path root = package_dir;
  const std::pair<const char*, std::string> files[] = {
      {"attnverify.toml", DefaultAttnverifyToml()},
      {"acceptance_checklist.md", DefaultChecklistMarkdown()},
      {"config/shapes.json", kDefaultShapesJson},
      {"config/tolerances.json", kDefaultTolerancesJson},
      // What no clone should carry: the lock every command takes (rewritten by each, so a
      // committed one dirties the tree) and the sweep's case files.
      {".gitignore",
       "# written by attnverify init: the package lock and the sweep's work folder\n"
       "/.attnverify.lock\n/work/\n"},
  };
  std::error_code ec;
  for (const char* dir : {"", "config", "diff", "logs", "evidence", "reports"}) {
    fs::create_directories(root / dir, ec);
    if (ec) return IoError((root / dir).string() + ": cannot create the folder: " + ec.message());
  }
  InitResult result;
  for (const auto& [name, text] : files) {
    const std::string path = (root / name).string();
    if (!force && fs::exists(path, ec)) {
      result.kept.push_back(path);
      continue;
    }
    AV_RETURN_IF_ERROR(WriteFileAtomically(path, text));
    result.written.push_back(path);
  }
  return result;
}

}  // namespace av
