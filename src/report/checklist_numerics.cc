// Item 1 (numerical correctness) of the checklist, from evidence/numerics.json: one judge
// per check of the table (doc/report.md). A PASS or FAIL cites the file.
#include <algorithm>
#include <map>
#include <set>

#include "core/format.h"
#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

bool IsLowPrecision(const std::string& dtype) {
  return dtype == "f16" || dtype == "bf16" || dtype == "f8_e4m3fn" || dtype == "f8_e5m2";
}

// Judged base cases per key (op or dtype): passed, total.
using Counts = std::map<std::string, std::pair<int, int>>;

Counts CountBy(const std::vector<const NumericsCase*>& base, std::string NumericsCase::*key) {
  Counts out;
  for (const NumericsCase* c : base) {
    if (!c->passed() && !c->failed()) continue;
    out[c->*key].first += c->passed();
    ++out[c->*key].second;
  }
  return out;
}

// "attention 3/4, gemm 2/2"
std::string FormatCounts(const Counts& m) {
  std::string s;
  for (const auto& [k, v] : m) {
    s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v.first) + "/" +
         std::to_string(v.second);
  }
  return s;
}

// The base cases of a numerics.json that holds any; the checks after 1.base_cases do not
// apply without them.
const NumericsEvidence* WithBaseCases(const Context& ctx) {
  if (!ctx.ev.numerics || BaseCases(*ctx.ev.numerics).empty()) return nullptr;
  return &*ctx.ev.numerics;
}

// " (3 attributed to 2.causal_alignment, 1 attributed to 2.window)", or ", all attributed
// to X" when one check explains every failure.
std::string AttributionSummary(const Context& ctx,
                               const std::vector<const NumericsCase*>& failing) {
  std::map<std::string, size_t> by_check;
  for (const NumericsCase* f : failing) {
    if (const ReportAttribution* a = AttributionOf(ctx, f)) ++by_check[a->check_id];
  }
  if (by_check.size() == 1 && by_check.begin()->second == failing.size()) {
    return (failing.size() == 1 ? ", attributed to " : ", all attributed to ") +
           by_check.begin()->first;
  }
  std::string out;
  for (const auto& [id, k] : by_check)
    out += (out.empty() ? " (" : ", ") + std::to_string(k) + " attributed to " + id;
  return out.empty() ? out : out + ")";
}

// The checks that compare files rather than judge the kernel: they may pass on a narrowed
// sweep (1.junit_agrees: pytest's verdicts agree with the cases the file holds).
bool JudgesTheKernel(const std::string& id) {
  return id != "1.sweep_complete" && id != "1.junit_agrees";
}

// Whether a case of `op` could count for check `id`: the checks that look at one family of
// ops only (masks and softmax at attention-like ops, the tile guards at GEMMs); every
// other check judges every op. A check no skipped case could count for keeps its PASS.
bool CheckConcernsOp(const std::string& id, const std::string& op) {
  const bool gemm = op == "gemm" || op == "fp8_gemm";
  if (id.rfind("2.", 0) == 0 || id == "1.softmax_stability") return IsSoftmaxOp(op);
  if (id == "4.unaligned_gemm") return gemm;
  return true;
}

// "255 cases (attention 96, mla_decode 126, ...)": the skipped cases by op.
std::string SkippedByOp(const NumericsEvidence& n) {
  std::map<std::string, size_t> by_op;
  for (const SkippedCaseRecord& k : n.skipped) ++by_op[k.op];
  std::string ops;
  for (const auto& [op, k] : by_op) ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(k);
  return Plural(n.skipped.size(), "case", "cases") + " (" + ops + ")";
}

// Only the tests' skips narrow the file: no filter, shard or missing shard, and every case
// of the sweep is either judged or skipped.
bool NarrowedOnlyBySkips(const NumericsEvidence& n) {
  if (n.skipped.empty() || !n.filter.empty() || !n.shard.missing.empty() ||
      (!n.shard.merged && n.shard.count > 1)) {
    return false;
  }
  std::set<std::string> ids;
  for (const NumericsCase& c : n.cases) ids.insert(c.id);
  for (const SkippedCaseRecord& k : n.skipped) ids.insert(k.id);
  return n.summary.cases_total > 0 && static_cast<int64_t>(ids.size()) == n.summary.cases_total;
}

}  // namespace

std::string NarrowedNumerics(const NumericsEvidence& n) {
  std::vector<std::string> why;
  std::set<std::string> ids;
  for (const NumericsCase& c : n.cases) ids.insert(c.id);
  // Files of schema /1 (and records built by hand) may lack the summary: only what they
  // do say counts against them.
  const bool v2 = n.schema == kNumericsJsonSchema;
  const int64_t total = n.summary.cases_total;
  if (v2 && total <= 0) why.push_back("it does not record how many cases its sweep has");
  if (!n.skipped.empty()) {
    why.push_back("the tests skipped " + SkippedByOp(n) + ", not judged (first " +
                  n.skipped.front().id + ": " + n.skipped.front().reason + ")");
    for (const SkippedCaseRecord& k : n.skipped) ids.insert(k.id);
  }
  if (total > 0 && static_cast<int64_t>(ids.size()) < total) {
    why.push_back("it holds " + std::to_string(ids.size()) + " of the " + std::to_string(total) +
                  " cases of its sweep" + (n.config.shapes.empty() ? "" : " (" + n.config.shapes + ")"));
  }
  if (!n.filter.empty()) why.push_back("it ran with --filter \"" + n.filter + "\"");
  if (!n.shard.missing.empty()) {
    // A merged file's own shard is 0/1; the merged shards' count is in merged_from.
    const int64_t count =
        n.shard.merged_from.empty() ? n.shard.count : n.shard.merged_from.front().count;
    std::string list;
    for (int64_t m : n.shard.missing)
      list += (list.empty() ? "" : ", ") + std::to_string(m) + "/" + std::to_string(count);
    why.push_back("shard(s) " + list + " are missing from the merge");
  } else if (!n.shard.merged && n.shard.count > 1) {
    why.push_back("it is shard " + std::to_string(n.shard.index) + "/" +
                  std::to_string(n.shard.count) + " of the sweep, not merged");
  }
  if (why.empty() && v2 && n.verdict == CaseVerdict::kFail && !n.cases.empty() &&
      std::all_of(n.cases.begin(), n.cases.end(), [](const NumericsCase& c) { return c.passed(); })) {
    why.push_back("its own verdict is fail though every case it holds passed");
  }
  if (why.empty()) return "";
  std::string out = n.file.path + " is narrower than its sweep: ";
  for (size_t i = 0; i < why.size(); ++i) out += (i ? "; " : "") + why[i];
  return out;
}

void DemoteNarrowedPasses(const Context& ctx, std::vector<Check>* checks,
                          std::vector<std::string>* warnings) {
  if (!ctx.ev.numerics) return;
  const std::string why = NarrowedNumerics(*ctx.ev.numerics);
  if (why.empty()) return;
  const std::string& file = ctx.ev.numerics->file.path;
  std::vector<std::string> demoted;
  const NumericsEvidence& n = *ctx.ev.numerics;
  const bool only_skips = NarrowedOnlyBySkips(n);
  for (Check& c : *checks) {
    if (!JudgesTheKernel(c.id)) continue;
    if (std::none_of(c.citations.begin(), c.citations.end(),
                     [&](const Citation& x) { return x.file == file; })) {
      continue;
    }
    // Narrowed only by the tests' skips, a check none of the skipped cases could count
    // for is judged on what ran, the skips listed; any other check may have lost a case.
    if (only_skips && c.status == CheckStatus::kPass &&
        std::none_of(n.skipped.begin(), n.skipped.end(),
                     [&](const SkippedCaseRecord& k) { return CheckConcernsOp(c.id, k.op); })) {
      c.details.push_back("judged on the cases that ran: the tests skipped " + SkippedByOp(n) +
                          ", none of an op this check judges");
      continue;
    }
    if (c.status == CheckStatus::kPass) {
      c.status = CheckStatus::kMissing;
      c.summary = "not judged on a narrowed sweep (" + why + "); on the cases it holds: " +
                  c.summary;
      c.missing_command = ctx.numerics_cmd;
      demoted.push_back(c.id);
    } else if (c.status == CheckStatus::kFail) {
      c.details.push_back("judged on a narrowed sweep (" + why +
                          "): the failures stand; the whole sweep may show more");
    }
  }
  warnings->push_back(why + ". No check passes on it" +
                      (demoted.empty() ? "" : " (MISSING: " + JoinList(demoted) + ")") +
                      "; its failures still count. Run the whole sweep: `" + ctx.numerics_cmd +
                      "`");
}

std::optional<Check> JudgeSweepComplete(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return std::nullopt;  // 1.base_cases says why
  const NumericsEvidence& n = *ctx.ev.numerics;
  const std::string why = NarrowedNumerics(n);
  if (!why.empty()) return Missing(def, why + "; run the whole sweep", ctx.numerics_cmd);
  const int64_t total = n.summary.cases_total;
  Check c = MakeCheck(
      def, CheckStatus::kPass,
      total > 0 ? "all " + Plural(static_cast<size_t>(total), "case", "cases") + " of the sweep" +
                      (n.config.shapes.empty() ? "" : " (" + n.config.shapes + ")") + " judged"
                : Plural(n.cases.size(), "case", "cases") + " judged (" + n.file.path +
                      " does not record its sweep's size)");
  c.citations.push_back(Cite(n.file));
  return c;
}

std::optional<Check> JudgeBaseCases(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  const NumericsEvidence& n = *ctx.ev.numerics;
  std::vector<const NumericsCase*> base = BaseCases(n), failing, unjudged;
  if (base.empty()) return Missing(def, n.file.path + " holds no cases", ctx.numerics_cmd);
  for (const NumericsCase* c : base) {
    if (c->failed())
      failing.push_back(c);
    else if (!c->passed())
      unjudged.push_back(c);
  }
  const std::string all = Plural(base.size(), "base case", "base cases");
  if (failing.empty() && !unjudged.empty()) {
    const NumericsCase& first = *unjudged.front();
    return Missing(def,
                   std::to_string(unjudged.size()) + " of " + all + " could not be judged (" +
                       first.id + ": " + CaseVerdictName(first.verdict) + ": " + first.reason + ")",
                   ctx.numerics_cmd);
  }
  if (failing.empty()) {
    Check c = MakeCheck(
        def, CheckStatus::kPass,
        "all " + all + " passed (" + FormatCounts(CountBy(base, &NumericsCase::op)) + ")");
    c.citations.push_back(Cite(n.file));
    return c;
  }
  std::vector<const NumericsCase*> sorted = failing;
  SortWorstFirst(&sorted);
  Check c = MakeCheck(def, CheckStatus::kFail,
                      std::to_string(failing.size()) + " of " + all + " failed" +
                          AttributionSummary(ctx, failing) + "; worst: " + sorted.front()->id);
  AddFailures(ctx, failing, 3, &c);
  return c;
}

std::optional<Check> JudgeDtypes(const Context& ctx, const CheckDef& def) {
  const NumericsEvidence* n = WithBaseCases(ctx);
  if (n == nullptr) return std::nullopt;
  const std::vector<const NumericsCase*> base = BaseCases(*n);
  const Counts by_dtype = CountBy(base, &NumericsCase::dtype);
  const std::string counts = FormatCounts(by_dtype);
  std::vector<std::string> failed;
  for (const auto& [d, v] : by_dtype) {
    if (v.first < v.second) failed.push_back(d);
  }
  if (failed.empty()) {
    bool low = std::any_of(by_dtype.begin(), by_dtype.end(),
                           [](const auto& d) { return IsLowPrecision(d.first); });
    if (!low) {
      return Missing(def,
                     "no case in f16, bf16 or fp8 (only " + counts +
                         "); add \"dtypes\": [\"bf16\", \"f16\"] to a sweep in shapes.json",
                     ctx.numerics_cmd);
    }
    Check c = MakeCheck(def, CheckStatus::kPass, "passed per dtype: " + counts);
    c.citations.push_back(Cite(n->file));
    return c;
  }
  std::vector<const NumericsCase*> dtype_failing, dtype_passing;
  for (const NumericsCase* b : base) {
    if (std::find(failed.begin(), failed.end(), b->dtype) == failed.end()) continue;
    if (b->failed())
      dtype_failing.push_back(b);
    else if (b->passed())
      dtype_passing.push_back(b);
  }
  if (!dtype_passing.empty() &&
      AttributedElsewhere(ctx, def.id, dtype_failing).size() == dtype_failing.size()) {
    // Every failure is explained by a mask bug: the dtype itself is not what fails.
    Check c =
        ExplainedElsewhere(ctx, def, JoinList(failed) + " cases", dtype_passing, dtype_failing, "");
    c.summary += " (passed per dtype: " + counts + ")";
    return c;
  }
  Check c = MakeCheck(def, CheckStatus::kFail,
                      "failures in " + JoinList(failed) + " (passed per dtype: " + counts + ")");
  c.citations.push_back(Cite(n->file));
  return c;
}

std::optional<Check> JudgeSoftmaxStability(const Context& ctx, const CheckDef& def) {
  const NumericsEvidence* n = WithBaseCases(ctx);
  if (n == nullptr) return std::nullopt;
  const std::vector<const NumericsCase*> base = BaseCases(*n);
  if (std::none_of(base.begin(), base.end(),
                   [](const NumericsCase* c) { return IsSoftmaxOp(c->op); })) {
    return std::nullopt;  // no attention-like op swept
  }
  std::vector<const NumericsCase*> stress, failing;
  for (const NumericsCase* c : base) {
    if (IsSoftmaxOp(c->op) && StrParam(*c, "generator") == "large_logits") {
      stress.push_back(c);
      if (c->failed()) failing.push_back(c);
    }
  }
  if (stress.empty()) {
    return Missing(
        def,
        "no attention case used generator large_logits (scores ~100: exp overflows without max "
        "subtraction); add \"generators\": [\"randn\", \"large_logits\"] to shapes.json",
        ctx.numerics_cmd);
  }
  if (!failing.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        std::to_string(failing.size()) + " of " + std::to_string(stress.size()) +
                            " large-logit cases failed");
    AddFailures(ctx, failing, 3, &c);
    return c;
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      Plural(stress.size(), "large-logit case", "large-logit cases") + " passed");
  c.citations.push_back(Cite(n->file, stress.front()->id));
  return c;
}

std::optional<Check> JudgeInvariance(const Context& ctx, const CheckDef& def) {
  const NumericsEvidence* n = WithBaseCases(ctx);
  if (n == nullptr) return std::nullopt;
  std::vector<const InvarianceRecord*> inv, failed;
  std::set<std::string> kinds;
  for (const InvarianceRecord& r : n->invariance) {
    if (r.check == "num_splits") continue;  // 5.num_splits judges those
    inv.push_back(&r);
    kinds.insert(r.check);
    if (r.verdict == InvarianceVerdict::kFail) failed.push_back(&r);
  }
  Check c;
  if (inv.empty()) {
    c = Missing(def,
                "no rerun, permutation or seed invariance in " + n->file.path +
                    "; add \"invariance\": {\"reruns\": 1, \"batch_permutation\": true} to a sweep",
                ctx.numerics_cmd);
    c.required = false;
    return c;
  }
  c = MakeCheck(def, failed.empty() ? CheckStatus::kPass : CheckStatus::kFail,
                failed.empty()
                    ? Plural(inv.size(), "group", "groups") + " invariant (" +
                          JoinList({kinds.begin(), kinds.end()}) + ")"
                    : std::to_string(failed.size()) + " of " +
                          Plural(inv.size(), "group", "groups") + " changed beyond rounding");
  c.required = false;
  for (const InvarianceRecord* r : failed.empty() ? inv : failed) {
    c.citations.push_back(Cite(n->file, r->group));
    if (r->verdict != InvarianceVerdict::kPass) {
      c.details.push_back(r->check + " " + r->group + ": " + InvarianceVerdictName(r->verdict) +
                          ", max |diff| " + FormatG(r->max_abs_diff, 4) +
                          (r->tolerance.empty() ? "" : " (tolerance " + r->tolerance + ")") +
                          (r->detail.empty() ? "" : ": " + r->detail));
    }
    if (c.citations.size() >= 5) break;
  }
  return c;
}

std::optional<Check> JudgeConfigUnchanged(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.review) {
    Check c = Missing(def,
                      AbsentNote(ctx, "review", "evidence/review.json") +
                          "; the review compares the package's tolerances, shapes and [policy] "
                          "with the base revision's",
                      ctx.review_cmd);
    // Only the review compares the config: required when the package requires the review
    // (item 8, whose 8.review is then MISSING too), not otherwise.
    c.required = ctx.cfg.required.count(8) > 0;
    return c;
  }
  const ReviewEvidence& r = *ctx.ev.review;
  if (!r.config_reviewed) {
    // A reviewer that predates the comparison: nothing to judge, shown, not required
    // (every review.json attnverify writes now says config_reviewed).
    Check c = Missing(def,
                      r.file.path +
                          " does not say whether the package's own config changed "
                          "(its reviewer does not compare it)",
                      ctx.review_cmd);
    c.required = false;
    return c;
  }
  std::vector<std::string> loosened, other;
  for (const ConfigChange& c : r.config_changes) {
    std::string line = c.file + " " + c.json_path + ": " + c.old_json + " -> " + c.new_json + " (" +
                       c.effect + (c.finding.empty() ? "" : ", " + c.finding) + ")";
    (c.effect == "loosened" ? loosened : other).push_back(std::move(line));
  }
  if (!loosened.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        Plural(loosened.size(), "value", "values") +
                            " of the package's own config loosened in the reviewed range");
    c.details = loosened;
    c.details.insert(c.details.end(), other.begin(), other.end());
    for (const ConfigChange& x : r.config_changes) {
      if (x.effect == "loosened") c.citations.push_back(Cite(r.file, x.finding));
    }
    return c;
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      other.empty() ? "the package's tolerances, shapes and [policy] are the base "
                                      "revision's"
                                    : Plural(other.size(), "value", "values") +
                                          " of the package's own config changed, none loosened");
  c.details = other;
  c.citations.push_back(Cite(r.file));
  return c;
}

std::vector<std::string> NumericsNotes(const Context& ctx) {
  std::vector<std::string> out;
  if (!ctx.ev.numerics) return out;
  const NumericsEvidence& n = *ctx.ev.numerics;
  if (n.summary.cases_total > 0) {
    out.push_back("sweep: " + n.file.path + " holds " + std::to_string(n.cases.size()) + " of the " +
                  std::to_string(n.summary.cases_total) + " cases of " +
                  (n.config.shapes.empty() ? std::string("its shapes.json") : n.config.shapes));
  }
  if (!n.config.tolerances.empty()) {
    out.push_back("tolerances: " + n.config.tolerances +
                  (n.config.tolerances_sha256.empty()
                       ? ""
                       : " (sha256 " + n.config.tolerances_sha256.substr(0, 12) + ")") +
                  " judged the cases of " + n.file.path);
  }
  return out;
}

}  // namespace av::checklist
