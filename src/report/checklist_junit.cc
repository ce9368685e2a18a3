// 1.junit_agrees: pytest's JUnit XML (the pytest_attnverify plugin's attnverify_case and
// attnverify_verdict properties) held against numerics.json, case by case. The JUnit file
// is a second account of the same run, never evidence on its own: it cannot pass or fail a
// case (item 1's other checks judge numerics.json alone). A case whose JUnit verdict
// differs from numerics.json's, or that numerics.json does not hold, makes this check
// MISSING (the two files are not of one run), so the verdict is at most incomplete.
#include <map>

#include "report/checklist_internal.h"

namespace av::checklist {

std::optional<Check> JudgeJUnitAgrees(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.junit) return std::nullopt;
  const JUnitEvidence& j = *ctx.ev.junit;
  const std::string rerun =
      "python3 -m pytest --junitxml " + j.file.path +
      " --shapes config/shapes.json --tolerances config/tolerances.json ... (one session writes "
      "both files)";
  size_t recorded = 0;
  for (const JUnitCase& c : j.cases) recorded += !c.av_case.empty();
  if (recorded == 0) {
    return Missing(def,
                   j.file.path + ": no <testcase> records attnverify_case (" +
                       Plural(j.cases.size(), "testcase", "testcases") +
                       "): was the pytest_attnverify plugin loaded, and did the tests call "
                       "av_case.check()?",
                   rerun);
  }
  if (!ctx.ev.numerics) {
    return Missing(def,
                   j.file.path + " names " +
                       Plural(recorded, "attnverify case", "attnverify cases") + " but " +
                       AbsentNote(ctx, "numerics", ctx.cfg.numerics_evidence) +
                       ": the JUnit verdicts are not evidence by themselves",
                   rerun);
  }
  std::map<std::string, const NumericsCase*> by_id;
  for (const NumericsCase& c : ctx.ev.numerics->cases) by_id[c.id] = &c;
  std::vector<std::string> disagree;
  Check c;
  for (const JUnitCase& t : j.cases) {
    if (t.av_case.empty()) continue;
    auto it = by_id.find(t.av_case);
    const std::string where = j.file.path + ":" + std::to_string(t.line) + " " + t.name;
    if (it == by_id.end()) {
      disagree.push_back(where + ": case " + t.av_case + " is not in " +
                         ctx.ev.numerics->file.path);
      continue;
    }
    const std::string numerics_verdict = CaseVerdictName(it->second->verdict);
    if (t.av_verdict != numerics_verdict) {
      disagree.push_back(where + ": JUnit says " +
                         (t.av_verdict.empty() ? std::string("(no verdict)") : t.av_verdict) +
                         (t.av_reason.empty() ? "" : " (" + t.av_reason + ")") + ", " +
                         ctx.ev.numerics->file.path + " says " + numerics_verdict + " for " +
                         t.av_case);
    }
  }
  if (!disagree.empty()) {
    c = Missing(def,
                Plural(disagree.size(), "JUnit case disagrees", "JUnit cases disagree") + " with " +
                    ctx.ev.numerics->file.path +
                    " (the files are not of one run); numerics.json alone judges the cases",
                rerun);
    for (size_t i = 0; i < disagree.size() && i < 8; ++i) c.details.push_back(disagree[i]);
    if (disagree.size() > 8)
      c.details.push_back("... and " + std::to_string(disagree.size() - 8) + " more");
  } else {
    c = MakeCheck(def, CheckStatus::kPass,
                  "every one of the " + Plural(recorded, "JUnit case", "JUnit cases") + " in " +
                      j.file.path + " has the verdict " + ctx.ev.numerics->file.path + " records");
  }
  c.citations.push_back(Cite(j.file));
  c.citations.push_back(Cite(ctx.ev.numerics->file));
  return c;
}

}  // namespace av::checklist
