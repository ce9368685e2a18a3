// attnverify compare CAND REF: decide "close enough?" under one anchor's rule and say
// where the differences are. Exit 0 pass, 1 fail, 2 bad input.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/parse.h"
#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "numerics/compare.h"
#include "numerics/compare_writer.h"
#include "schema/provenance.h"
#include "tensor/tensor_file.h"

namespace av::cli {
namespace {

constexpr const char* kCompareHelp =
    "Compare a candidate tensor with a reference.\n"
    "Tensors: FILE.npy, FILE.safetensors:NAME, FILE.npz:NAME (NAME may be omitted when the\n"
    "file holds one tensor).\n"
    "Rules (defaults in brackets):\n"
    "  allclose          torch.testing.assert_close: |a-r| <= atol + rtol*|r|\n"
    "                    [torch's per-dtype atol/rtol; fp8 and integers exact]\n"
    "  flashmla          FlashMLA: NaN/inf positions equal; abs < atol or rel < rtol;\n"
    "                    |cos_diff| <= cos  [atol 1e-5, rtol 1e-2, cos 1e-7;\n"
    "                    its decode tests use 8e-4, 2.01/128, 5e-6]\n"
    "  cos_diff          DeepGEMM: 1 - 2*sum(a*r)/sum(a*a + r*r) < cos  [1e-3]\n"
    "  lowprec_multiple  flash-attention: max|a-r| <= k*max|lowprec-r| + atol  [k 2, atol 0]\n"
    "  exact             bitwise equal (same dtype)\n"
    "NaN/inf positions must match under every rule unless --allow-nan.";

}  // namespace

int RunCompare(std::vector<std::string> args) {
  CLI::App app(kCompareHelp, "attnverify compare");
  std::string cand_spec, ref_spec, lowprec_spec, rule_name, json_path;
  RuleRequest request;
  double atol = 0, rtol = 0, cos = 0, k = 0, row_rel_l2 = 0;
  app.add_option("CAND", cand_spec, "candidate tensor (the kernel's output)")->required();
  app.add_option("REF", ref_spec, "reference tensor")->required();
  app.add_option("--lowprec-ref", lowprec_spec,
                 "low-precision reference (same op in the input dtype); implies "
                 "--rule lowprec_multiple");
  app.add_option("--rule", rule_name, "allclose | flashmla | cos_diff | lowprec_multiple | exact");
  auto* atol_opt = app.add_option("--atol", atol, "absolute tolerance");
  auto* rtol_opt = app.add_option("--rtol", rtol, "relative tolerance");
  auto* cos_opt = app.add_option("--cos", cos, "cos_diff bound");
  auto* k_opt = app.add_option("--k", k, "lowprec_multiple: multiple of the low-precision error");
  auto* row_opt = app.add_option(
      "--row-rel-l2", row_rel_l2,
      "cos_diff: also bound every row's |cand_i - ref_i| / |ref_i| (L2 over the last axis)");
  app.add_flag("--allow-nan", request.allow_nan,
               "leave NaN/inf positions out instead of requiring them to match");
  app.add_flag("--equal-nan", request.equal_nan, "allclose: NaN equals NaN (torch equal_nan)");
  app.add_option("--json", json_path, "also write the report as JSON to this file");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  if (rule_name.empty()) rule_name = lowprec_spec.empty() ? "allclose" : "lowprec_multiple";
  auto kind = ParseRuleName(rule_name);
  if (!kind) {
    return ReportError(
        InvalidInput("unknown rule \"" + rule_name + "\" (rules: " + AllRuleNames() + ")"));
  }
  request.kind = *kind;
  if (*atol_opt) request.atol = atol;
  if (*rtol_opt) request.rtol = rtol;
  if (*cos_opt) request.cos_tol = cos;
  if (*k_opt) request.k = k;
  if (*row_opt) request.row_rel_l2 = row_rel_l2;

  Result<Tensor> cand = LoadTensor(cand_spec);
  if (!cand.ok()) return ReportError(cand.status());
  Result<Tensor> ref = LoadTensor(ref_spec);
  if (!ref.ok()) return ReportError(ref.status());
  Result<Tensor> lowprec = Tensor();
  if (!lowprec_spec.empty()) {
    lowprec = LoadTensor(lowprec_spec);
    if (!lowprec.ok()) return ReportError(lowprec.status());
  }
  Result<CompareReport> report =
      CompareTensors(*cand, *ref, lowprec_spec.empty() ? nullptr : &*lowprec, request);
  if (!report.ok()) {
    return ReportError(report.status().WithContext(cand_spec + " vs " + ref_spec));
  }
  CompareInputs inputs;
  inputs.candidate = cand_spec;
  inputs.reference = ref_spec;
  inputs.lowprec = lowprec_spec;
  if (!json_path.empty()) {
    // The JSON is evidence: it names the exact bytes it judged and how it was made.
    Provenance provenance = StartProvenance("compare", RecordedArgv(args));
    for (auto [spec, out] : {std::pair{&cand_spec, &inputs.candidate_sha256},
                             std::pair{&ref_spec, &inputs.reference_sha256},
                             std::pair{&lowprec_spec, &inputs.lowprec_sha256}}) {
      if (spec->empty()) continue;
      const std::string path = ParseTensorSpec(*spec).path;
      Result<std::string> digest = Sha256File(path);
      if (!digest.ok()) return ReportError(digest.status());
      *out = *digest;
      provenance.inputs.push_back({PackageRelative("", path), *digest});
    }
    CompareRecord record = CompareReportToRecord(*report, inputs);
    provenance.finished = UtcNowRfc3339();
    record.provenance = std::move(provenance);
    record.has_provenance = true;
    Status st = WriteFileAtomically(json_path, JsonFileText(CompareToJson(record, true)));
    if (!st.ok()) return ReportError(st);
  }
  std::fputs(FormatCompareText(*report, inputs).c_str(), stdout);
  return report->passed ? kExitOk : kExitRejected;
}

}  // namespace av::cli
