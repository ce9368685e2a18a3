#include "sweep/numerics_case.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>

#include "core/file.h"
#include "core/sandbox.h"
#include "core/utf8.h"
#include "numerics/heatmap_svg.h"
#include "reference/ref_ops.h"
#include "sweep/case_builder.h"
#include "sweep/invariance.h"
#include "sweep/numerics_run_referee.h"
#include "sweep/output_layout.h"
#include "sweep/rng.h"
#include "sweep/spilled_tensors.h"
#include "tensor/safetensors.h"

namespace av {
namespace {

const Tensor* FindNamed(const NamedTensors& ts, const std::string& name) {
  for (const auto& [n, t] : ts) {
    if (n == name) return &t;
  }
  return nullptr;
}

int64_t ResultBytes(const NamedTensors& ts) {
  int64_t n = 0;
  for (const auto& [name, t] : ts) n += static_cast<int64_t>(t.nbytes());
  return n;
}

std::string ImplName(ImplKind k) {
  return k == ImplKind::kOracle ? "oracle" : k == ImplKind::kFast ? "fast" : "lowprec";
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

}  // namespace

void SandboxRequest(const NumericsOptions& o, const std::vector<std::string>& writable,
                    ProcessRequest* req, bool cwd_writable) {
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
  if (!cwd_writable && !spec.cwd.empty() && !Inside(spec.cwd, package) && spec.cwd != package)
    spec.read_only.push_back(spec.cwd);
  std::vector<std::string> argv = req->argv;
  argv[0] = *program;
  req->argv = BwrapArgv(o.bwrap, spec, argv);
  req->cwd.clear();  // bwrap's --chdir moves the program there
}

// What one Finish call holds between its steps. `ref` and `lowprec` point at the
// group's shared reference or at this case's own (`ref_local`, `lowprec_local`).
struct CaseRunner::Judging {
  std::shared_ptr<const Buffer> inputs_bytes;  // our checked copy of inputs.safetensors
  std::optional<NamedTensors> inputs_cache;    // parsed from it once, when needed
  std::vector<std::string> all_nan;            // outputs that are entirely NaN
  NamedTensors cand;                           // in the base case's order
  NamedTensors ref_local, oracle_ref;
  std::optional<NamedTensors> lowprec_local;
  const NamedTensors* ref = nullptr;
  const std::optional<NamedTensors>* lowprec = nullptr;
  bool fast_ref = false;   // the fast reference judges this case (the oracle referees)
  std::string group_impl;  // what variants sharing ref_local record
  SweepClock::time_point t_check;

  Result<const NamedTensors*> Inputs(const WrittenCase& wc) {
    if (inputs_cache) return &*inputs_cache;
    AV_ASSIGN_OR_RETURN(SafetensorsFile stored, ParseSafetensors(inputs_bytes, wc.inputs_path));
    AV_ASSIGN_OR_RETURN(NamedTensors in, ApplyLayouts(stored.tensors, wc.layouts));
    inputs_cache = std::move(in);
    return &*inputs_cache;
  }
};

CaseRunner::CaseRunner(const NumericsOptions& o, const TolerancesConfig& tol, NumericsRun* run,
                       TreeSnapshot* snapshot)
    : o_(o),
      tol_(tol),
      run_(run),
      snapshot_(snapshot),
      written_(run->cases.size()),
      has_copies_(run->cases.size(), 0),
      // Two entries per worker (K and V, or a GEMM's two operands), and about one of the
      // largest held between cases: the full grid's b=64, s_k=4096 bf16 MLA cache is
      // about 300 MB. The work order runs a family's cases together, so one is enough.
      shared_(2 * static_cast<size_t>(std::max(o.jobs, 1)), int64_t{384} << 20) {
  const size_t n = run->cases.size();
  // A Fisher-Yates shuffle of the run's cases from the salt: a folder's number says
  // nothing of the case in it, and `--salt` gives the same folders again.
  std::vector<size_t> place(n);
  std::iota(place.begin(), place.end(), size_t{0});
  Rng rng(StreamKey("case_folders", "order", 0, n ? run->cases[0].spec.salt : 0));
  for (size_t i = n; i-- > 1;) {
    std::swap(place[i], place[static_cast<size_t>(rng.UniformInt(static_cast<int64_t>(i) + 1))]);
  }
  const int width = std::max<int>(4, static_cast<int>(std::to_string(n).size()));
  folders_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    std::string number = std::to_string(place[i]);
    folders_[i] = o.exported_layout
                      ? run->cases[i].spec.id
                      : "c" + std::string(static_cast<size_t>(width) - number.size(), '0') + number;
  }
  for (size_t i = 0, base = 0; i < n; ++i) {
    if (run->cases[i].spec.kind == VariantKind::kBase) base = i;
    if (SameInputBytes(run->cases[i].spec.kind)) {
      for (size_t j = base; j <= i; ++j) has_copies_[j] = 1;
      any_copies_ = true;
    }
  }
}

void CaseRunner::Fail(CaseResult& r, const std::string& reason, CaseVerdict verdict) {
  r.verdict = verdict;
  if (r.reason.empty()) r.reason = reason;
}

void CaseRunner::RecordError(const Status& st) {
  std::lock_guard<std::mutex> lock(mu_);
  if (first_error_.ok()) first_error_ = st;
}

void CaseRunner::RemoveHeatmap(const std::string& case_id, const std::string& output) {
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::path(o_.config.evidence).parent_path() /
                                     "heatmaps" / (case_id + "." + output + ".svg");
  if (std::filesystem::remove(file, ec) && snapshot_ != nullptr) snapshot_->Forget(file.string());
}

bool CaseRunner::Prepare(size_t i, size_t base_index, std::optional<BuiltCase>* base) {
  CaseResult& r = run_->cases[i];
  auto t0 = SweepClock::now();
  Result<BuiltCase> built = InvalidInput("not built");
  if (r.spec.kind == VariantKind::kSeed) {
    built = BuildCase(r.spec, &shared_);
  } else {
    if (!base->has_value()) {
      CaseSpec plain = r.spec;
      plain.kind = VariantKind::kBase;
      Result<BuiltCase> b = BuildCase(plain, &shared_);
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
  r.op_params = built->op_params.values();
  return Written(i, WriteCase(o_.config.work_dir, r.spec, *built, {folders_[i], !o_.exported_layout}), t0);
}

bool CaseRunner::PrepareCopy(size_t i, size_t base_index, const GroupState& g) {
  const std::optional<WrittenCase>& base = written_[base_index];
  if (g.base_inputs == nullptr || !base.has_value()) {
    // The base case's file did not come back intact: the variant's inputs are built again.
    std::optional<BuiltCase> none;
    return Prepare(i, base_index, &none);
  }
  CaseResult& r = run_->cases[i];
  auto t0 = SweepClock::now();
  r.op_params = base->op_params.values();
  return Written(
      i, WriteCaseCopy(o_.config.work_dir, r.spec, *base, *g.base_inputs,
                         {folders_[i], !o_.exported_layout}),
      t0);
}

// The end of Prepare and PrepareCopy: case i's files are written (or not).
bool CaseRunner::Written(size_t i, Result<WrittenCase> wc, SweepClock::time_point t0) {
  CaseResult& r = run_->cases[i];
  if (!wc.ok()) {
    RecordError(wc.status().WithContext("case " + r.spec.id));
    return false;
  }
  // Heatmaps of an earlier run of this case must not outlive it.
  for (const ExpectedOutput& e : wc->outputs) RemoveHeatmap(r.spec.id, e.name);
  if (!wc->warnings.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& w : wc->warnings) run_->warnings.push_back(ReplaceInvalidUtf8(w));
  }
  r.inputs_sha256 = wc->inputs_sha256;
  r.case_dir = wc->dir;
  written_[i] = std::move(*wc);
  r.generate_ms = MsSince(t0);
  return true;
}

ProcessRequest CaseRunner::Request(const std::string& cases, const std::string& case_dir,
                                   const std::string& out_dir,
                                   const std::vector<std::string>& writable) const {
  ProcessRequest req;
  req.argv = ExpandCommand(o_.config.candidate.command, cases, case_dir, out_dir);
  req.cwd = o_.config.candidate.cwd;
  req.extra_env = o_.config.candidate.env;
  req.extra_env["ATTNVERIFY_WORK_DIR"] = o_.config.work_dir;
  req.timeout_ms = o_.config.candidate.timeout_s * 1000;
  req.max_output_bytes = 1 << 20;
  SandboxRequest(o_, writable, &req);
  return req;
}

void CaseRunner::CountLeftovers(const Result<ProcessResult>& pr) {
  if (!pr.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  run_->leftover_processes += pr->leftover_processes;
}

bool CaseRunner::ApplyRun(size_t i, const Result<ProcessResult>& pr, double ms) {
  CaseResult& r = run_->cases[i];
  r.candidate_ms = ms;
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

void CaseRunner::Finish(size_t i, GroupState& g) {
  CaseResult& r = run_->cases[i];
  const WrittenCase& wc = *written_[i];
  Judging w;
  w.t_check = SweepClock::now();
  if (!ReadBack(i, g, w)) return;

  // Only now, with the candidate finished, is the reference computed. Variants on the
  // base case's inputs (num_splits, reruns, permutations) share its reference.
  auto t_ref = SweepClock::now();
  r.check_ms = MsSince(w.t_check);
  if (!ComputeReference(r, wc, g, w)) return;
  r.reference_ms = MsSince(t_ref);

  auto t_cmp = SweepClock::now();
  r.verdict = CaseVerdict::kPass;
  // An all-NaN output fails the case (under allow_nan it could pass every comparison)
  // but is kept: a deterministic kernel's reruns and splits must still be judged on it.
  for (const std::string& name : w.all_nan) Fail(r, "output " + name + " is entirely NaN");
  const bool shares_inputs = r.spec.kind != VariantKind::kBase && r.spec.kind != VariantKind::kSeed;
  if (shares_inputs && g.base_pass && g.have_out && SameOutputBytes(g.base_out, w.cand)) {
    r.outputs = *g.base_pass;
    r.compare_from = r.spec.group_id();
  }
  if (r.compare_from.empty()) CompareOutputs(r, wc, w.cand, *w.ref, *w.lowprec);
  r.compare_ms = MsSince(t_cmp);

  w.group_impl = r.reference_impl;
  if (w.fast_ref && r.compare_from.empty() && !Referee(r, wc, w)) return;
  w.t_check = SweepClock::now();
  Record(r, g, w);
  r.check_ms += MsSince(w.t_check);
}

// The inputs must come back as written: a candidate that writes into them computed its
// outputs from other bytes. They are read once into our own memory, XXH3 checks that
// copy (the message names the sha256 the evidence records), and the reference is
// computed from the same copy: no process can swap the file in between (H3). Then the
// outputs, a batch_permutation variant's back in the base case's order.
bool CaseRunner::ReadBack(size_t i, GroupState& g, Judging& w) {
  CaseResult& r = run_->cases[i];
  const WrittenCase& wc = *written_[i];
  Result<std::shared_ptr<const Buffer>> inputs_bytes = ReadCheckedInputs(wc);
  if (!inputs_bytes.ok()) {
    Fail(r, inputs_bytes.status().message());
    g.Missing(r.spec);
    return false;
  }
  w.inputs_bytes = std::move(*inputs_bytes);
  if (r.spec.kind == VariantKind::kBase && HasCopies(i)) g.base_inputs = w.inputs_bytes;
  Result<CandidateOutputs> outs = ReadCandidateOutputs(wc);
  // The group's reruns and num_splits variants run after this (or, in a later run, in
  // these folders): they must compute their outputs, not find this case's (whatever its
  // folder holds is in our memory now).
  if (any_copies_) {
    Status removed = RemoveOutputs(wc);
    if (!removed.ok() && outs.ok()) {
      Fail(r, "its outputs could not be removed before its group's other runs: " +
                  removed.message());
      g.Missing(r.spec);
      return false;
    }
  }
  if (!outs.ok()) {
    Fail(r, outs.status().message());
    g.Missing(r.spec);
    return false;
  }
  r.outputs_sha256 = outs->sha256;
  r.candidate_metadata = outs->metadata;
  w.all_nan = outs->all_nan;
  Result<NamedTensors> cand = UnpermuteOutputs(r.spec, outs->tensors);
  if (!cand.ok()) {
    Fail(r, cand.status().message(), CaseVerdict::kError);
    return false;
  }
  w.cand = std::move(*cand);
  return true;
}

// The group's reference when this variant shares its base case's inputs, else this
// case's own: the configured implementation (the oracle for an op the fast one does not
// judge or cannot run), and the low-precision yardstick where a rule asks for it.
bool CaseRunner::ComputeReference(CaseResult& r, const WrittenCase& wc, GroupState& g, Judging& w) {
  const bool shares_inputs = r.spec.kind != VariantKind::kBase && r.spec.kind != VariantKind::kSeed;
  if (shares_inputs && g.have_ref) {
    w.ref = &g.ref;
    w.lowprec = &g.lowprec;
    w.fast_ref = g.reference_impl == "fast" || g.reference_impl.rfind("fast+", 0) == 0;
    r.reference_impl = g.reference_impl + " (shared with " + r.spec.group_id() + ")";
    return true;
  }
  Result<const NamedTensors*> inputs = w.Inputs(wc);
  if (!inputs.ok())
    return Fail(r, "reference: " + inputs.status().message(), CaseVerdict::kError), false;
  RefImpl impl = o_.config.reference;
  impl.keep_f32_results = true;  // a float32 GEMM result judged as it is, not widened
  if (impl.kind == ImplKind::kFast && !FastReferenceJudges(r.spec.op))
    impl.kind = ImplKind::kOracle;
  Result<NamedTensors> rr = RunReferenceOp(r.spec.op, **inputs, wc.op_params, impl);
  if (!rr.ok() && rr.status().code() == StatusCode::kUnsupported &&
      impl.kind != ImplKind::kOracle) {
    impl.kind = ImplKind::kOracle;  // no fast path for this op: the oracle answers
    rr = RunReferenceOp(r.spec.op, **inputs, wc.op_params, impl);
  }
  if (!rr.ok()) return Fail(r, "reference: " + rr.status().message(), CaseVerdict::kError), false;
  w.fast_ref = impl.kind == ImplKind::kFast;
  if (w.fast_ref && o_.fast_reference_hook) o_.fast_reference_hook(r.spec, &*rr);
  r.reference_impl = ImplName(impl.kind);
  for (const ExpectedOutput& e : wc.outputs) {
    const ToleranceEntry* t = FindTolerance(tol_, r.spec.op, e.name, r.spec.dtype);
    if (t->request.kind == RuleKind::kLowprecMultiple && !w.lowprec_local) {
      RefImpl lp{ImplKind::kLowprec, o_.config.reference.threads, r.spec.dtype};
      Result<NamedTensors> l = RunReferenceOp(r.spec.op, **inputs, wc.op_params, lp);
      if (!l.ok())
        return Fail(r, "low-precision reference: " + l.status().message(), CaseVerdict::kError),
               false;
      Result<NamedTensors> lu = UnpermuteOutputs(r.spec, *l);
      if (!lu.ok()) return Fail(r, lu.status().message(), CaseVerdict::kError), false;
      w.lowprec_local = std::move(*lu);
      r.reference_impl += "+lowprec_" + std::string(DTypeName(r.spec.dtype));
    }
  }
  Result<NamedTensors> ru = UnpermuteOutputs(r.spec, *rr);
  if (!ru.ok()) return Fail(r, ru.status().message(), CaseVerdict::kError), false;
  w.ref_local = std::move(*ru);
  w.ref = &w.ref_local;
  w.lowprec = &w.lowprec_local;
  return true;
}

// The oracle referees the fast reference: a failing comparison, one within
// kRefereeMargin of its tolerance, and 1 case in oracle_sample are judged again by the
// oracle, whose verdict stands; the two references must agree (else: an error). False
// when the case ended here (an error).
bool CaseRunner::Referee(CaseResult& r, const WrittenCase& wc, Judging& w) {
  const std::string why = RefereeReason(r, w.cand, *w.ref);
  if (why.empty()) return true;
  auto t_oracle = SweepClock::now();
  Result<const NamedTensors*> inputs = w.Inputs(wc);
  if (!inputs.ok())
    return Fail(r, "reference: " + inputs.status().message(), CaseVerdict::kError), false;
  // Large fast results of this case's own wait on disk while the oracle runs; they are
  // replaced by its results below. A spill that fails only costs memory.
  std::optional<SpilledTensors> spilled;
  if (w.ref == &w.ref_local && ResultBytes(w.ref_local) >= o_.spill_fast_from_bytes) {
    Result<SpilledTensors> sp = SpilledTensors::Write(w.ref_local, o_.config.work_dir);
    if (sp.ok()) {
      spilled = std::move(*sp);
      NamedTensors().swap(w.ref_local);
    }
  }
  Result<NamedTensors> orr = RunReferenceOp(r.spec.op, **inputs, wc.op_params, {});
  if (!orr.ok())
    return Fail(r, "oracle referee: " + orr.status().message(), CaseVerdict::kError), false;
  Result<NamedTensors> ou = UnpermuteOutputs(r.spec, *orr);
  if (!ou.ok()) return Fail(r, ou.status().message(), CaseVerdict::kError), false;
  w.oracle_ref = std::move(*ou);
  r.reference_ms += MsSince(t_oracle);
  std::vector<std::string> names;
  for (const ExpectedOutput& e : wc.outputs) names.push_back(e.name);
  const FastResults fast = spilled ? FastResults{nullptr, &*spilled} : FastResults{w.ref, nullptr};
  Status agree = CheckReferencesAgree(r.spec.id, r.spec.op, fast, w.oracle_ref, names);
  if (!agree.ok()) {
    r.verdict = CaseVerdict::kError;
    r.reason = "internal error: " + agree.message();
    r.refereed_by = "oracle";
    r.referee_reason = why;
    return false;
  }
  auto t_rejudge = SweepClock::now();
  ClearJudgement(r, wc);
  r.verdict = CaseVerdict::kPass;
  for (const std::string& name : w.all_nan) Fail(r, "output " + name + " is entirely NaN");
  CompareOutputs(r, wc, w.cand, w.oracle_ref, *w.lowprec);
  r.compare_ms += MsSince(t_rejudge);
  r.refereed_by = "oracle";
  r.referee_reason = why;
  if (w.ref == &w.ref_local) {
    // Variants that share this reference get the oracle's.
    w.ref_local = std::move(w.oracle_ref);
    w.group_impl = "oracle" + r.reference_impl.substr(std::string("fast").size());
  } else {
    w.ref = &w.oracle_ref;
  }
  return true;
}

// The group's checks: a base case leaves its outputs (and its own reference, for the
// variants to share), a seed variant must move the outputs, other variants must not.
void CaseRunner::Record(CaseResult& r, GroupState& g, Judging& w) {
  if (r.spec.kind == VariantKind::kBase) {
    if (r.verdict == CaseVerdict::kPass) g.base_pass = r.outputs;
    g.base_out = std::move(w.cand);
    g.have_out = true;
    if (w.ref == &w.ref_local) {
      g.ref = std::move(w.ref_local);
      g.lowprec = std::move(w.lowprec_local);
      g.have_ref = true;
      g.reference_impl = w.group_impl;
    }
  } else if (r.spec.kind == VariantKind::kSeed) {
    g.Seed(r.spec, w.cand, *w.ref);
  } else {
    g.Compare(r, w.cand);
  }
}

// Compares every expected output of case r with `ref` (and the low-precision yardstick
// where the rule asks for it): one OutputVerdict each, failing r on a miss.
void CaseRunner::CompareOutputs(CaseResult& r, const WrittenCase& wc, const NamedTensors& cand,
                                const NamedTensors& ref,
                                const std::optional<NamedTensors>& lowprec) {
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
      Fail(r, "reference produced no " + e.name, CaseVerdict::kError);
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
std::string CaseRunner::RefereeReason(const CaseResult& r, const NamedTensors& cand,
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

// Forgets a comparison before it is made again: verdict, outputs, localisation and the
// heatmap files it wrote.
void CaseRunner::ClearJudgement(CaseResult& r, const WrittenCase& wc) {
  r.verdict.reset();
  r.reason.clear();
  r.outputs.clear();
  r.hints.clear();
  r.worst.clear();
  if (!r.heatmaps.empty()) {
    for (const ExpectedOutput& e : wc.outputs) RemoveHeatmap(r.spec.id, e.name);
  }
  r.heatmaps.clear();
}

// Hints, worst elements and a heatmap for one failing output.
void CaseRunner::Localise(CaseResult& r, const WrittenCase& wc, const std::string& name,
                          const Tensor& cand, const Tensor& ref, const CompareReport& report) {
  Result<LocaliseLayout> layout = OutputLayout(r.spec, name, cand.shape(), wc.notes);
  if (!layout.ok()) return;
  Result<Localisation> loc = LocaliseErrors(name, cand, ref, ElementToleranceFor(report), *layout);
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

void CaseRunner::Report(size_t i, double total_ms) {
  CaseResult& r = run_->cases[i];
  r.total_ms = total_ms;
  if (!r.verdict) Fail(r, "not run (an earlier error stopped the sweep)", CaseVerdict::kError);
  if (!o_.on_case) return;
  std::lock_guard<std::mutex> lock(mu_);
  o_.on_case(r, ++done_, static_cast<int64_t>(run_->cases.size()));
}

}  // namespace av
