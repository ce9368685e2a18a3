// Item 8 (evidence) of the checklist: the cited files still match, the diff was reviewed,
// every finding is verifiable, and every conclusion of items 1-7 cites evidence. Judged
// after items 1-7 (ctx.files and ctx.uncited are set by then).
#include <set>

#include "report/checklist_internal.h"

namespace av::checklist {

std::optional<Check> JudgeFiles(const Context& ctx, const CheckDef& def) {
  if (ctx.files.empty()) {
    return Missing(def, "the package holds no evidence files", ctx.numerics_cmd);
  }
  std::vector<std::string> bad;
  for (const ReferencedFile& r : ctx.ev.referenced) {
    if (!r.exists) {
      bad.push_back(r.path + " (cited by " + r.cited_by + ") does not exist");
    } else if (!r.expected_sha256.empty() && r.expected_sha256 != r.actual_sha256) {
      bad.push_back(r.path + " (cited by " + r.cited_by + ") has sha256 " +
                    r.actual_sha256.substr(0, 12) + ", the evidence recorded " +
                    r.expected_sha256.substr(0, 12));
    }
  }
  Check c = MakeCheck(
      def, bad.empty() ? CheckStatus::kPass : CheckStatus::kFail,
      bad.empty()
          ? std::to_string(ctx.files.size()) + " evidence files read; " +
                std::to_string(ctx.ev.referenced.size()) + " files they cite exist and match"
          : std::to_string(bad.size()) +
                " cited files are missing or changed since the evidence was written");
  c.details = bad;
  for (const EvidenceFile& f : ctx.files) c.citations.push_back(Cite(f));
  return c;
}

std::optional<Check> JudgeEvidenceBound(const Context& ctx, const CheckDef& def) {
  if (ctx.bindings.empty()) return std::nullopt;  // no evidence file: 8.files says so
  std::vector<std::string> refused, used;
  std::set<std::string> heads;
  for (const EvidenceBinding& b : ctx.bindings) {
    if (!b.used) {
      refused.push_back(b.file + ": " + b.refused);
      continue;
    }
    used.push_back(b.file + " (" + b.stage + ", run " + b.run_id + ")");
    if (!b.head_commit.empty()) heads.insert(b.head_commit);
  }
  // The ledger's seal (schema/run_seal.h; absent in evidence built in memory). A broken
  // one refused every file above; one this machine cannot authenticate (no seal, another
  // key, another package's ledger) leaves the binding unproven even where each file
  // matched this package's config: the ledger itself could have been edited.
  const std::optional<RunTrust>& trust = ctx.ev.run ? ctx.ev.run->trust : std::nullopt;
  const std::string unproven = trust && trust->seal == SealState::kUnauthenticated
                                   ? "evidence/run.json cannot be authenticated: " + trust->note
                                   : "";
  if (!refused.empty()) {
    Check c = Missing(def,
                      std::to_string(refused.size()) + " of " +
                          Plural(ctx.bindings.size(), "evidence file is", "evidence files are") +
                          " not used (stale, changed, or not bound to a run); their checks are "
                          "MISSING",
                      ctx.run_cmd);
    c.details = refused;
    if (!unproven.empty()) c.details.push_back(unproven);
    return c;
  }
  if (!unproven.empty()) {
    Check c = Missing(def, unproven + " (each file's provenance matches " + trust->config + ")",
                      ctx.run_cmd);
    c.details = used;
    return c;
  }
  if (heads.size() > 1) {
    std::vector<std::string> at;
    for (const EvidenceBinding& b : ctx.bindings) {
      if (!b.head_commit.empty()) at.push_back(b.file + " at " + b.head_commit.substr(0, 12));
    }
    return Missing(def, "the evidence judged different head commits: " + JoinList(at), ctx.run_cmd);
  }
  Check c =
      MakeCheck(def, CheckStatus::kPass,
                "each is its stage's output in evidence/run.json" +
                    (trust ? " (" + trust->note + ")" : std::string()) + ": " + JoinList(used));
  for (const EvidenceFile& f : ctx.files) {
    if (f.path == "evidence/run.json") c.citations.push_back(Cite(f));
  }
  return c;
}

std::vector<std::string> ContainmentNotes(const Context& ctx) {
  std::vector<std::string> notes;
  if (!ctx.ev.numerics || !ctx.ev.numerics->containment) return notes;
  const ContainmentRecord& c = *ctx.ev.numerics->containment;
  const std::string& file = ctx.ev.numerics->file.path;
  if (c.sandbox == "none") {
    notes.push_back("containment: the candidate ran without a sandbox (" + file +
                    " $.containment.sandbox): nothing kept it out of $HOME, PATH or /tmp; only "
                    "changes to the package were checked");
  }
  if (c.leftover_processes > 0) {
    notes.push_back("containment: the candidate left " +
                    Plural(static_cast<size_t>(c.leftover_processes), "process", "processes") +
                    " running when it ended (all killed before its outputs were read; " + file +
                    " $.containment.leftover_processes)");
  }
  size_t timeouts = 0;
  for (const NumericsCase& k : ctx.ev.numerics->cases) {
    if (k.reason.rfind("candidate timed out", 0) == 0) ++timeouts;
  }
  if (timeouts > 0) {
    notes.push_back("containment: the candidate ran past its timeout on " +
                    Plural(timeouts, "case", "cases") + " (killed)");
  }
  if (!c.package_changes.empty()) {
    notes.push_back("containment: the candidate changed package files it may not write: " +
                    JoinList(c.package_changes));
  }
  for (const std::string& w : c.warnings) notes.push_back("containment: " + w);
  return notes;
}

std::optional<Check> JudgeReviewed(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.review) {
    return Missing(def, AbsentNote(ctx, "review", "evidence/review.json"), ctx.review_cmd);
  }
  const ReviewEvidence& r = *ctx.ev.review;
  Check c = MakeCheck(def, CheckStatus::kPass,
                      "reviewer " + (r.reviewer.empty() ? std::string("?") : r.reviewer) +
                          " over " + std::to_string(r.diffs.size()) +
                          " diffs: " + std::to_string(r.findings.size()) + " findings");
  c.citations.push_back(Cite(r.file));
  return c;
}

std::optional<Check> JudgeFindingsVerifiable(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.review) return std::nullopt;
  const ReviewEvidence& r = *ctx.ev.review;
  std::vector<std::string> unverifiable;
  for (const Finding& f : r.findings) {
    if (!f.has_verify())
      unverifiable.push_back(f.id + " (" + f.rule + ", " + f.file + ":" + std::to_string(f.line) +
                             ")");
  }
  Check c =
      MakeCheck(def, unverifiable.empty() ? CheckStatus::kPass : CheckStatus::kFail,
                unverifiable.empty()
                    ? "all " + std::to_string(r.findings.size()) + " findings name a verify command"
                    : std::to_string(unverifiable.size()) +
                          (unverifiable.size() == 1 ? " finding names" : " findings name") +
                          " no verify command");
  c.details = unverifiable;
  c.citations.push_back(Cite(r.file));
  return c;
}

std::optional<Check> JudgeConclusionsCited(const Context& ctx, const CheckDef& def) {
  if (ctx.files.empty()) return Missing(def, "no evidence to cite", ctx.numerics_cmd);
  if (!ctx.uncited.empty()) {
    return Missing(def, "left out as uncited: " + JoinList(ctx.uncited), ctx.numerics_cmd);
  }
  Check c =
      MakeCheck(def, CheckStatus::kPass,
                "every PASS and FAIL above cites a file, its sha256 and the command that wrote it");
  for (const EvidenceFile& f : ctx.files) c.citations.push_back(Cite(f));
  return c;
}

}  // namespace av::checklist
