// Items 3-7 of the checklist: shared memory and registers (resources.json), GEMM tiles,
// split-k invariance, the attention interface and the fallback path (doc/report.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/format.h"
#include "report/checklist_internal.h"

namespace av::checklist {
std::vector<Check> ResourceChecks(const Context& ctx) {
  std::vector<Check> out;
  const char* build_title = "compile evidence (ptxas -v)";
  if (!ctx.ev.resources) {
    std::string why = StageNote(ctx, "build");
    out.push_back(
        Missing("3.build", build_title,
                "no evidence/resources.json in the package" + (why.empty() ? "" : ": " + why),
                ctx.build_cmd));
  } else if (ctx.ev.resources->status == "missing") {
    out.push_back(Missing("3.build", build_title,
                          "compile evidence missing: " + ctx.ev.resources->missing_reason +
                              " (run on a host with nvcc, or import a GPU box's log with --import)",
                          ctx.build_cmd));
  } else {
    const ResourcesEvidence& r = *ctx.ev.resources;
    for (const ResourcesGate& g : r.gates) {
      if (!g.enabled) continue;
      const std::string id = "3." + g.gate;
      if (g.skipped) {
        out.push_back(Missing(id, g.gate,
                              g.rule + (r.has_base() ? "" : " (no base build to compare with)"),
                              ctx.build_cmd));
        continue;
      }
      Check c = MakeCheck(id, g.gate, g.passed ? CheckStatus::kPass : CheckStatus::kFail, g.rule);
      c.citations.push_back(Cite(r.file));
      if (!g.passed) {
        c.details = g.failures;
        if (g.gate == "smem_within_cap") {
          for (const ResourcesKernelRow& k : r.kernels) {
            if (!k.head) continue;
            const ResourcesKernelSide& h = *k.head;
            if (h.ptxas_overflow) {
              c.details.push_back(k.kernel + " (" + k.arch +
                                  "): ptxas: uses too much shared data (" +
                                  std::to_string(h.overflow_bytes) + " bytes, " +
                                  std::to_string(h.overflow_max_bytes) + " max)");
              c.citations.push_back(Cite(r.file, k.kernel + " @ " + k.arch));
            } else if (h.smem_cap_bytes >= 0 && h.total_smem_bytes > h.smem_cap_bytes) {
              c.details.push_back(
                  k.kernel + " (" + k.arch + "): " + std::to_string(h.total_smem_bytes) +
                  " bytes of shared memory > cap " + std::to_string(h.smem_cap_bytes));
              c.citations.push_back(Cite(r.file, k.kernel + " @ " + k.arch));
            }
          }
        }
      }
      out.push_back(std::move(c));
    }
    if (r.gates.empty()) {
      out.push_back(Missing("3.build", build_title,
                            "evidence/resources.json holds no gate verdicts", ctx.build_cmd));
    }
  }
  Check bank = Missing(
      "3.bank_conflicts", "shared-memory bank conflicts",
      "not measured: bank conflicts need ncu on a GPU (attnverify profile is not implemented yet)",
      ctx.bank_conflicts_cmd);
  bank.required = false;
  out.push_back(std::move(bank));
  return out;
}

std::vector<Check> GemmChecks(const Context& ctx) {
  std::vector<Check> out;
  const char* title = "GEMM shapes off the 128 tile (boundary guards)";
  if (!ctx.ev.numerics) {
    out.push_back(NoNumerics(ctx, "4.unaligned_gemm", title));
  } else {
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
      Check c = MakeCheck("4.unaligned_gemm", title, CheckStatus::kFail,
                          std::to_string(failing.size()) + " of " +
                              Plural(gemm.size(), "GEMM case", "GEMM cases") + " failed");
      ListFailures(ctx, failing, &c);
      out.push_back(std::move(c));
    } else if (unaligned.empty()) {
      out.push_back(Missing(
          "4.unaligned_gemm", title,
          gemm.empty()
              ? "no gemm or fp8_gemm case in the sweep; add a sweep with op fp8_gemm and m, n, k "
                "not multiples of 128 (e.g. m 3, n 130, k 200) to shapes.json"
              : "every GEMM case is a multiple of 128 in m, n and k; add e.g. m 3, n 130, k 200",
          ctx.numerics_cmd));
    } else {
      Check c = MakeCheck("4.unaligned_gemm", title, CheckStatus::kPass,
                          Plural(unaligned.size(), "GEMM case", "GEMM cases") +
                              " off the 128 tile passed (e.g. " + unaligned.front()->id + ")");
      c.citations.push_back(Cite(ctx.ev.numerics->file, unaligned.front()->id));
      out.push_back(std::move(c));
    }
  }
  out.push_back(Missing(
      "4.perf", "time and throughput before and after, same shapes",
      ctx.ev.perf
          ? "evidence/perf.json is present but this version of attnverify does not read it yet"
          : "no evidence/perf.json: GPU timing needs a GPU host (attnverify profile is not "
            "implemented yet)",
      ctx.profile_cmd));
  return out;
}

std::vector<Check> SplitKChecks(const Context& ctx) {
  std::vector<Check> out;
  const char* title = "num_splits invariance at several sequence lengths";
  if (!ctx.ev.numerics) {
    out.push_back(NoNumerics(ctx, "5.num_splits", title));
    return out;
  }
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
    out.push_back(Missing("5.num_splits", title,
                          "no num_splits invariance in " + n.file.path + "; " + how,
                          ctx.numerics_cmd));
    return out;
  }
  if (!failed.empty()) {
    Check c = MakeCheck("5.num_splits", title, CheckStatus::kFail,
                        std::to_string(failed.size()) + " of " +
                            Plural(entries.size(), "group", "groups") +
                            " changed with num_splits beyond rounding");
    for (const InvarianceRecord* r : failed) {
      c.citations.push_back(Cite(n.file, r->group));
      std::string cases;
      for (const std::string& id : r->cases) cases += (cases.empty() ? "" : ", ") + id;
      c.details.push_back(r->group + ": max |diff| " + FormatG(r->max_abs_diff, 4) +
                          (r->tolerance.empty() ? "" : " > " + r->tolerance) +
                          (r->detail.empty() ? "" : ": " + r->detail) +
                          (cases.empty() ? "" : " [" + cases + "]"));
    }
    out.push_back(std::move(c));
    return out;
  }
  std::string list;
  for (int64_t s : lengths) list += (list.empty() ? "" : ", ") + std::to_string(s);
  if (lengths.size() < 2) {
    out.push_back(Missing(
        "5.num_splits", title,
        "num_splits invariance held at only " +
            (lengths.empty() ? std::string("an unknown sequence length") : "s_k = " + list) + "; " +
            how,
        ctx.numerics_cmd));
    return out;
  }
  Check c = MakeCheck("5.num_splits", title, CheckStatus::kPass,
                      "invariant in num_splits at s_k = " + list + " (" +
                          Plural(entries.size(), "group", "groups") + ")");
  for (const InvarianceRecord* r : entries) {
    c.citations.push_back(Cite(n.file, r->group));
    if (c.citations.size() >= 5) break;
  }
  out.push_back(std::move(c));
  return out;
}

std::vector<Check> InterfaceChecks(const Context& ctx) {
  std::vector<Check> out;
  if (!ctx.ev.numerics) {
    out.push_back(NoNumerics(ctx, "6.output_contract", "output names, shapes and dtypes"));
    return out;
  }
  const NumericsEvidence& n = *ctx.ev.numerics;
  std::vector<const NumericsCase*> base = BaseCases(n), padded, padded_failing, contract_failing;
  int read_outputs = 0;
  bool strided_op = false;
  for (const NumericsCase* c : base) {
    strided_op |= c->op == "attention" || c->op == "mla_decode" || c->op == "gemm";
    if (BoolParam(*c, "padded") && c->passed()) padded.push_back(c);
    if (BoolParam(*c, "padded") && c->failed()) padded_failing.push_back(c);
    const std::string& r = c->reason;
    bool contract = r.find(" has shape ") != std::string::npos ||
                    r.find(" has dtype ") != std::string::npos || r.rfind("no output", 0) == 0 ||
                    r.find("has no tensor") != std::string::npos;
    if (contract) contract_failing.push_back(c);
    read_outputs += !c->outputs.empty();
  }
  if (strided_op) {
    const char* title = "padded strides (rows longer than the data)";
    // A padded case whose failure is attributed to a mask check is not a stride bug,
    // unless its unpadded twin (same op, dtype and params) passed: then padding is what
    // made the difference.
    std::vector<const NumericsCase*> explained, own, twin_passed;
    for (const NumericsCase* c : padded_failing) {
      nlohmann::json key = *c->params;
      if (key.is_object()) key.erase("padded");
      const NumericsCase* twin = nullptr;
      for (const NumericsCase* t : base) {
        if (t == c || BoolParam(*t, "padded") || t->op != c->op || t->dtype != c->dtype) continue;
        nlohmann::json tk = *t->params;
        if (tk.is_object()) tk.erase("padded");
        if (tk == key) twin = t;
      }
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
      out.push_back(ExplainedElsewhere(
          ctx, "6.padded_strides", title, "padded-stride cases", padded, padded_failing,
          "\"padded\": true to a case the mask bug does not touch (e.g. s_q = 1)"));
    } else if (!padded_failing.empty()) {
      Check c = MakeCheck("6.padded_strides", title, CheckStatus::kFail,
                          std::to_string(own.size()) + " padded-stride cases failed" +
                              (twin_passed.empty() ? ""
                                                   : " (" + std::to_string(twin_passed.size()) +
                                                         " whose unpadded twin passed)") +
                              (explained.empty() ? ""
                                                 : "; " + std::to_string(explained.size()) +
                                                       " more attributed to other checks"));
      ListFailures(ctx, own, &c);
      out.push_back(std::move(c));
    } else if (padded.empty()) {
      out.push_back(Missing("6.padded_strides", title,
                            "no case passed inputs with padded strides; add \"padded\": true to a "
                            "case in shapes.json",
                            ctx.numerics_cmd));
    } else {
      Check c = MakeCheck("6.padded_strides", title, CheckStatus::kPass,
                          Plural(padded.size(), "padded-stride case", "padded-stride cases") +
                              " passed (e.g. " + padded.front()->id + ")");
      c.citations.push_back(Cite(n.file, padded.front()->id));
      out.push_back(std::move(c));
    }
  }
  const char* title = "output names, shapes and dtypes";
  if (!contract_failing.empty()) {
    Check c = MakeCheck("6.output_contract", title, CheckStatus::kFail,
                        Plural(contract_failing.size(), "case", "cases") +
                            " returned outputs that break the interface");
    for (size_t i = 0; i < contract_failing.size() && i < 5; ++i) {
      c.citations.push_back(Cite(n.file, contract_failing[i]->id));
      c.details.push_back(contract_failing[i]->id + ": " + contract_failing[i]->reason);
    }
    out.push_back(std::move(c));
  } else if (read_outputs == 0) {
    out.push_back(Missing("6.output_contract", title,
                          "no case's outputs were read (every candidate run failed first)",
                          ctx.numerics_cmd));
  } else {
    Check c = MakeCheck("6.output_contract", title, CheckStatus::kPass,
                        "the outputs of " + Plural(read_outputs, "case", "cases") +
                            " had the expected names, shapes and dtypes");
    c.citations.push_back(Cite(n.file));
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Check> FallbackChecks(const Context& ctx) {
  std::vector<Check> out;
  std::map<std::string, int> paths;
  int ran = 0, unrecorded = 0;
  const NumericsCase* example = nullptr;
  if (ctx.ev.numerics) {
    for (const NumericsCase& c : ctx.ev.numerics->cases) {
      if (c.outputs.empty() && c.candidate.metadata.empty())
        continue;  // the candidate never answered
      ++ran;
      std::string path;
      for (const char* key : {"kernel_path", "path", "kernel"}) {
        if (auto it = c.candidate.metadata.find(key);
            it != c.candidate.metadata.end() && !it->second.empty()) {
          path = it->second;
          break;
        }
      }
      if (path.empty())
        ++unrecorded;
      else
        ++paths[path], example = example ? example : &c;
    }
  }
  std::string path_list;
  for (const auto& [p, k] : paths)
    path_list += (path_list.empty() ? "" : ", ") + p + " x" + std::to_string(k);
  const char* recorded_title = "the chosen kernel path is recorded";
  if (!ctx.ev.numerics) {
    out.push_back(NoNumerics(ctx, "7.path_recorded", recorded_title));
  } else if (ran == 0 || unrecorded > 0) {
    out.push_back(
        Missing("7.path_recorded", recorded_title,
                (ran == 0 ? std::string("no case reached the candidate's outputs")
                          : std::to_string(unrecorded) + " of " + std::to_string(ran) +
                                " cases record no kernel path") +
                    "; the candidate should put \"kernel_path\" in its outputs' __metadata__ "
                    "(doc/formats/candidate-protocol.md)",
                ctx.numerics_cmd));
  } else {
    Check c = MakeCheck(
        "7.path_recorded", recorded_title, CheckStatus::kPass,
        "every one of " + Plural(ran, "case", "cases") + " records its path: " + path_list);
    c.citations.push_back(Cite(ctx.ev.numerics->file));
    out.push_back(std::move(c));
  }
  const char* exercised_title = "more than one path exercised (the old path can still be selected)";
  if (paths.size() >= 2) {
    Check c = MakeCheck("7.paths_exercised", exercised_title, CheckStatus::kPass,
                        std::to_string(paths.size()) + " paths exercised: " + path_list);
    c.citations.push_back(Cite(ctx.ev.numerics->file));
    out.push_back(std::move(c));
  } else if (ctx.ev.numerics) {
    out.push_back(Missing(
        "7.paths_exercised", exercised_title,
        paths.empty() ? "no kernel path recorded"
                      : "only path \"" + paths.begin()->first +
                            "\" was exercised; add a shape or dtype that selects the fallback to "
                            "shapes.json",
        ctx.numerics_cmd));
  } else {
    out.push_back(NoNumerics(ctx, "7.paths_exercised", exercised_title));
  }
  const char* kept_title = "no fallback removed without evidence";
  std::vector<Finding> findings = FindingsOf(ctx, 7);
  if (!ctx.ev.review) {
    std::string why = StageNote(ctx, "review");
    out.push_back(Missing("7.fallback_kept", kept_title,
                          "no evidence/review.json: the diff was not reviewed" +
                              (why.empty() ? "" : " (" + why + ")"),
                          ctx.review_cmd));
  } else if (findings.empty()) {
    Check c = MakeCheck("7.fallback_kept", kept_title, CheckStatus::kPass,
                        "the reviewer found no fallback or legacy switch removed");
    c.citations.push_back(Cite(ctx.ev.review->file));
    out.push_back(std::move(c));
  } else if (paths.size() >= 2) {
    Check c = MakeCheck("7.fallback_kept", kept_title, CheckStatus::kPass,
                        "the diff touches a fallback (" + findings.front().id + "), and " +
                            std::to_string(paths.size()) + " paths still ran: " + path_list);
    c.citations.push_back(Cite(ctx.ev.review->file, findings.front().id));
    c.citations.push_back(Cite(ctx.ev.numerics->file));
    out.push_back(std::move(c));
  } else {
    const Finding& f = findings.front();
    out.push_back(Missing(
        "7.fallback_kept", kept_title,
        f.id + " (" + f.file + ":" + std::to_string(f.line) + ") " +
            (f.title.empty() ? f.rule : f.title) +
            "; no case shows the old path still selected (record kernel_path and add a case that "
            "selects it)",
        ctx.numerics_cmd));
  }
  (void)example;
  return out;
}

}  // namespace av::checklist
