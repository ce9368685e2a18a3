#include "sweep/numerics_run.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <regex>
#include <set>

#include "core/package_lock.h"
#include "core/sha256.h"
#include "core/shell_quote.h"
#include "core/thread_pool.h"
#include "core/tree_snapshot.h"
#include "core/utf8.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/drawn_cases.h"
#include "sweep/group_checks.h"
#include "sweep/invariance.h"
#include "sweep/numerics_case.h"
#include "sweep/run_salt.h"
#include "sweep/shard_plan.h"
#include "sweep/tolerances_config.h"

namespace av {
namespace {

// Runs body(k) for every group k in [0, n) on `jobs` threads (core's ParallelFor; fewer
// than one job runs them in turn on this thread); each group once.
void ForEachGroup(size_t n, int jobs, const std::function<void(size_t)>& body) {
  ParallelFor(static_cast<int64_t>(n), std::max(1, jobs),
              [&](int64_t k, int) { body(static_cast<size_t>(k)); });
}

// Why a failed prepare looks like a full disk rather than the candidate's fault: its
// output says so, or a filesystem it writes to (its folder, the work folder, TMPDIR) has
// less than 16 MiB left. Empty when neither.
std::string DiskFullReason(const ProcessResult& pr, const NumericsConfig& cfg) {
  for (const std::string* text : {&pr.stderr_text, &pr.stdout_text}) {
    for (const char* phrase : {"No space left on device", "Disk quota exceeded"}) {
      if (text->find(phrase) != std::string::npos)
        return std::string("its output says \"") + phrase + "\"";
    }
  }
  const char* tmp = std::getenv("TMPDIR");
  for (const std::string& dir :
       {cfg.candidate.cwd, cfg.work_dir, std::string(tmp ? tmp : "/tmp")}) {
    struct statvfs fs;
    if (dir.empty() || ::statvfs(dir.c_str(), &fs) != 0) continue;
    const unsigned long long left = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
    if (left < (16ull << 20)) {
      return dir + " has " + std::to_string(left >> 10) + " KiB left";
    }
  }
  return "";
}

}  // namespace

Status ParseShard(const std::string& text, int* index, int* count) {
  size_t slash = text.find('/');
  auto bad = [&] {
    return InvalidInput("--shard must be i/N with 0 <= i < N, got \"" + text + "\"");
  };
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return bad();
  try {
    size_t used = 0;
    int i = std::stoi(text.substr(0, slash), &used);
    if (used != slash) return bad();
    int n = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1 || n < 1 || i < 0 || i >= n) return bad();
    *index = i;
    *count = n;
  } catch (const std::exception&) {
    return bad();
  }
  return Status::Ok();
}

namespace {

// The cases this run takes: its shard's groups (a base case with its variants) of the full
// expansion, shared out by estimated cost (sweep/shard_plan.h), so a filter never moves a
// case from one shard to another and a group's variants always run beside their base
// case. A filter keeps the groups with a matching member, each with its base case and the
// matching members. A sweep that runs nothing has nothing to judge: never a pass on zero
// cases.
Status SelectCases(const NumericsOptions& o, const std::vector<CaseSpec>& all, NumericsRun* run) {
  const NumericsConfig& cfg = o.config;
  std::regex filter;
  if (!o.filter.empty()) {
    try {
      filter = std::regex(o.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return InvalidInput("--filter \"" + o.filter +
                          "\" is not a valid regular expression: " + e.what());
    }
  }
  // The listed cases are planned as `cases --shard-plan` shows them; the run's drawn cases
  // (appended last, one group each) are dealt round-robin on top, so they never move a
  // listed group to another shard.
  const size_t listed = static_cast<size_t>(
      std::find_if(all.begin(), all.end(), [](const CaseSpec& c) { return c.drawn; }) -
      all.begin());
  ShardPlan plan = PlanShards(std::vector<CaseSpec>(all.begin(), all.begin() + listed),
                              o.shard_count);
  const int64_t first_drawn = listed < all.size() ? all[listed].group_index : 0;
  for (size_t i = listed; i < all.size(); ++i) {
    const size_t g = static_cast<size_t>(all[i].group_index);
    if (plan.shard_of_group.size() <= g) plan.shard_of_group.resize(g + 1, 0);
    plan.shard_of_group[g] = static_cast<int>((all[i].group_index - first_drawn) % o.shard_count);
  }
  run->shard_plan_sha256 = ShardPlanSha256(plan);
  std::set<std::string> unknown;
  for (const auto& [id, reason] : o.skipped) unknown.insert(id);
  for (const CaseSpec& c : all) unknown.erase(c.id);
  if (!unknown.empty()) {
    return InvalidInput("skipped case " + *unknown.begin() + " is not a case of " + cfg.shapes +
                        (unknown.size() > 1 ? " (nor are " + std::to_string(unknown.size() - 1) +
                                                  " more skipped ids)"
                                            : ""));
  }
  size_t i = 0;
  while (i < all.size()) {
    size_t j = i + 1;
    while (j < all.size() && all[j].kind != VariantKind::kBase) ++j;
    if (plan.shard_of_group[static_cast<size_t>(all[i].group_index)] == o.shard_index) {
      bool any = o.filter.empty();
      std::vector<bool> keep(j - i, o.filter.empty());
      for (size_t k = i; k < j && !o.filter.empty(); ++k)
        any |= (keep[k - i] = std::regex_search(all[k].id, filter));
      if (any) {
        // A case the tests skipped is left out, with its reason; the group's base still
        // runs when another member does (its checks compare against the base).
        keep[0] = true;
        std::vector<bool> skip(j - i);
        bool member_runs = false;
        for (size_t k = i; k < j; ++k) {
          skip[k - i] = keep[k - i] && o.skipped.count(all[k].id) > 0;
          member_runs |= k > i && keep[k - i] && !skip[k - i];
        }
        if (member_runs) skip[0] = false;
        for (size_t k = i; k < j; ++k) {
          if (!keep[k - i]) continue;
          if (skip[k - i]) {
            run->skipped.push_back({all[k].id, all[k].op, o.skipped.at(all[k].id)});
            continue;
          }
          CaseResult r;
          r.spec = all[k];
          run->cases.push_back(std::move(r));
        }
      }
    }
    i = j;
  }
  if (!run->cases.empty()) return Status::Ok();
  if (!run->skipped.empty()) {
    return InvalidInput("no case to run: the tests skipped every selected case (" +
                        std::to_string(run->skipped.size()) + ", first " + run->skipped.front().id +
                        ": " + run->skipped.front().reason + ")");
  }
  std::string why = all.empty() ? cfg.shapes + " expands to no case"
                    : !o.filter.empty()
                        ? "--filter \"" + o.filter + "\" matches none of the " +
                              std::to_string(all.size()) + " cases of " + cfg.shapes
                        : "shard " + std::to_string(o.shard_index) + "/" +
                              std::to_string(o.shard_count) + " holds none of the " +
                              std::to_string(all.size()) + " cases of " + cfg.shapes;
  return InvalidInput("no case to run: " + why);
}

// Containment. The candidate and prepare are the code under review: in the sandbox they
// cannot write the package, and either way every package file outside the work folder is
// recorded now and compared after the last candidate run, so a candidate that rewrites
// another stage's evidence fails the sweep instead of forging it (H2). Empty when the
// package is too big to hash and the sandbox alone keeps the candidate off the evidence.
Result<std::optional<TreeSnapshot>> SnapshotPackage(const NumericsOptions& o, NumericsRun* run) {
  const NumericsConfig& cfg = o.config;
  run->sandbox = o.bwrap.empty() ? "none" : "bwrap";
  std::vector<std::string> skip_paths = {kPackageLockFile};
  std::filesystem::path rel = std::filesystem::path(cfg.work_dir).lexically_relative(cfg.base_dir);
  if (!rel.empty() && *rel.begin() != "..") skip_paths.push_back(rel.generic_string());
  Result<TreeSnapshot> snapshot =
      TreeSnapshot::Take(cfg.base_dir, skip_paths, {".git", "__pycache__"});
  if (snapshot.ok()) return std::optional<TreeSnapshot>(std::move(*snapshot));
  if (snapshot.status().code() != StatusCode::kUnsupported) return snapshot.status();
  if (o.bwrap.empty()) {
    return InvalidInput(snapshot.status().message() +
                        " (without a sandbox the candidate may run only on a package whose "
                        "files attnverify can check)");
  }
  run->warnings.push_back("package files are not checked after the candidate ran: " +
                          snapshot.status().message());
  return std::optional<TreeSnapshot>();
}

// After the last candidate run: any package file that changed fails every case.
void FailOnPackageChanges(TreeSnapshot* tracked, NumericsRun* run) {
  if (tracked == nullptr) return;
  run->package_changes = tracked->Compare();
  for (std::string& c : run->package_changes) c = ReplaceInvalidUtf8(c);
  if (run->package_changes.empty()) return;
  std::string list;
  for (size_t i = 0; i < run->package_changes.size() && i < 3; ++i)
    list += (i ? ", " : "") + run->package_changes[i];
  if (run->package_changes.size() > 3)
    list += " and " + std::to_string(run->package_changes.size() - 3) + " more";
  for (CaseResult& r : run->cases) {
    r.verdict = CaseVerdict::kFail;
    r.reason = "package files changed while the candidate ran (only its out/ folders may): " + list;
  }
}

// [candidate] prepare: once, before any case. Returns whether it failed, in which case
// every case has failed with the reason; a full disk is an error instead (exit 2, keeping
// the earlier evidence), being the machine's problem, not the candidate's (L5).
Result<bool> RunPrepare(const NumericsOptions& o, NumericsRun* run) {
  const NumericsConfig& cfg = o.config;
  if (cfg.candidate.prepare.empty()) return false;
  // Shown in messages as a shell would take it (quoted where it must be); never parsed.
  const std::string shown = ShellJoin(cfg.candidate.prepare);
  ProcessRequest req;
  req.argv = cfg.candidate.prepare;
  req.cwd = cfg.candidate.cwd;
  req.extra_env = cfg.candidate.env;
  req.extra_env["ATTNVERIFY_WORK_DIR"] = cfg.work_dir;
  req.timeout_ms = cfg.candidate.timeout_s * 1000;
  req.max_output_bytes = 1 << 20;
  SandboxRequest(o, {}, &req, /*cwd_writable=*/true);
  auto tp = SweepClock::now();
  Result<ProcessResult> pr = o.runner->Run(req);
  run->prepare_ms = MsSince(tp);
  if (pr.ok()) run->leftover_processes += pr->leftover_processes;
  std::string why, tail;
  if (!pr.ok()) {
    run->prepare_status = "did not start";
    why = "could not be started: " + pr.status().message();
  } else {
    run->prepare_status = pr->Describe();
    if (!pr->ok()) {
      why = pr->Describe();
      tail = StderrTail(pr->stderr_text.empty() ? pr->stdout_text : pr->stderr_text);
      if (std::string full = DiskFullReason(*pr, cfg); !full.empty()) {
        return IoError("candidate prepare failed for lack of disk space (" + full + "): " + shown +
                       ": " + why +
                       "; free some space and run again (the earlier evidence is kept)" +
                       (tail.empty() ? "" : "\n" + tail));
      }
    }
  }
  if (why.empty()) return false;
  int64_t done = 0;
  for (CaseResult& r : run->cases) {
    r.verdict = CaseVerdict::kFail;
    r.reason = "candidate prepare failed: " + shown + ": " + why;
    r.candidate_status = "prepare " + run->prepare_status;
    r.stderr_tail = tail;
    if (o.on_case) o.on_case(r, ++done, static_cast<int64_t>(run->cases.size()));
  }
  return true;
}

// The cases' groups: [begin, end) ranges of run.cases, each starting with its base case.
using GroupRanges = std::vector<std::pair<size_t, size_t>>;

GroupRanges GroupsOf(const NumericsRun& run) {
  GroupRanges groups;
  for (size_t i = 0; i < run.cases.size(); ++i) {
    if (run.cases[i].spec.kind == VariantKind::kBase)
      groups.emplace_back(i, i + 1);
    else
      groups.back().second = i + 1;
  }
  return groups;
}

// The order the workers take the groups in: input families together (InputFamily, so
// their shared inputs are generated once and not evicted in between), the
// costliest family first (so the last groups to finish are small ones), ties and the
// groups of a family in expansion order. Only the order of work changes: results are
// recorded by case, as expanded.
std::vector<size_t> WorkOrder(const NumericsRun& run, const GroupRanges& groups) {
  std::map<std::string, std::pair<double, size_t>> families;  // cost, first group
  std::vector<std::string> family(groups.size());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const CaseSpec& base = run.cases[groups[gi].first].spec;
    family[gi] = InputFamily(base);
    if (family[gi].empty()) family[gi] = "group " + base.id;
    auto [it, fresh] = families.try_emplace(family[gi], 0.0, gi);
    for (size_t i = groups[gi].first; i < groups[gi].second; ++i)
      it->second.first += EstimateCaseFlops(run.cases[i].spec);
  }
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& fa = families.at(family[a]);
    const auto& fb = families.at(family[b]);
    if (fa.first != fb.first) return fa.first > fb.first;
    return fa.second < fb.second;
  });
  return order;
}

// Admission by memory: a group starts once the running groups' estimated peaks
// (EstimateCaseBytes, the largest member's: a group's cases run one after another) and
// its own fit kSweepMemoryBudget, or when nothing else runs. --jobs 2 then runs two MLA
// cases side by side but never two 4096 x 24576 GEMMs.
class MemoryGate {
 public:
  explicit MemoryGate(int64_t budget) : budget_(budget) {}

  // Holds a group's share from construction until it goes out of scope.
  class Hold {
   public:
    Hold(MemoryGate& gate, int64_t bytes) : gate_(gate), bytes_(bytes) {
      std::unique_lock<std::mutex> lock(gate_.mu_);
      gate_.freed_.wait(
          lock, [&] { return gate_.in_use_ == 0 || gate_.in_use_ + bytes_ <= gate_.budget_; });
      gate_.in_use_ += bytes_;
    }
    ~Hold() {
      {
        std::lock_guard<std::mutex> lock(gate_.mu_);
        gate_.in_use_ -= bytes_;
      }
      gate_.freed_.notify_all();
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    MemoryGate& gate_;
    const int64_t bytes_;
  };

 private:
  std::mutex mu_;
  std::condition_variable freed_;
  int64_t in_use_ = 0;
  const int64_t budget_;
};

int64_t GroupBytes(const NumericsRun& run, const std::pair<size_t, size_t>& group) {
  int64_t bytes = 0;
  for (size_t i = group.first; i < group.second; ++i)
    bytes = std::max(bytes, EstimateCaseBytes(run.cases[i].spec));
  return bytes;
}

// {case_dir} / {out_dir}: one candidate run per case, `jobs` groups at a time.
void RunEachCase(const NumericsOptions& o, const GroupRanges& groups, CaseRunner& sweep,
                 NumericsRun* run, std::vector<std::vector<InvarianceCheckResult>>* checks) {
  const std::vector<size_t> order = WorkOrder(*run, groups);
  MemoryGate gate(kSweepMemoryBudget);
  ForEachGroup(groups.size(), o.jobs, [&](size_t k) {
    const size_t gi = order[k];
    MemoryGate::Hold hold(gate, GroupBytes(*run, groups[gi]));
    GroupState g;
    std::optional<BuiltCase> base;
    for (size_t i = groups[gi].first; i < groups[gi].second; ++i) {
      auto t = SweepClock::now();
      if (sweep.Prepare(i, groups[gi].first, &base)) {
        const CaseResult& r = run->cases[i];
        std::string out_dir = r.case_dir + "/out";
        auto tc = SweepClock::now();
        Result<ProcessResult> pr = o.runner->Run(sweep.Request("", r.case_dir, out_dir, {out_dir}));
        sweep.CountLeftovers(pr);
        if (sweep.ApplyRun(i, pr, MsSince(tc)))
          sweep.Finish(i, g);
        else
          g.Missing(run->cases[i].spec);
      }
      sweep.Report(i, MsSince(t));
    }
    const auto [b, e] = groups[gi];
    (*checks)[gi] = g.Results(run->cases[b].spec.id, e - b > 1);
  });
}

// One {cases} run of the candidate over `cases` (indices into run.cases): cases.json lists
// them in the order of their folder names; in the sandbox it may write only their out/
// folders. Returns the run's outcome and wall time.
struct AllCasesRun {
  Result<ProcessResult> result = Internal("not run");
  double ms = 0;
};
Result<AllCasesRun> RunCandidateOver(const NumericsOptions& o, CaseRunner& sweep,
                                     const NumericsRun& run, std::vector<size_t> cases) {
  const auto& written = sweep.all_written();
  std::sort(cases.begin(), cases.end(),
            [&](size_t a, size_t b) { return written[a]->id < written[b]->id; });
  std::vector<WrittenCase> listed;
  std::vector<CaseSpec> specs;
  std::vector<std::string> out_dirs;
  for (size_t i : cases) {
    listed.push_back(*written[i]);
    specs.push_back(run.cases[i].spec);
    out_dirs.push_back(listed.back().out_dir);
  }
  AV_ASSIGN_OR_RETURN(std::string index, WriteCasesIndex(o.config.work_dir, listed, specs));
  AllCasesRun r;
  auto tc = SweepClock::now();
  r.result = o.runner->Run(sweep.Request(index, "", "", out_dirs));
  sweep.CountLeftovers(r.result);
  r.ms = MsSince(tc);
  return r;
}

// {cases}: the candidate runs twice. First every case but the reruns and num_splits
// variants is written, the candidate runs over them, and they are judged; the judging
// removes the outputs of every case whose group has such variants. Then those variants
// are written, each with its own copy of its base case's inputs (checked after the first
// run), and the candidate runs over them alone: a new process with nothing of the first
// run's outputs to find, so it must compute them again (doc/formats/candidate-protocol.md,
// "Two runs"). The groups' states (the base outputs and reference) wait in between.
// Each run's wall time is shared out evenly among its cases.
Status RunAllCasesAtOnce(const NumericsOptions& o, const GroupRanges& groups, CaseRunner& sweep,
                         NumericsRun* run,
                         std::vector<std::vector<InvarianceCheckResult>>* checks) {
  const size_t n = run->cases.size();
  std::vector<double> prep_ms(n);
  const std::vector<size_t> order = WorkOrder(*run, groups);
  auto second = [&](size_t i) { return SameInputBytes(run->cases[i].spec.kind); };
  std::vector<size_t> first_cases, second_cases;
  for (size_t i = 0; i < n; ++i) (second(i) ? second_cases : first_cases).push_back(i);
  MemoryGate gate(kSweepMemoryBudget);
  ForEachGroup(groups.size(), o.jobs, [&](size_t k) {
    const size_t gi = order[k];
    MemoryGate::Hold hold(gate, GroupBytes(*run, groups[gi]));
    std::optional<BuiltCase> base;
    for (size_t i = groups[gi].first; i < groups[gi].second; ++i) {
      if (second(i)) continue;
      auto t = SweepClock::now();
      sweep.Prepare(i, groups[gi].first, &base);
      prep_ms[i] = MsSince(t);
    }
  });
  AV_RETURN_IF_ERROR(sweep.first_error());
  sweep.ReleaseSharedInputs();  // every case is written; judging reads the files
  AV_ASSIGN_OR_RETURN(AllCasesRun first, RunCandidateOver(o, sweep, *run, first_cases));
  std::vector<GroupState> states(groups.size());
  std::vector<char> waiting(groups.size(), 0);  // groups with variants for the second run
  auto judge = [&](size_t i, const AllCasesRun& pass, size_t cases, GroupState& g) {
    auto t = SweepClock::now();
    if (sweep.ApplyRun(i, pass.result, cases ? pass.ms / static_cast<double>(cases) : 0))
      sweep.Finish(i, g);
    else
      g.Missing(run->cases[i].spec);
    sweep.Report(i, prep_ms[i] + run->cases[i].candidate_ms + MsSince(t));
  };
  ForEachGroup(groups.size(), o.jobs, [&](size_t k) {
    const size_t gi = order[k];
    const auto [b, e] = groups[gi];
    MemoryGate::Hold hold(gate, GroupBytes(*run, groups[gi]));
    GroupState& g = states[gi];
    bool copies = false;
    for (size_t i = b; i < e; ++i) {
      if (second(i))
        copies = true;
      else
        judge(i, first, first_cases.size(), g);
    }
    if (!copies) {
      (*checks)[gi] = g.Results(run->cases[b].spec.id, e - b > 1);
      g = GroupState();
      return;
    }
    waiting[gi] = 1;
    for (size_t i = b; i < e; ++i) {
      if (!second(i)) continue;
      auto t = SweepClock::now();
      sweep.PrepareCopy(i, b, g);
      prep_ms[i] = MsSince(t);
    }
    g.base_inputs.reset();
  });
  AV_RETURN_IF_ERROR(sweep.first_error());
  if (second_cases.empty()) return Status::Ok();
  AV_ASSIGN_OR_RETURN(AllCasesRun again, RunCandidateOver(o, sweep, *run, second_cases));
  ForEachGroup(groups.size(), o.jobs, [&](size_t k) {
    const size_t gi = order[k];
    const auto [b, e] = groups[gi];
    if (!waiting[gi]) return;
    MemoryGate::Hold hold(gate, GroupBytes(*run, groups[gi]));
    for (size_t i = b; i < e; ++i) {
      if (second(i)) judge(i, again, second_cases.size(), states[gi]);
    }
    (*checks)[gi] = states[gi].Results(run->cases[b].spec.id, e - b > 1);
    states[gi] = GroupState();
  });
  return Status::Ok();
}

}  // namespace

Result<NumericsRun> RunNumericsSweep(const NumericsOptions& o) {
  auto t0 = SweepClock::now();
  const NumericsConfig& cfg = o.config;
  if (!cfg.has_candidate) {
    return InvalidInput(
        cfg.path +
        ": no [candidate] table: say how to run the kernel under test, e.g.\n"
        "  [candidate]\n  command = [\"python3\", \"my_candidate.py\", \"{cases}\"]");
  }
  if (o.runner == nullptr) return Internal("RunNumericsSweep without a ProcessRunner");
  AV_ASSIGN_OR_RETURN(ShapesConfig shapes, LoadShapesConfig(cfg.shapes));
  AV_ASSIGN_OR_RETURN(TolerancesConfig tol, LoadTolerancesConfig(cfg.tolerances));
  AV_ASSIGN_OR_RETURN(std::vector<CaseSpec> all, ExpandCases(shapes));
  // The run's salt, and the cases it draws: shards of one run must agree on both.
  if (!o.salt && o.shard_count > 1 && !o.exported_layout) {
    return InvalidInput("--shard " + std::to_string(o.shard_index) + "/" +
                        std::to_string(o.shard_count) +
                        " needs --salt HEX, the same on every shard of the run: each run draws "
                        "fresh inputs and cases from its salt (doc/sharding.md)");
  }
  // `judge` is given the export's salt and drawn-case count (cases.json's stamp), so it
  // generates exactly the cases the tests were handed.
  const uint64_t salt = o.salt ? *o.salt : o.exported_layout ? 0 : FreshSalt();
  for (CaseSpec& c : DrawCases(shapes, all, salt, cfg.drawn_cases)) all.push_back(std::move(c));
  for (CaseSpec& c : all) c.salt = salt;
  AV_RETURN_IF_ERROR(CheckTolerancesCover(tol, all));
  NumericsRun run;
  run.total_cases = static_cast<int64_t>(all.size());
  run.shard_index = o.shard_index;
  run.shard_count = o.shard_count;
  run.filter = o.filter;
  run.sweep_id = o.sweep_id;
  run.salt = SaltHex(salt);
  run.cases_sha256 = CaseListSha256(all);
  AV_ASSIGN_OR_RETURN(run.shapes_sha256, Sha256File(cfg.shapes));
  AV_ASSIGN_OR_RETURN(run.tolerances_sha256, Sha256File(cfg.tolerances));
  AV_RETURN_IF_ERROR(SelectCases(o, all, &run));
  run.drawn_cases = std::count_if(run.cases.begin(), run.cases.end(),
                                  [](const CaseResult& c) { return c.spec.drawn; });
  // A symbolic link at the work folder is refused; one at work/cases (committed by the
  // repository, or left by a candidate) is replaced, and nothing it points to touched.
  AV_ASSIGN_OR_RETURN(run.warnings, PrepareWorkFolder(cfg.work_dir));
  for (std::string& w : run.warnings) w = ReplaceInvalidUtf8(w);
  AV_ASSIGN_OR_RETURN(std::optional<TreeSnapshot> snapshot, SnapshotPackage(o, &run));
  TreeSnapshot* tracked = snapshot ? &*snapshot : nullptr;
  AV_ASSIGN_OR_RETURN(bool prepare_failed, RunPrepare(o, &run));
  if (prepare_failed) {
    FailOnPackageChanges(tracked, &run);
    run.wall_ms = MsSince(t0);
    return run;
  }

  const GroupRanges groups = GroupsOf(run);
  std::vector<std::vector<InvarianceCheckResult>> checks(groups.size());
  CaseRunner sweep(o, tol, &run, tracked);
  if (cfg.candidate.mode == CandidateMode::kPerCase) {
    RunEachCase(o, groups, sweep, &run, &checks);
  } else {
    AV_RETURN_IF_ERROR(RunAllCasesAtOnce(o, groups, sweep, &run, &checks));
  }
  for (auto& c : checks) {
    for (InvarianceCheckResult& r : c) run.invariance.push_back(std::move(r));
  }
  AV_RETURN_IF_ERROR(sweep.first_error());
  FailOnPackageChanges(tracked, &run);
  run.shared_inputs_made = sweep.shared_inputs_made();
  run.shared_inputs_reused = sweep.shared_inputs_reused();
  run.wall_ms = MsSince(t0);
  return run;
}

}  // namespace av
