#include "cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "core/process.h"
#include "core/version.h"

namespace av::cli {
namespace {

constexpr Command kCommands[] = {
    {"agent",
     "the agent reviewer: staged rounds to the pinned provider, findings held to evidence",
     &RunAgent},
    {"agent-config",
     "Claude Code, Codex and CC Switch configs from [provider]: emit them, audit any",
     &RunAgentConfig},
    {"build",
     "compile evidence (nvcc -Xptxas -v): registers, smem, spills, occupancy; base vs head",
     &RunBuild},
    {"cases", "write the sweep's case folders (--export DIR) for pytest; list case ids", &RunCases},
    {"compare", "compare a candidate tensor with a reference under an anchor's rule", &RunCompare},
    {"help", "list commands, or show one command's options", &RunHelp},
    {"init", "write an attention-verify/ package: attnverify.toml, configs, checklist", &RunInit},
    {"judge", "judge outputs computed elsewhere (pytest) as numerics does: numerics.json",
     &RunJudge},
    {"ledger", "the token ledger summed per stage, kernel, model, key or run: tokens, time, cost",
     &RunLedger},
    {"merge", "combine the numerics.json files of sweep shards into one", &RunMerge},
    {"numerics", "run a shape sweep against the reference", &RunNumerics},
    {"policy", "allow, ask or deny for a shell command under Claude Code permission rules",
     &RunPolicy},
    {"profile",
     "profiler evidence: import ncu/nsys/benchmark exports to perf.json, or run ncu; gates",
     &RunProfile},
    {"provider", "the pinned agent provider: `provider check` sends one short request",
     &RunProvider},
    {"ref", "run a float64 reference op (attention, mla_decode, fp8_gemm, ...) on tensors",
     &RunRef},
    {"report", "the eight-item checklist from the package's evidence: md, json, html, sarif",
     &RunReport},
    {"review",
     "built-in reviewer: findings over the sliced diffs, each with the command that verifies it",
     &RunReview},
    {"run", "the main job: slice, review, build, numerics, report; exit 0 only when accepted",
     &RunRun},
    {"slice", "one unified diff per component (flashmla, deepgemm, main_attention, ...) from git",
     &RunSlice},
    {"verify-package", "recompute manifest.json: every package file's sha256", &RunVerifyPackage},
    {"version", "print the version", &RunVersion},
};

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "attnverify %s: acceptance verdicts for attention and GEMM kernel refactors\n\n"
               "usage: attnverify <command> [options]   (attnverify help <command> for more)\n\n"
               "commands:\n",
               ATTNVERIFY_VERSION);
  for (const Command& c : kCommands) {
    std::fprintf(out, "  %-15s %.*s\n", std::string(c.name).c_str(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
  std::fprintf(out,
               "\nexit codes: 0 accepted/ok, 1 rejected, 2 usage or input error, 3 internal "
               "error\n");
}

}  // namespace

std::span<const Command> Commands() { return kCommands; }

std::vector<std::string> SuggestCommands(std::string_view typo) {
  std::vector<std::string> out;
  for (const Command& c : kCommands) {
    bool prefix = !typo.empty() && c.name.substr(0, typo.size()) == typo;
    if (prefix || EditDistance(typo, c.name) <= 2) out.emplace_back(c.name);
  }
  return out;
}

int ReportError(const Status& status) {
  std::fprintf(stderr, "attnverify: %s\n", status.message().c_str());
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitUsage;
}

int RunVersion(std::vector<std::string>) {
  std::printf("attnverify %s\n", ATTNVERIFY_VERSION);
  return kExitOk;
}

int RunHelp(std::vector<std::string> args) {
  if (args.size() < 2) {
    PrintUsage(stdout);
    return kExitOk;
  }
  for (const Command& c : kCommands) {
    if (c.name == args[1]) return c.run({std::string(c.name), "--help"});
  }
  return ReportError(InvalidInput("help: no command named \"" + args[1] + "\""));
}

namespace {

int Dispatch(int argc, char** argv) {
  // Before anything is written or started: SIGXFSZ ignored (EFBIG names the file), the
  // programs we start handed back to us if their reaper dies (core/process.h).
  InitProcessGuards();
  if (argc < 2) {
    PrintUsage(stderr);
    return kExitUsage;
  }
  std::string name = argv[1];
  if (name == "--version" || name == "-V") return RunVersion({});
  if (name == "--help" || name == "-h") return RunHelp({"help"});
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const Command& c : kCommands) {
    if (c.name == name) return c.run(std::move(args));
  }
  std::string message = "unknown command \"" + name + "\"";
  std::vector<std::string> suggestions = SuggestCommands(name);
  if (!suggestions.empty()) {
    message += "; did you mean";
    for (size_t i = 0; i < suggestions.size(); ++i) {
      message += (i ? ", " : " ") + suggestions[i];
    }
    message += "?";
  }
  message += " (attnverify help lists commands)";
  return ReportError(InvalidInput(message));
}

}  // namespace

// The last line of defence: library code returns Status, but an exception that escapes a
// command (a bug, or memory exhausted) must end in one clear line and exit 3, not abort.
int Main(int argc, char** argv) {
  try {
    return Dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnverify: internal error: %s (please report it)\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "attnverify: internal error: an unknown exception (please report it)\n");
  }
  return kExitInternal;
}

}  // namespace av::cli
