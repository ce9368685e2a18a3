// Items 1 (numerical correctness) and 2 (masks and boundaries) of the checklist, from
// evidence/numerics.json (doc/report.md has the table). A PASS or FAIL cites the file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/format.h"
#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

bool IsLowPrecision(const std::string& dtype) {
  return dtype == "f16" || dtype == "bf16" || dtype == "f8_e4m3fn" || dtype == "f8_e5m2";
}

// ---- item 2: mask and boundary categories ----
struct Category {
  const char* id;
  const char* title;
  const char* how;  // what to add to shapes.json
  std::set<std::string> ops;
  bool (*match)(const NumericsCase&);
  const char* cases;  // its cases, in a note elsewhere: "causal s_q > 1 cases"
  // Localisation hint phrases (src/numerics/localise.cc) that point at this category.
  std::vector<const char*> hints;
};

bool OnBlockEdge(int64_t s) { return s >= 63 && (s % 64 == 63 || s % 64 == 1); }

const std::vector<Category>& Categories() {
  static const std::vector<Category> kCategories = {
      {"causal",
       "causal mask",
       "\"causal\": [false, true]",
       {"attention"},
       [](const NumericsCase& c) { return BoolParam(c, "causal"); },
       "causal cases",
       {}},
      {"causal_alignment",
       "causal with s_q > 1 and s_q != s_k (bottom-right alignment)",
       "a causal case with 1 < s_q != s_k, e.g. {\"causal\": true, \"s_q\": 5, \"s_k\": 33}",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) {
         int64_t sq = IntParam(c, "s_q").value_or(1), sk = IntParam(c, "s_k").value_or(0);
         return BoolParam(c, "causal") && sq > 1 && sq != sk;
       },
       "causal s_q > 1 cases",
       {"causal mask is misaligned", "not bottom-right"}},
      {"window",
       "sliding window",
       "\"window_left\": [-1, 16] (or window_right >= 0)",
       {"attention"},
       [](const NumericsCase& c) {
         return IntParam(c, "window_left").value_or(-1) >= 0 ||
                IntParam(c, "window_right").value_or(-1) >= 0;
       },
       "sliding-window cases",
       {"window edge", "window is clipped", "right window edge"}},
      {"varlen",
       "variable-length batches (layout varlen)",
       "\"layout\": \"varlen\"",
       {"attention"},
       [](const NumericsCase& c) { return StrParam(c, "layout") == "varlen"; },
       "varlen cases",
       {}},
      {"padding",
       "key padding (lengths shorter than s_k)",
       "\"lengths\": \"random\" (or \"edges\", \"half_empty\")",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) {
         std::string l = StrParam(c, "lengths");
         return !l.empty() && l != "full";
       },
       "key-padding cases",
       {"empty sequences (s_k = 0)"}},
      {"paged",
       "paged KV cache (layout paged)",
       "\"layout\": \"paged\"",
       {"attention"},
       [](const NumericsCase& c) { return StrParam(c, "layout") == "paged"; },
       "paged cases",
       {}},
      {"partial_block",
       "s_k not a multiple of the 64-key block",
       "an s_k that is not a multiple of 64, e.g. 70",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) { return IntParam(c, "s_k").value_or(0) % 64 != 0; },
       "partial-block cases",
       {"key length is not a multiple of 64", "ends a partial 64-key tile"}},
      {"block_edges",
       "s_k one key either side of a block edge (64m-1, 64m+1)",
       "\"s_k\": [63, 65, 127, 129] or \"lengths\": \"edges\"",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) {
         return OnBlockEdge(IntParam(c, "s_k").value_or(0)) || StrParam(c, "lengths") == "edges";
       },
       "block-edge cases",
       {}},
      {"invalid_indices",
       "sparse indices out of range or -1",
       "\"indices\": [\"random\", \"mixed\"]",
       {"sparse_attention"},
       [](const NumericsCase& c) {
         std::string i = StrParam(c, "indices");
         return i == "mixed" || i == "all_invalid";
       },
       "invalid-index cases",
       {}},
  };
  return kCategories;
}

bool Judged(const NumericsCase& c) { return c.passed() || c.failed(); }

bool InCategory(const Category& cat, const NumericsCase& c) {
  return cat.ops.count(c.op) && cat.match(c);
}

bool HintPointsAt(const Category& cat, const NumericsCase& c) {
  for (const std::string& h : c.hints) {
    for (const char* phrase : cat.hints) {
      if (h.find(phrase) != std::string::npos) return true;
    }
  }
  return false;
}

}  // namespace

// Attribution (doc/report.md): a failing base case is explained by a mask category that
// holds it and either fails on every one of its cases or is named by the case's hints.
// Among several: hinted and fully failing first, then hinted, then fully failing; ties go
// to the category with more failing cases (fewest explanations for all failures), then
// the smaller one, then the later (narrower) row of the table (causal_alignment over causal).
std::map<const NumericsCase*, ReportAttribution> AttributeFailures(const NumericsEvidence& n) {
  std::map<const NumericsCase*, ReportAttribution> out;
  std::vector<const NumericsCase*> base = BaseCases(n);
  const std::vector<Category>& cats = Categories();
  std::vector<size_t> total(cats.size(), 0), failed(cats.size(), 0);
  for (size_t k = 0; k < cats.size(); ++k) {
    for (const NumericsCase* c : base) {
      if (!Judged(*c) || !InCategory(cats[k], *c)) continue;
      ++total[k];
      failed[k] += c->failed();
    }
  }
  for (const NumericsCase* c : base) {
    if (!c->failed()) continue;
    int best = -1;
    std::tuple<bool, bool, size_t, int64_t, size_t> best_rank{false, false, 0, 0, 0};
    for (size_t k = 0; k < cats.size(); ++k) {
      if (!InCategory(cats[k], *c)) continue;
      const bool full = failed[k] == total[k];
      const bool hinted = HintPointsAt(cats[k], *c);
      if (!full && !hinted) continue;
      std::tuple<bool, bool, size_t, int64_t, size_t> rank{hinted, full, failed[k],
                                                           -static_cast<int64_t>(total[k]), k};
      if (best < 0 || rank > best_rank) best = static_cast<int>(k), best_rank = rank;
    }
    if (best < 0) continue;
    const Category& cat = cats[static_cast<size_t>(best)];
    const size_t k = static_cast<size_t>(best);
    std::string why;
    if (failed[k] == total[k])
      why = "every one of its " + Plural(total[k], "case", "cases") + " fails";
    if (HintPointsAt(cat, *c))
      why += std::string(why.empty() ? "" : "; ") + "the case's localisation hint names it";
    out[c] = {std::string("2.") + cat.id, cat.cases, why};
  }
  return out;
}

std::vector<Check> NumericsChecks(const Context& ctx) {
  std::vector<Check> out;
  if (!ctx.ev.numerics) {
    out.push_back(NoNumerics(ctx, "1.base_cases", "every base case within tolerance"));
    return out;
  }
  const NumericsEvidence& n = *ctx.ev.numerics;
  std::vector<const NumericsCase*> base = BaseCases(n), failing, unjudged;
  for (const NumericsCase* c : base) {
    if (c->failed())
      failing.push_back(c);
    else if (!c->passed())
      unjudged.push_back(c);
  }
  if (base.empty()) {
    out.push_back(Missing("1.base_cases", "every base case within tolerance",
                          n.file.path + " holds no cases", ctx.numerics_cmd));
    return out;
  }
  std::map<std::string, std::pair<int, int>> by_op, by_dtype;  // passed, total
  bool softmax_op = false;
  for (const NumericsCase* c : base) {
    softmax_op |= IsSoftmaxOp(c->op);
    if (!c->passed() && !c->failed()) continue;
    by_op[c->op].first += c->passed(), ++by_op[c->op].second;
    by_dtype[c->dtype].first += c->passed(), ++by_dtype[c->dtype].second;
  }
  auto counts = [](const std::map<std::string, std::pair<int, int>>& m) {
    std::string s;
    for (const auto& [k, v] : m)
      s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v.first) + "/" +
           std::to_string(v.second);
    return s;
  };
  {
    Check c = MakeCheck("1.base_cases", "every base case within tolerance", CheckStatus::kPass, "");
    if (failing.empty() && !unjudged.empty()) {
      c = Missing("1.base_cases", "every base case within tolerance",
                  std::to_string(unjudged.size()) + " of " +
                      Plural(base.size(), "base case", "base cases") + " could not be judged (" +
                      unjudged.front()->id + ": " + CaseVerdictName(unjudged.front()->verdict) +
                      ": " + unjudged.front()->reason + ")",
                  ctx.numerics_cmd);
    } else if (failing.empty()) {
      c.summary = "all " + Plural(base.size(), "base case", "base cases") + " passed (" +
                  counts(by_op) + ")";
      c.citations.push_back(Cite(n.file));
    } else {
      std::vector<const NumericsCase*> sorted = failing;
      SortWorstFirst(&sorted);
      c.status = CheckStatus::kFail;
      std::map<std::string, size_t> by_check;
      for (const NumericsCase* f : failing) {
        if (const ReportAttribution* a = AttributionOf(ctx, f)) ++by_check[a->check_id];
      }
      std::string attributed;
      if (by_check.size() == 1 && by_check.begin()->second == failing.size()) {
        attributed = failing.size() == 1 ? ", attributed to " + by_check.begin()->first
                                         : ", all attributed to " + by_check.begin()->first;
      } else if (!by_check.empty()) {
        for (const auto& [id, k] : by_check)
          attributed +=
              (attributed.empty() ? " (" : ", ") + std::to_string(k) + " attributed to " + id;
        attributed += ")";
      }
      c.summary = std::to_string(failing.size()) + " of " +
                  Plural(base.size(), "base case", "base cases") + " failed" + attributed +
                  "; worst: " + sorted.front()->id;
      AddFailures(ctx, failing, 3, &c);
    }
    out.push_back(std::move(c));
  }
  {
    Check c = MakeCheck("1.dtypes", "FP16/BF16/FP8 coverage", CheckStatus::kPass,
                        "passed per dtype: " + counts(by_dtype));
    bool low = std::any_of(by_dtype.begin(), by_dtype.end(),
                           [](const auto& d) { return IsLowPrecision(d.first); });
    std::string failed;
    std::set<std::string> failed_dtypes;
    std::vector<const NumericsCase*> dtype_failing, dtype_passing;
    for (const auto& [d, v] : by_dtype) {
      if (v.first < v.second) failed += (failed.empty() ? "" : ", ") + d, failed_dtypes.insert(d);
    }
    for (const NumericsCase* b : base) {
      if (!failed_dtypes.count(b->dtype)) continue;
      if (b->failed())
        dtype_failing.push_back(b);
      else if (b->passed())
        dtype_passing.push_back(b);
    }
    if (!failed.empty() && !dtype_passing.empty() &&
        AttributedElsewhere(ctx, "1.dtypes", dtype_failing).size() == dtype_failing.size()) {
      // Every failure is explained by a mask bug: the dtype itself is not what fails.
      c = ExplainedElsewhere(ctx, "1.dtypes", "FP16/BF16/FP8 coverage", failed + " cases",
                             dtype_passing, dtype_failing, "");
      c.summary += " (passed per dtype: " + counts(by_dtype) + ")";
    } else if (!failed.empty()) {
      c.status = CheckStatus::kFail;
      c.summary = "failures in " + failed + " (passed per dtype: " + counts(by_dtype) + ")";
      c.citations.push_back(Cite(n.file));
    } else if (!low) {
      c = Missing("1.dtypes", "FP16/BF16/FP8 coverage",
                  "no case in f16, bf16 or fp8 (only " + counts(by_dtype) +
                      "); add \"dtypes\": [\"bf16\", \"f16\"] to a sweep in shapes.json",
                  ctx.numerics_cmd);
    } else {
      c.citations.push_back(Cite(n.file));
    }
    out.push_back(std::move(c));
  }
  if (softmax_op) {
    std::vector<const NumericsCase*> stress, stress_failing;
    for (const NumericsCase* c : base) {
      if (IsSoftmaxOp(c->op) && StrParam(*c, "generator") == "large_logits") {
        stress.push_back(c);
        if (c->failed()) stress_failing.push_back(c);
      }
    }
    const char* title = "softmax stability (large logits)";
    if (stress.empty()) {
      out.push_back(Missing(
          "1.softmax_stability", title,
          "no attention case used generator large_logits (scores ~100: exp overflows without max "
          "subtraction); add \"generators\": [\"randn\", \"large_logits\"] to shapes.json",
          ctx.numerics_cmd));
    } else if (!stress_failing.empty()) {
      Check c = MakeCheck("1.softmax_stability", title, CheckStatus::kFail,
                          std::to_string(stress_failing.size()) + " of " +
                              std::to_string(stress.size()) + " large-logit cases failed");
      AddFailures(ctx, stress_failing, 3, &c);
      out.push_back(std::move(c));
    } else {
      Check c =
          MakeCheck("1.softmax_stability", title, CheckStatus::kPass,
                    Plural(stress.size(), "large-logit case", "large-logit cases") + " passed");
      c.citations.push_back(Cite(n.file, stress.front()->id));
      out.push_back(std::move(c));
    }
  }
  {
    std::vector<const InvarianceRecord*> inv;
    for (const InvarianceRecord& r : n.invariance) {
      if (r.check != "num_splits") inv.push_back(&r);
    }
    Check c;
    const char* title = "determinism and accumulation order (reruns, permutations, seeds)";
    if (inv.empty()) {
      c = Missing(
          "1.invariance", title,
          "no rerun, permutation or seed invariance in " + n.file.path +
              "; add \"invariance\": {\"reruns\": 1, \"batch_permutation\": true} to a sweep",
          ctx.numerics_cmd);
      c.required = false;
    } else {
      std::vector<const InvarianceRecord*> failed;
      std::set<std::string> kinds;
      for (const InvarianceRecord* r : inv) {
        kinds.insert(r->check);
        if (r->verdict == InvarianceVerdict::kFail) failed.push_back(r);
      }
      std::string kind_list;
      for (const std::string& k : kinds) kind_list += (kind_list.empty() ? "" : ", ") + k;
      c = MakeCheck("1.invariance", title, failed.empty() ? CheckStatus::kPass : CheckStatus::kFail,
                    failed.empty()
                        ? Plural(inv.size(), "group", "groups") + " invariant (" + kind_list + ")"
                        : std::to_string(failed.size()) + " of " +
                              Plural(inv.size(), "group", "groups") + " changed beyond rounding");
      c.required = false;
      for (const InvarianceRecord* r : failed.empty() ? inv : failed) {
        c.citations.push_back(Cite(n.file, r->group));
        if (r->verdict != InvarianceVerdict::kPass) {
          c.details.push_back(r->check + " " + r->group + ": " + InvarianceVerdictName(r->verdict) +
                              ", max |diff| " + FormatG(r->max_abs_diff, 4) +
                              (r->tolerance.empty() ? "" : " (tolerance " + r->tolerance + ")") +
                              (r->detail.empty() ? "" : ": " + r->detail));
        }
        if (c.citations.size() >= 5) break;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Check> MaskChecks(const Context& ctx, std::vector<CoverageCell>* coverage) {
  std::vector<Check> out;
  if (!ctx.ev.numerics) {
    out.push_back(NoNumerics(ctx, "2.coverage", "mask and boundary coverage"));
    return out;
  }
  const NumericsEvidence& n = *ctx.ev.numerics;
  std::vector<const NumericsCase*> base = BaseCases(n);
  std::set<std::string> ops;
  for (const NumericsCase* c : base) ops.insert(c->op);
  for (const Category& cat : Categories()) {
    std::vector<std::string> applicable;
    for (const std::string& op : cat.ops) {
      if (ops.count(op)) applicable.push_back(op);
    }
    if (applicable.empty()) continue;
    std::vector<const NumericsCase*> passing, failing;
    for (const NumericsCase* c : base) {
      if (!cat.ops.count(c->op) || !cat.match(*c)) continue;
      if (c->passed())
        passing.push_back(c);
      else if (c->failed())
        failing.push_back(c);
    }
    for (const std::string& op : applicable) {
      CoverageCell cell{op, cat.id, 0, 0};
      for (const NumericsCase* c : passing) cell.passed += c->op == op;
      for (const NumericsCase* c : failing) cell.failed += c->op == op;
      coverage->push_back(cell);
    }
    std::string op_list;
    for (const std::string& op : applicable) op_list += (op_list.empty() ? "" : ", ") + op;
    const std::string id = std::string("2.") + cat.id;
    std::vector<const NumericsCase*> elsewhere = AttributedElsewhere(ctx, id, failing), own;
    for (const NumericsCase* c : failing) {
      if (std::find(elsewhere.begin(), elsewhere.end(), c) == elsewhere.end()) own.push_back(c);
    }
    if (!failing.empty() && own.empty()) {
      std::string noun = cat.cases;
      out.push_back(ExplainedElsewhere(ctx, id, cat.title, noun, passing, failing, cat.how));
    } else if (!failing.empty()) {
      // The item table shows "title: summary": the summary does not repeat the title.
      Check c =
          MakeCheck(id, cat.title, CheckStatus::kFail,
                    passing.empty()
                        ? "all " + Plural(failing.size(), "case", "cases") + " failed"
                        : std::to_string(failing.size()) + " of " +
                              Plural(failing.size() + passing.size(), "case", "cases") + " failed");
      if (!elsewhere.empty()) {
        c.summary += "; " + std::to_string(elsewhere.size()) +
                     " of them attributed to other checks, " + std::to_string(own.size()) + " not";
      }
      ListFailures(ctx, own, &c);
      out.push_back(std::move(c));
    } else if (passing.empty()) {
      out.push_back(Missing(id, cat.title,
                            "no case exercised " + std::string(cat.title) + " (" + op_list +
                                "), however many others passed; add " + cat.how + " to shapes.json",
                            ctx.numerics_cmd));
    } else {
      Check c = MakeCheck(id, cat.title, CheckStatus::kPass,
                          Plural(passing.size(), "case", "cases") +
                              " exercised it, all passed (e.g. " + passing.front()->id + ")");
      c.citations.push_back(Cite(n.file, passing.front()->id));
      out.push_back(std::move(c));
    }
  }
  // Coverage per dtype, for the HTML grid (item 1 judges it).
  std::map<std::pair<std::string, std::string>, CoverageCell> dtypes;
  for (const NumericsCase* c : base) {
    CoverageCell& cell = dtypes[{c->op, c->dtype}];
    cell.op = c->op;
    cell.category = "dtype " + c->dtype;
    cell.passed += c->passed();
    cell.failed += c->failed();
  }
  for (const auto& [key, cell] : dtypes) coverage->push_back(cell);
  if (out.empty()) {
    out.push_back(Missing("2.coverage", "mask and boundary coverage",
                          "no attention, mla_decode or sparse_attention case in " + n.file.path,
                          ctx.numerics_cmd));
  }
  return out;
}

}  // namespace av::checklist
