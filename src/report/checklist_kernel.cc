// Items 4-7 of the checklist: GEMM tiles, split-k invariance, the attention interface
// and the fallback path (doc/report.md), one judge per check of the table.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/format.h"
#include "report/checklist_internal.h"
#include "review/component_kind.h"

namespace av::checklist {
namespace {

bool IsContractFailure(const NumericsCase& c) {
  const std::string& r = c.reason;
  return r.find(" has shape ") != std::string::npos || r.find(" has dtype ") != std::string::npos ||
         r.rfind("no output", 0) == 0 || r.find("has no tensor") != std::string::npos;
}

// The unpadded twin of a padded case: same op, dtype and params but "padded"; nullptr if none.
const NumericsCase* UnpaddedTwin(const std::vector<const NumericsCase*>& base,
                                 const NumericsCase& c) {
  nlohmann::json key = *c.params;
  if (key.is_object()) key.erase("padded");
  const NumericsCase* twin = nullptr;
  for (const NumericsCase* t : base) {
    if (t == &c || BoolParam(*t, "padded") || t->op != c.op || t->dtype != c.dtype) continue;
    nlohmann::json tk = *t->params;
    if (tk.is_object()) tk.erase("padded");
    if (tk == key) twin = t;
  }
  return twin;
}

// The kernel paths the candidate recorded in its outputs' metadata, over the cases that
// reached the candidate's outputs.
struct PathCounts {
  std::map<std::string, int> paths;
  int ran = 0, unrecorded = 0;
  std::string List() const {  // "tiled x3, legacy x1"
    std::string out;
    for (const auto& [p, k] : paths)
      out += (out.empty() ? "" : ", ") + p + " x" + std::to_string(k);
    return out;
  }
};

PathCounts CountPaths(const Context& ctx) {
  PathCounts out;
  if (!ctx.ev.numerics) return out;
  for (const NumericsCase& c : ctx.ev.numerics->cases) {
    if (c.outputs.empty() && c.candidate.metadata.empty())
      continue;  // the candidate never answered
    ++out.ran;
    std::string path;
    for (const char* key : {"kernel_path", "path", "kernel"}) {
      if (auto it = c.candidate.metadata.find(key);
          it != c.candidate.metadata.end() && !it->second.empty()) {
        path = it->second;
        break;
      }
    }
    if (path.empty())
      ++out.unrecorded;
    else
      ++out.paths[path];
  }
  return out;
}

// Whether the change holds GEMM code: "" when slice.json lists changed files and none of
// them is GEMM code as the reviewer decides it (doc/review.md, "Component kinds": a `gemm`
// component, or a file whose component or path names GEMM); else why it may hold some.
std::string MayTouchGemm(const Context& ctx) {
  int changed = 0;
  for (const SliceComponentRecord& c : ctx.ev.slice_components) {
    std::optional<ComponentKind> kind;
    for (const ReviewedDiff& d : ctx.ev.review->diffs) {
      if (d.component == c.name && !d.kind.empty()) kind = ParseComponentKind(d.kind);
    }
    for (const SliceFileRecord& f : c.files) {
      ++changed;
      const std::string& path = f.new_path.empty() ? (f.path.empty() ? f.old_path : f.path)
                                                   : f.new_path;
      if (KindOfFile(kind, c.name, path).gemm)
        return path + " (component " + c.name + ") is GEMM code";
    }
  }
  if (changed == 0) return "evidence/slice.json lists no changed file";
  return "";
}

}  // namespace

namespace {

// No GEMM case ran: N/A when no GEMM case was swept at all (none skipped either) and the
// reviewed change holds no GEMM code; else MISSING, saying which of the two is not known.
Check NoGemmSwept(const Context& ctx, const CheckDef& def) {
  const NumericsEvidence& n = *ctx.ev.numerics;
  const std::string add =
      "add a sweep with op fp8_gemm and m, n, k not multiples of 128 (e.g. m 3, n 130, k 200) "
      "to shapes.json";
  for (const SkippedCaseRecord& k : n.skipped) {
    if (k.op == "gemm" || k.op == "fp8_gemm")
      return Missing(def, "the tests skipped every GEMM case (e.g. " + k.id + ")", ctx.numerics_cmd);
  }
  if (!ctx.ev.slice) {
    return Missing(def,
                   "no gemm or fp8_gemm case in the sweep, and no evidence/slice.json to show the "
                   "change holds no GEMM code (attnverify slice --config C); or " + add,
                   ctx.slice_cmd);
  }
  if (!ctx.ev.review) {
    return Missing(def,
                   "no gemm or fp8_gemm case in the sweep, and no evidence/review.json to show the "
                   "change holds no GEMM code (attnverify review --config C); or " + add,
                   ctx.review_cmd);
  }
  if (std::string why = MayTouchGemm(ctx); !why.empty()) {
    return Missing(def, "no gemm or fp8_gemm case in the sweep, and " + why + "; or " + add,
                   ctx.numerics_cmd);
  }
  int files = 0;
  for (const SliceComponentRecord& sc : ctx.ev.slice_components) files += sc.files.size();
  Check c = MakeCheck(def, CheckStatus::kNotApplicable,
                      "no GEMM op in the sweep and no GEMM code in the change (none of its " +
                          Plural(files, "changed file", "changed files") +
                          " is a GEMM kernel, scheduler or config)");
  c.citations.push_back(Cite(n.file));
  c.citations.push_back(Cite(*ctx.ev.slice));
  return c;
}

}  // namespace

std::optional<Check> JudgeUnalignedGemm(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  std::vector<const NumericsCase*> gemm, unaligned, failing;
  for (const NumericsCase* c : BaseCases(*ctx.ev.numerics)) {
    if (c->op != "gemm" && c->op != "fp8_gemm") continue;
    gemm.push_back(c);
    if (c->failed()) failing.push_back(c);
    bool off = false;
    for (const char* k : {"m", "n", "k"}) off |= IntParam(*c, k).value_or(1) % 128 != 0;
    if (off && c->passed()) unaligned.push_back(c);
  }
  if (!failing.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        std::to_string(failing.size()) + " of " +
                            Plural(gemm.size(), "GEMM case", "GEMM cases") + " failed");
    ListFailures(ctx, failing, &c);
    return c;
  }
  if (gemm.empty()) return NoGemmSwept(ctx, def);
  if (unaligned.empty()) {
    return Missing(def,
                   "every GEMM case is a multiple of 128 in m, n and k; add e.g. m 3, n 130, k 200",
                   ctx.numerics_cmd);
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      Plural(unaligned.size(), "GEMM case", "GEMM cases") +
                          " off the 128 tile passed (e.g. " + unaligned.front()->id + ")");
  c.citations.push_back(Cite(ctx.ev.numerics->file, unaligned.front()->id));
  return c;
}

std::optional<Check> JudgeNumSplits(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  const NumericsEvidence& n = *ctx.ev.numerics;
  std::map<std::string, const NumericsCase*> by_id;
  for (const NumericsCase& c : n.cases) by_id[c.id] = &c;
  std::vector<const InvarianceRecord*> entries, failed;
  std::set<int64_t> lengths;
  for (const InvarianceRecord& r : n.invariance) {
    if (r.check != "num_splits") continue;
    entries.push_back(&r);
    if (r.verdict == InvarianceVerdict::kFail) failed.push_back(&r);
    const NumericsCase* base = by_id.count(r.group) ? by_id[r.group] : nullptr;
    if (base == nullptr && !r.cases.empty() && by_id.count(r.cases.front()))
      base = by_id[r.cases.front()];
    if (base != nullptr && r.verdict != InvarianceVerdict::kFail) {
      if (auto sk = IntParam(*base, "s_k")) lengths.insert(*sk);
    }
  }
  const std::string how =
      "add \"invariance\": {\"num_splits\": [1, 2, 4]} to an mla_decode sweep with at least two "
      "s_k values in shapes.json";
  if (entries.empty()) {
    return Missing(def, "no num_splits invariance in " + n.file.path + "; " + how,
                   ctx.numerics_cmd);
  }
  if (!failed.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        std::to_string(failed.size()) + " of " +
                            Plural(entries.size(), "group", "groups") +
                            " changed with num_splits beyond rounding");
    for (const InvarianceRecord* r : failed) {
      c.citations.push_back(Cite(n.file, r->group));
      c.details.push_back(r->group + ": max |diff| " + FormatG(r->max_abs_diff, 4) +
                          (r->tolerance.empty() ? "" : " > " + r->tolerance) +
                          (r->detail.empty() ? "" : ": " + r->detail) +
                          (r->cases.empty() ? "" : " [" + JoinList(r->cases) + "]"));
    }
    return c;
  }
  std::string list;
  for (int64_t s : lengths) list += (list.empty() ? "" : ", ") + std::to_string(s);
  if (lengths.size() < 2) {
    return Missing(
        def,
        "num_splits invariance held at only " +
            (lengths.empty() ? std::string("an unknown sequence length") : "s_k = " + list) + "; " +
            how,
        ctx.numerics_cmd);
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      "invariant in num_splits at s_k = " + list + " (" +
                          Plural(entries.size(), "group", "groups") + ")");
  for (const InvarianceRecord* r : entries) {
    c.citations.push_back(Cite(n.file, r->group));
    if (c.citations.size() >= 5) break;
  }
  return c;
}

std::optional<Check> JudgePaddedStrides(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return std::nullopt;
  const NumericsEvidence& n = *ctx.ev.numerics;
  const std::vector<const NumericsCase*> base = BaseCases(n);
  std::vector<const NumericsCase*> padded, padded_failing;
  bool strided_op = false;
  for (const NumericsCase* c : base) {
    strided_op |= c->op == "attention" || c->op == "mla_decode" || c->op == "gemm";
    if (BoolParam(*c, "padded") && c->passed()) padded.push_back(c);
    if (BoolParam(*c, "padded") && c->failed()) padded_failing.push_back(c);
  }
  if (!strided_op) return std::nullopt;
  // A padded case whose failure is attributed to a mask check is not a stride bug, unless
  // its unpadded twin passed: then padding is what made the difference.
  std::vector<const NumericsCase*> explained, own, twin_passed;
  for (const NumericsCase* c : padded_failing) {
    const NumericsCase* twin = UnpaddedTwin(base, *c);
    const ReportAttribution* a = AttributionOf(ctx, c);
    const ReportAttribution* ta = twin != nullptr ? AttributionOf(ctx, twin) : nullptr;
    if (a != nullptr && (twin == nullptr || (ta != nullptr && ta->check_id == a->check_id))) {
      explained.push_back(c);
    } else {
      own.push_back(c);
      if (twin != nullptr && twin->passed()) twin_passed.push_back(c);
    }
  }
  if (!padded_failing.empty() && own.empty()) {
    return ExplainedElsewhere(
        ctx, def, "padded-stride cases", padded, padded_failing,
        "\"padded\": true to a case the mask bug does not touch (e.g. s_q = 1)");
  }
  if (!padded_failing.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        std::to_string(own.size()) + " padded-stride cases failed" +
                            (twin_passed.empty() ? ""
                                                 : " (" + std::to_string(twin_passed.size()) +
                                                       " whose unpadded twin passed)") +
                            (explained.empty() ? ""
                                               : "; " + std::to_string(explained.size()) +
                                                     " more attributed to other checks"));
    ListFailures(ctx, own, &c);
    return c;
  }
  if (padded.empty()) {
    return Missing(def,
                   "no case passed inputs with padded strides; add \"padded\": true to a case in "
                   "shapes.json",
                   ctx.numerics_cmd);
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      Plural(padded.size(), "padded-stride case", "padded-stride cases") +
                          " passed (e.g. " + padded.front()->id + ")");
  c.citations.push_back(Cite(n.file, padded.front()->id));
  return c;
}

std::optional<Check> JudgeOutputContract(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  const NumericsEvidence& n = *ctx.ev.numerics;
  std::vector<const NumericsCase*> contract_failing;
  int read_outputs = 0;
  for (const NumericsCase* c : BaseCases(n)) {
    if (IsContractFailure(*c)) contract_failing.push_back(c);
    read_outputs += !c->outputs.empty();
  }
  if (!contract_failing.empty()) {
    Check c = MakeCheck(def, CheckStatus::kFail,
                        Plural(contract_failing.size(), "case", "cases") +
                            " returned outputs that break the interface");
    for (size_t i = 0; i < contract_failing.size() && i < 5; ++i) {
      c.citations.push_back(Cite(n.file, contract_failing[i]->id));
      c.details.push_back(contract_failing[i]->id + ": " + contract_failing[i]->reason);
    }
    return c;
  }
  if (read_outputs == 0) {
    return Missing(def, "no case's outputs were read (every candidate run failed first)",
                   ctx.numerics_cmd);
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      "the outputs of " + Plural(read_outputs, "case", "cases") +
                          " had the expected names, shapes and dtypes");
  c.citations.push_back(Cite(n.file));
  return c;
}

std::optional<Check> JudgePathRecorded(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  const PathCounts p = CountPaths(ctx);
  if (p.ran == 0 || p.unrecorded > 0) {
    return Missing(def,
                   (p.ran == 0 ? std::string("no case reached the candidate's outputs")
                               : std::to_string(p.unrecorded) + " of " + std::to_string(p.ran) +
                                     " cases record no kernel path") +
                       "; the candidate should put \"kernel_path\" in its outputs' __metadata__ "
                       "(doc/formats/candidate-protocol.md)",
                   ctx.numerics_cmd);
  }
  Check c = MakeCheck(
      def, CheckStatus::kPass,
      "every one of " + Plural(p.ran, "case", "cases") + " records its path: " + p.List());
  c.citations.push_back(Cite(ctx.ev.numerics->file));
  return c;
}

std::optional<Check> JudgePathsExercised(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  const PathCounts p = CountPaths(ctx);
  if (p.paths.size() >= 2) {
    Check c = MakeCheck(def, CheckStatus::kPass,
                        std::to_string(p.paths.size()) + " paths exercised: " + p.List());
    c.citations.push_back(Cite(ctx.ev.numerics->file));
    return c;
  }
  if (p.paths.empty()) return Missing(def, "no kernel path recorded", ctx.numerics_cmd);
  const std::string only = "only path \"" + p.paths.begin()->first + "\" was exercised";
  // One path and a reviewed change that selects no path differently (no item-7 finding):
  // there is no old path this change could have cut off.
  if (ctx.ev.review && FindingsOf(ctx, def.item).empty()) {
    Check c = MakeCheck(def, CheckStatus::kNotApplicable,
                        only + ", and the reviewed change touches no path selection or "
                               "fallback (review.json has no item-7 finding)");
    c.citations.push_back(Cite(ctx.ev.numerics->file));
    c.citations.push_back(Cite(ctx.ev.review->file));
    return c;
  }
  return Missing(def,
                 only + (ctx.ev.review ? "; the change touches a fallback (" +
                                             FindingsOf(ctx, def.item).front().id + ")"
                                       : "; no evidence/review.json to show the change touches "
                                         "no fallback") +
                     "; add a shape or dtype that selects the fallback to shapes.json",
                 ctx.numerics_cmd);
}

std::optional<Check> JudgeFallbackKept(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.review) {
    if (const EvidenceBinding* b = BindingOf(ctx, "review"); b != nullptr && !b->used) {
      return Missing(def, AbsentNote(ctx, "review", b->file), ctx.review_cmd);
    }
    std::string why = StageNote(ctx, "review");
    return Missing(def,
                   "no evidence/review.json: the diff was not reviewed" +
                       (why.empty() ? "" : " (" + why + ")"),
                   ctx.review_cmd);
  }
  const std::vector<Finding> findings = FindingsOf(ctx, def.item);
  if (findings.empty()) {
    Check c = MakeCheck(def, CheckStatus::kPass,
                        "the reviewer found no fallback or legacy switch removed");
    c.citations.push_back(Cite(ctx.ev.review->file));
    return c;
  }
  const PathCounts p = CountPaths(ctx);
  if (p.paths.size() >= 2) {
    Check c = MakeCheck(def, CheckStatus::kPass,
                        "the diff touches a fallback (" + findings.front().id + "), and " +
                            std::to_string(p.paths.size()) + " paths still ran: " + p.List());
    c.citations.push_back(Cite(ctx.ev.review->file, findings.front().id));
    c.citations.push_back(Cite(ctx.ev.numerics->file));
    return c;
  }
  const Finding& f = findings.front();
  return Missing(def,
                 f.id + " (" + f.file + ":" + std::to_string(f.line) + ") " +
                     (f.title.empty() ? f.rule : f.title) +
                     "; no case shows the old path still selected (record kernel_path and add a "
                     "case that selects it)",
                 ctx.numerics_cmd);
}

}  // namespace av::checklist
