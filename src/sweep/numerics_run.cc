#include "sweep/numerics_run.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <thread>

#include "core/file.h"
#include "core/package_lock.h"
#include "core/sandbox.h"
#include "core/sha256.h"
#include "core/tree_snapshot.h"
#include "core/utf8.h"
#include "numerics/heatmap_svg.h"
#include "reference/ref_ops.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/group_checks.h"
#include "sweep/invariance.h"
#include "sweep/numerics_run_referee.h"
#include "sweep/output_layout.h"
#include "sweep/shard_plan.h"
#include "sweep/tolerances_config.h"
#include "tensor/safetensors.h"

namespace av {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Runs body(i) for i in [0, n) on `jobs` threads; each index once.
void ParallelFor(size_t n, int jobs, const std::function<void(size_t)>& body) {
  if (jobs <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min<int>(jobs, static_cast<int>(n)); ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) body(i);
    });
  }
  for (std::thread& t : threads) t.join();
}

const Tensor* FindNamed(const NamedTensors& ts, const std::string& name) {
  for (const auto& [n, t] : ts) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::string ImplName(ImplKind k) {
  switch (k) {
    case ImplKind::kOracle:
      return "oracle";
    case ImplKind::kFast:
      return "fast";
    case ImplKind::kLowprec:
      return "lowprec";
  }
  return "?";
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

bool Inside(const std::string& path, const std::string& dir) {
  std::filesystem::path rel = std::filesystem::path(path).lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// Runs `req` inside the sandbox when there is one: the package (and a work folder outside
// it) read-only, `writable` (out/ folders) left writable. A program that cannot be found
// is left unwrapped, so the runner's own "not found" names it.
void Sandbox(const NumericsOptions& o, const std::vector<std::string>& writable,
             ProcessRequest* req) {
  if (o.bwrap.empty()) return;
  Result<std::string> program = ResolveProgram(req->argv[0], req->cwd, req->extra_env);
  if (!program.ok()) return;
  SandboxSpec spec;
  const std::string package = Canonical(o.config.base_dir);
  const std::string work = Canonical(o.config.work_dir);
  spec.read_only.push_back(package);
  if (!Inside(work, package)) spec.read_only.push_back(work);
  for (const std::string& w : writable) spec.writable.push_back(Canonical(w));
  spec.cwd = req->cwd.empty() ? "" : Canonical(req->cwd);
  std::vector<std::string> argv = req->argv;
  argv[0] = *program;
  req->argv = BwrapArgv(o.bwrap, spec, argv);
  req->cwd.clear();  // bwrap's --chdir moves the program there
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

// The sweep's mutable state shared by the worker threads.
class Sweep {
 public:
  Sweep(const NumericsOptions& o, const TolerancesConfig& tol, NumericsRun* run,
        TreeSnapshot* snapshot)
      : o_(o),
        tol_(tol),
        run_(run),
        snapshot_(snapshot),
        written_(run->cases.size()),
        owner_(run->cases.size()),
        intact_(run->cases.size(), false) {}

  Status first_error() const { return first_error_; }

  void Fail(CaseResult& r, const std::string& reason, const std::string& verdict = "fail") {
    r.verdict = verdict;
    if (r.reason.empty()) r.reason = reason;
  }

  void RecordError(const Status& st) {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_error_.ok()) first_error_ = st;
  }

  // Builds and writes case i of the group whose base case is `base_index`. `base` caches
  // the group's unvaried inputs: variants on the base case's inputs reuse them (a
  // permutation rewrites a copy) instead of generating them again; seed variants build
  // their own. A variant whose inputs are the base's bytes (num_splits, rerun) links to
  // the base's file while that file is known intact.
  bool Prepare(size_t i, size_t base_index, std::optional<BuiltCase>* base) {
    CaseResult& r = run_->cases[i];
    auto t0 = Clock::now();
    Result<BuiltCase> built = InvalidInput("not built");
    if (r.spec.kind == VariantKind::kSeed) {
      built = BuildCase(r.spec);
    } else {
      if (!base->has_value()) {
        CaseSpec plain = r.spec;
        plain.kind = VariantKind::kBase;
        Result<BuiltCase> b = BuildCase(plain);
        if (b.ok())
          *base = std::move(*b);
        else
          built = b.status();
      }
      if (base->has_value()) {
        built = **base;
        Status st = ApplyInputVariant(r.spec, &*built);
        if (!st.ok()) built = st;
      }
    }
    if (!built.ok()) {
      RecordError(built.status().WithContext("case " + r.spec.id));
      return false;
    }
    r.op_params = nlohmann::json(built->op_params.values());
    // Heatmaps of an earlier run of this case must not outlive it.
    for (const ExpectedOutput& e : built->outputs) {
      std::error_code ec;
      const std::filesystem::path old = std::filesystem::path(o_.config.evidence).parent_path() /
                                        "heatmaps" / (r.spec.id + "." + e.name + ".svg");
      if (std::filesystem::remove(old, ec) && snapshot_ != nullptr) snapshot_->Forget(old.string());
    }
    const bool same_bytes =
        r.spec.kind == VariantKind::kNumSplits || r.spec.kind == VariantKind::kRerun;
    const std::optional<WrittenCase>& base_files = written_[base_index];
    const bool link = same_bytes && base_files.has_value() && intact_[base_index];
    Result<WrittenCase> wc =
        link ? WriteCaseWithInputsOf(o_.config.work_dir, r.spec, *built, *base_files)
             : WriteCase(o_.config.work_dir, r.spec, *built);
    if (!wc.ok()) {
      RecordError(wc.status());
      return false;
    }
    if (!wc->warnings.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      for (const std::string& w : wc->warnings) run_->warnings.push_back(ReplaceInvalidUtf8(w));
    }
    r.inputs_sha256 = wc->inputs_sha256;
    r.case_dir = wc->dir;
    written_[i] = std::move(*wc);
    owner_[i] = link ? base_index : i;
    if (!link) intact_[i] = true;  // no candidate has seen it yet
    r.generate_ms = MsSince(t0);
    return true;
  }

  // One candidate run; in the sandbox it may write only `writable` (its out/ folders).
  ProcessRequest Request(const std::string& cases, const std::string& case_dir,
                         const std::string& out_dir,
                         const std::vector<std::string>& writable) const {
    ProcessRequest req;
    req.argv = ExpandCommand(o_.config.candidate.command, cases, case_dir, out_dir);
    req.cwd = o_.config.candidate.cwd;
    req.extra_env = o_.config.candidate.env;
    req.extra_env["ATTNVERIFY_WORK_DIR"] = o_.config.work_dir;
    req.timeout_ms = o_.config.candidate.timeout_s * 1000;
    req.max_output_bytes = 1 << 20;
    Sandbox(o_, writable, &req);
    return req;
  }

  // Counts what a run left behind (the runner killed it).
  void CountLeftovers(const Result<ProcessResult>& pr) {
    if (!pr.ok()) return;
    std::lock_guard<std::mutex> lock(mu_);
    run_->leftover_processes += pr->leftover_processes;
  }

  // Applies one candidate run's outcome to case i; false when the case already failed.
  bool ApplyRun(size_t i, const Result<ProcessResult>& pr, double ms) {
    CaseResult& r = run_->cases[i];
    r.candidate_ms = ms;
    intact_[owner_[i]] = false;  // until Finish has checked it
    if (!pr.ok()) {
      r.candidate_status = "did not start";
      Fail(r, "candidate could not be started: " + pr.status().message());
      return false;
    }
    r.candidate_status = pr->Describe();
    if (!pr->ok()) {
      r.stderr_tail = StderrTail(pr->stderr_text);
      Fail(r, "candidate " + pr->Describe() +
                  (pr->timed_out ? "" : " (a failed run counts against every case it covers)"));
      return false;
    }
    return true;
  }

  // Finishes case i, a member of the group whose state is `g` (the base case first).
  void Finish(size_t i, GroupState& g) {
    CaseResult& r = run_->cases[i];
    const WrittenCase& wc = *written_[i];
    const bool is_base = r.spec.kind == VariantKind::kBase;
    auto t_check = Clock::now();
    // The inputs must come back as written: a candidate that writes into them computed
    // its outputs from other bytes. They are read once into our own memory, XXH3 checks
    // that copy (the message names the sha256 the evidence records), and the reference
    // is computed from the same copy: no process can swap the file in between (H3).
    Result<std::shared_ptr<const Buffer>> inputs_bytes = ReadCheckedInputs(wc);
    if (!inputs_bytes.ok()) {
      Fail(r, inputs_bytes.status().message());
      g.Missing(r.spec);
      return;
    }
    intact_[owner_[i]] = true;
    Result<CandidateOutputs> outs = ReadCandidateOutputs(wc);
    if (!outs.ok()) {
      Fail(r, outs.status().message());
      g.Missing(r.spec);
      return;
    }
    r.outputs_sha256 = outs->sha256;
    r.candidate_metadata = outs->metadata;
    // A batch_permutation variant's outputs, back in the base case's order.
    Result<NamedTensors> cand = UnpermuteOutputs(r.spec, outs->tensors);
    if (!cand.ok()) return Fail(r, cand.status().message(), "error");

    // Only now, with the candidate finished, is the reference computed. Variants on the
    // base case's inputs (num_splits, reruns, permutations) share its reference.
    auto t_ref = Clock::now();
    r.check_ms = MsSince(t_check);
    const bool shares_inputs = !is_base && r.spec.kind != VariantKind::kSeed;
    // The op's inputs, parsed from our checked copy once, when a reference needs them.
    std::optional<NamedTensors> inputs_cache;
    auto load_inputs = [&]() -> Result<const NamedTensors*> {
      if (inputs_cache) return &*inputs_cache;
      AV_ASSIGN_OR_RETURN(SafetensorsFile stored, ParseSafetensors(*inputs_bytes, wc.inputs_path));
      AV_ASSIGN_OR_RETURN(NamedTensors in, ApplyLayouts(stored.tensors, wc.layouts));
      inputs_cache = std::move(in);
      return &*inputs_cache;
    };
    NamedTensors ref_local;
    std::optional<NamedTensors> lowprec_local;
    const NamedTensors* ref = nullptr;
    const std::optional<NamedTensors>* lowprec = nullptr;
    bool fast_ref = false;  // the fast reference judges this case (the oracle referees)
    if (shares_inputs && g.have_ref) {
      ref = &g.ref;
      lowprec = &g.lowprec;
      fast_ref = g.reference_impl == "fast" || g.reference_impl.rfind("fast+", 0) == 0;
      r.reference_impl = g.reference_impl + " (shared with " + r.spec.group_id() + ")";
    } else {
      Result<const NamedTensors*> inputs = load_inputs();
      if (!inputs.ok()) return Fail(r, "reference: " + inputs.status().message(), "error");
      RefImpl impl = o_.config.reference;
      if (impl.kind == ImplKind::kFast && !FastReferenceJudges(r.spec.op))
        impl.kind = ImplKind::kOracle;
      Result<NamedTensors> rr = RunReferenceOp(r.spec.op, **inputs, wc.op_params, impl);
      if (!rr.ok() && rr.status().code() == StatusCode::kUnsupported &&
          impl.kind != ImplKind::kOracle) {
        impl.kind = ImplKind::kOracle;  // no fast path for this op: the oracle answers
        rr = RunReferenceOp(r.spec.op, **inputs, wc.op_params, impl);
      }
      if (!rr.ok()) return Fail(r, "reference: " + rr.status().message(), "error");
      fast_ref = impl.kind == ImplKind::kFast;
      if (fast_ref && o_.fast_reference_hook) o_.fast_reference_hook(r.spec, &*rr);
      r.reference_impl = ImplName(impl.kind);
      for (const ExpectedOutput& e : wc.outputs) {
        const ToleranceEntry* t = FindTolerance(tol_, r.spec.op, e.name, r.spec.dtype);
        if (t->request.kind == RuleKind::kLowprecMultiple && !lowprec_local) {
          RefImpl lp{ImplKind::kLowprec, o_.config.reference.threads, r.spec.dtype};
          Result<NamedTensors> l = RunReferenceOp(r.spec.op, **inputs, wc.op_params, lp);
          if (!l.ok()) return Fail(r, "low-precision reference: " + l.status().message(), "error");
          Result<NamedTensors> lu = UnpermuteOutputs(r.spec, *l);
          if (!lu.ok()) return Fail(r, lu.status().message(), "error");
          lowprec_local = std::move(*lu);
          r.reference_impl += "+lowprec_" + std::string(DTypeName(r.spec.dtype));
        }
      }
      Result<NamedTensors> ru = UnpermuteOutputs(r.spec, *rr);
      if (!ru.ok()) return Fail(r, ru.status().message(), "error");
      ref_local = std::move(*ru);
      ref = &ref_local;
      lowprec = &lowprec_local;
    }
    r.reference_ms = MsSince(t_ref);

    auto t_cmp = Clock::now();
    r.verdict = "pass";
    // An all-NaN output fails the case (under allow_nan it could pass every comparison)
    // but is kept: a deterministic kernel's reruns and splits must still be judged on it.
    for (const std::string& name : outs->all_nan) Fail(r, "output " + name + " is entirely NaN");
    if (shares_inputs && g.base_pass && g.have_out && SameOutputBytes(g.base_out, *cand)) {
      r.outputs = *g.base_pass;
      r.compare_from = r.spec.group_id();
    }
    if (r.compare_from.empty()) CompareOutputs(r, wc, *cand, *ref, *lowprec);
    r.compare_ms = MsSince(t_cmp);

    // The oracle referees the fast reference: a failing comparison, one within
    // kRefereeMargin of its tolerance, and 1 case in oracle_sample are judged again by the
    // oracle, whose verdict stands; the two references must agree (else: an error).
    NamedTensors oracle_ref;
    std::string group_impl = r.reference_impl;  // what variants sharing ref_local record
    if (fast_ref && r.compare_from.empty()) {
      const std::string why = RefereeReason(r, *cand, *ref);
      if (!why.empty()) {
        auto t_oracle = Clock::now();
        Result<const NamedTensors*> inputs = load_inputs();
        if (!inputs.ok()) return Fail(r, "reference: " + inputs.status().message(), "error");
        Result<NamedTensors> orr = RunReferenceOp(r.spec.op, **inputs, wc.op_params, {});
        if (!orr.ok()) return Fail(r, "oracle referee: " + orr.status().message(), "error");
        Result<NamedTensors> ou = UnpermuteOutputs(r.spec, *orr);
        if (!ou.ok()) return Fail(r, ou.status().message(), "error");
        oracle_ref = std::move(*ou);
        r.reference_ms += MsSince(t_oracle);
        std::vector<std::string> names;
        for (const ExpectedOutput& e : wc.outputs) names.push_back(e.name);
        Status agree = CheckReferencesAgree(r.spec.id, r.spec.op, *ref, oracle_ref, names);
        if (!agree.ok()) {
          r.verdict = "error";
          r.reason = "internal error: " + agree.message();
          r.refereed_by = "oracle";
          r.referee_reason = why;
          return;
        }
        auto t_rejudge = Clock::now();
        ClearJudgement(r, wc);
        r.verdict = "pass";
        for (const std::string& name : outs->all_nan)
          Fail(r, "output " + name + " is entirely NaN");
        CompareOutputs(r, wc, *cand, oracle_ref, *lowprec);
        r.compare_ms += MsSince(t_rejudge);
        r.refereed_by = "oracle";
        r.referee_reason = why;
        if (ref == &ref_local) {
          // Variants that share this reference get the oracle's.
          ref_local = std::move(oracle_ref);
          group_impl = "oracle" + r.reference_impl.substr(std::string("fast").size());
        } else {
          ref = &oracle_ref;
        }
      }
    }
    t_check = Clock::now();

    if (is_base) {
      if (r.verdict == "pass") g.base_pass = r.outputs;
      g.base_out = std::move(*cand);
      g.have_out = true;
      if (ref == &ref_local) {
        g.ref = std::move(ref_local);
        g.lowprec = std::move(lowprec_local);
        g.have_ref = true;
        g.reference_impl = group_impl;
      }
    } else if (r.spec.kind == VariantKind::kSeed) {
      g.Seed(r.spec, *cand, *ref);
    } else {
      g.Compare(r, *cand);
    }
    r.check_ms += MsSince(t_check);
  }

  // Compares every expected output of case r with `ref` (and the low-precision
  // yardstick where the rule asks for it): one OutputVerdict each, failing r on a miss.
  void CompareOutputs(CaseResult& r, const WrittenCase& wc, const NamedTensors& cand,
                      const NamedTensors& ref, const std::optional<NamedTensors>& lowprec) {
    for (const ExpectedOutput& e : wc.outputs) {
      const ToleranceEntry* t = FindTolerance(tol_, r.spec.op, e.name, r.spec.dtype);
      OutputVerdict v;
      v.name = e.name;
      v.rule_path = t->json_path;
      const Tensor* rt = FindNamed(ref, e.name);
      const Tensor* lt = lowprec && t->request.kind == RuleKind::kLowprecMultiple
                             ? FindNamed(*lowprec, e.name)
                             : nullptr;
      const Tensor* ct = FindNamed(cand, e.name);
      if (rt == nullptr || ct == nullptr) {
        Fail(r, "reference produced no " + e.name, "error");
        continue;
      }
      Result<CompareReport> rep = CompareTensors(*ct, *rt, lt, t->request);
      if (!rep.ok()) {
        Fail(r, e.name + ": " + rep.status().message());
        continue;
      }
      v.compared = true;
      v.report = std::move(*rep);
      if (!v.report.passed) {
        std::string why =
            v.report.failures.empty() ? "not within tolerance" : v.report.failures.front();
        Fail(r, e.name + ": " + why);
        Localise(r, wc, e.name, *ct, *rt, v.report);
      }
      r.outputs.push_back(std::move(v));
    }
  }

  // Why the oracle must judge case r again ("fail", "margin", "sample"), or "" when the
  // fast reference's comparison stands.
  std::string RefereeReason(const CaseResult& r, const NamedTensors& cand,
                            const NamedTensors& ref) const {
    bool failed = false;
    double worst = 0;
    for (const OutputVerdict& v : r.outputs) {
      if (!v.compared) continue;
      if (!v.report.passed) {
        failed = true;
        continue;
      }
      const Tensor* ct = FindNamed(cand, v.name);
      const Tensor* rt = FindNamed(ref, v.name);
      if (ct != nullptr && rt != nullptr)
        worst = std::max(worst, WorstToleranceRatio(*ct, *rt, v.report));
    }
    if (failed) return "fail";
    if (worst >= kRefereeMargin) return "margin";
    if (OracleSampled(r.spec.id, o_.config.oracle_sample)) return "sample";
    return "";
  }

  // Forgets a comparison before it is made again: verdict, outputs, localisation and
  // the heatmap files it wrote.
  void ClearJudgement(CaseResult& r, const WrittenCase& wc) {
    r.verdict.clear();
    r.reason.clear();
    r.outputs.clear();
    r.hints.clear();
    r.worst.clear();
    if (!r.heatmaps.empty()) {
      for (const ExpectedOutput& e : wc.outputs) {
        std::error_code ec;
        const std::filesystem::path file = std::filesystem::path(o_.config.evidence).parent_path() /
                                           "heatmaps" / (r.spec.id + "." + e.name + ".svg");
        if (std::filesystem::remove(file, ec) && snapshot_ != nullptr)
          snapshot_->Forget(file.string());
      }
    }
    r.heatmaps.clear();
  }

  // Hints, worst elements and a heatmap for one failing output.
  void Localise(CaseResult& r, const WrittenCase& wc, const std::string& name, const Tensor& cand,
                const Tensor& ref, const CompareReport& report) {
    nlohmann::json notes =
        wc.case_json.contains("notes") ? wc.case_json["notes"] : nlohmann::json::object();
    Result<LocaliseLayout> layout = OutputLayout(r.spec, name, cand.shape(), notes);
    if (!layout.ok()) return;
    Result<Localisation> loc =
        LocaliseErrors(name, cand, ref, ElementToleranceFor(report), *layout);
    if (!loc.ok()) return;
    for (std::string& h : loc->hints) r.hints.push_back(std::move(h));
    for (LocatedElement& e : loc->worst) {
      if (r.worst.size() < 2 * static_cast<size_t>(kWorstElements)) r.worst.push_back(std::move(e));
    }
    if (loc->errors == 0) return;
    namespace fs = std::filesystem;
    fs::path dir = fs::path(o_.config.evidence).parent_path() / "heatmaps";
    fs::path file = dir / (r.spec.id + "." + name + ".svg");
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string title = r.spec.id + ": " + name +
                        (report.failures.empty() ? "" : " (" + report.failures.front() + ")");
    const std::string svg = RenderHeatmapSvg(*loc, title);
    if (WriteFileAtomically(file.string(), svg).ok()) {
      if (snapshot_ != nullptr) snapshot_->Record(file.string(), svg);
      fs::path rel = file.lexically_relative(o_.config.base_dir);
      r.heatmaps.push_back(rel.empty() || rel.string().rfind("..", 0) == 0 ? file.string()
                                                                           : rel.string());
    }
  }

  void Report(size_t i, double total_ms) {
    CaseResult& r = run_->cases[i];
    r.total_ms = total_ms;
    if (r.verdict.empty()) Fail(r, "not run (an earlier error stopped the sweep)", "error");
    if (!o_.on_case) return;
    std::lock_guard<std::mutex> lock(mu_);
    o_.on_case(r, ++done_, static_cast<int64_t>(run_->cases.size()));
  }

  bool written(size_t i) const { return written_[i].has_value(); }
  const std::vector<std::optional<WrittenCase>>& all_written() const { return written_; }

 private:
  const NumericsOptions& o_;
  const TolerancesConfig& tol_;
  NumericsRun* run_;
  TreeSnapshot* snapshot_;  // the package's files, kept current with what we write
  std::vector<std::optional<WrittenCase>> written_;
  // owner_[i]: the case whose inputs file case i's inputs.safetensors is (itself, or the
  // base case it links to). intact_[j]: whether case j's own file is known to hold the
  // bytes written: from its write until a candidate runs on it or on a case linked to
  // it, and again once Finish has checked its digest. Entries are touched only by the
  // thread that runs the case's group.
  std::vector<size_t> owner_;
  std::vector<char> intact_;
  std::mutex mu_;
  Status first_error_;
  int64_t done_ = 0;
};

}  // namespace

int64_t NumericsRun::passed() const {
  return std::count_if(cases.begin(), cases.end(),
                       [](const CaseResult& c) { return c.verdict == "pass"; });
}
int64_t NumericsRun::failed() const { return static_cast<int64_t>(cases.size()) - passed(); }

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

std::string StderrTail(const std::string& text, size_t max_bytes) {
  // The candidate's bytes go into JSON evidence: never cut inside a character, and any
  // byte that is not UTF-8 replaced (M1).
  if (text.size() <= max_bytes) return ReplaceInvalidUtf8(text);
  size_t start = text.size() - max_bytes;
  size_t nl = text.find('\n', start);
  if (nl != std::string::npos && nl + 1 < text.size()) start = nl + 1;
  return "..." + ReplaceInvalidUtf8(Utf8Tail(text, text.size() - start));
}

namespace {

// The cases this run takes: its shard's groups (a base case with its variants) of the full
// expansion, shared out by estimated cost (sweep/shard_plan.h), so a filter never moves a
// case from one shard to another and a group's variants always run beside their base
// case. A filter keeps the groups with a matching member, each with its base case and the
// matching members. A sweep that runs nothing has nothing to judge: never a pass on zero
// cases.
Status SelectCases(const NumericsOptions& o, const std::vector<CaseSpec>& all,
                   NumericsRun* run) {
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
  const ShardPlan plan = PlanShards(all, o.shard_count);
  size_t i = 0;
  while (i < all.size()) {
    size_t j = i + 1;
    while (j < all.size() && all[j].kind != VariantKind::kBase) ++j;
    if (plan.shard_of_group[static_cast<size_t>(all[i].group_index)] == o.shard_index) {
      bool any = false;
      std::vector<bool> keep(j - i, o.filter.empty());
      for (size_t k = i; k < j && !o.filter.empty(); ++k)
        any |= (keep[k - i] = std::regex_search(all[k].id, filter));
      if (o.filter.empty() || any) {
        keep[0] = true;
        for (size_t k = i; k < j; ++k) {
          if (!keep[k - i]) continue;
          CaseResult r;
          r.spec = all[k];
          run->cases.push_back(std::move(r));
        }
      }
    }
    i = j;
  }
  if (!run->cases.empty()) return Status::Ok();
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
  std::filesystem::path rel =
      std::filesystem::path(cfg.work_dir).lexically_relative(cfg.base_dir);
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
    r.verdict = "fail";
    r.reason = "package files changed while the candidate ran (only its out/ folders may): " + list;
  }
}

// [candidate] prepare: once, before any case. Returns whether it failed, in which case
// every case has failed with the reason; a full disk is an error instead (exit 2, keeping
// the earlier evidence), being the machine's problem, not the candidate's (L5).
Result<bool> RunPrepare(const NumericsOptions& o, NumericsRun* run) {
  const NumericsConfig& cfg = o.config;
  if (cfg.candidate.prepare.empty()) return false;
  for (const std::string& a : cfg.candidate.prepare)
    run->prepare_command += (run->prepare_command.empty() ? "" : " ") + a;
  ProcessRequest req;
  req.argv = cfg.candidate.prepare;
  req.cwd = cfg.candidate.cwd;
  req.extra_env = cfg.candidate.env;
  req.extra_env["ATTNVERIFY_WORK_DIR"] = cfg.work_dir;
  req.timeout_ms = cfg.candidate.timeout_s * 1000;
  req.max_output_bytes = 1 << 20;
  Sandbox(o, {}, &req);
  auto tp = Clock::now();
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
        return IoError("candidate prepare failed for lack of disk space (" + full +
                       "): " + run->prepare_command + ": " + why +
                       "; free some space and run again (the earlier evidence is kept)" +
                       (tail.empty() ? "" : "\n" + tail));
      }
    }
  }
  if (why.empty()) return false;
  int64_t done = 0;
  for (CaseResult& r : run->cases) {
    r.verdict = "fail";
    r.reason = "candidate prepare failed: " + run->prepare_command + ": " + why;
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

// {case_dir} / {out_dir}: one candidate run per case, `jobs` groups at a time.
void RunEachCase(const NumericsOptions& o, const GroupRanges& groups, Sweep& sweep,
                 NumericsRun* run, std::vector<std::vector<InvarianceCheckResult>>* checks) {
  ParallelFor(groups.size(), o.jobs, [&](size_t gi) {
    GroupState g;
    std::optional<BuiltCase> base;
    for (size_t i = groups[gi].first; i < groups[gi].second; ++i) {
      auto t = Clock::now();
      if (sweep.Prepare(i, groups[gi].first, &base)) {
        const CaseResult& r = run->cases[i];
        std::string out_dir = r.case_dir + "/out";
        auto tc = Clock::now();
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

// {cases}: every case written first, then one candidate run over cases.json, then every
// case judged, `jobs` groups at a time.
Status RunAllCasesAtOnce(const NumericsOptions& o, const GroupRanges& groups, Sweep& sweep,
                         NumericsRun* run,
                         std::vector<std::vector<InvarianceCheckResult>>* checks) {
  const size_t n = run->cases.size();
  std::vector<double> prep_ms(n);
  ParallelFor(groups.size(), o.jobs, [&](size_t gi) {
    std::optional<BuiltCase> base;
    for (size_t i = groups[gi].first; i < groups[gi].second; ++i) {
      auto t = Clock::now();
      sweep.Prepare(i, groups[gi].first, &base);
      prep_ms[i] = MsSince(t);
    }
  });
  AV_RETURN_IF_ERROR(sweep.first_error());
  std::vector<WrittenCase> written;
  std::vector<CaseSpec> specs;
  std::vector<std::string> out_dirs;
  for (size_t i = 0; i < n; ++i) {
    written.push_back(*sweep.all_written()[i]);
    specs.push_back(run->cases[i].spec);
    out_dirs.push_back(written.back().out_dir);
  }
  AV_ASSIGN_OR_RETURN(std::string index, WriteCasesIndex(o.config.work_dir, written, specs));
  auto tc = Clock::now();
  Result<ProcessResult> pr = o.runner->Run(sweep.Request(index, "", "", out_dirs));
  sweep.CountLeftovers(pr);
  double cand_ms = MsSince(tc);
  // One run covers every case: its wall time is shared out evenly for the per-case
  // figures (the total is in the run's wall time).
  ParallelFor(groups.size(), o.jobs, [&](size_t gi) {
    GroupState g;
    for (size_t i = groups[gi].first; i < groups[gi].second; ++i) {
      auto t = Clock::now();
      if (sweep.ApplyRun(i, pr, n ? cand_ms / static_cast<double>(n) : 0))
        sweep.Finish(i, g);
      else
        g.Missing(run->cases[i].spec);
      sweep.Report(i, prep_ms[i] + run->cases[i].candidate_ms + MsSince(t));
    }
    const auto [b, e] = groups[gi];
    (*checks)[gi] = g.Results(run->cases[b].spec.id, e - b > 1);
  });
  return Status::Ok();
}

}  // namespace

Result<NumericsRun> RunNumericsSweep(const NumericsOptions& o) {
  auto t0 = Clock::now();
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
  AV_RETURN_IF_ERROR(CheckTolerancesCover(tol, all));
  NumericsRun run;
  run.total_cases = static_cast<int64_t>(all.size());
  run.shard_index = o.shard_index;
  run.shard_count = o.shard_count;
  run.filter = o.filter;
  for (const std::string& a : cfg.candidate.command)
    run.candidate_command += (run.candidate_command.empty() ? "" : " ") + a;
  AV_ASSIGN_OR_RETURN(run.shapes_sha256, Sha256File(cfg.shapes));
  AV_ASSIGN_OR_RETURN(run.tolerances_sha256, Sha256File(cfg.tolerances));
  AV_RETURN_IF_ERROR(SelectCases(o, all, &run));
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
  Sweep sweep(o, tol, &run, tracked);
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
  run.wall_ms = MsSince(t0);
  return run;
}

}  // namespace av
