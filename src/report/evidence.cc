#include "report/evidence.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/json_reader.h"
#include "core/sha256.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Typed, path-aware reads of one JSON document (core/json_reader.h).
using JsonIn = JsonReader;

std::string Idx(const std::string& where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

Result<json> ParseDocument(std::string_view text, const std::string& path,
                           const char* schema_prefix) {
  const JsonIn in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  if (schema_prefix != nullptr) {
    auto it = doc.find("schema");
    if (it != doc.end() &&
        (!it->is_string() || it->get<std::string>().rfind(schema_prefix, 0) != 0)) {
      return in.Error("$.schema",
                      "expected \"" + std::string(schema_prefix) + "1\", got " + DumpJson(*it));
    }
  }
  return doc;
}

Status ReadProvenance(const JsonIn& in, const json& doc, EvidenceFile* file) {
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &file->command));
  if (const json* tool = JsonIn::Get(doc, "tool")) {
    AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &file->tool_version));
  }
  return Status::Ok();
}

EvidenceFile NewFile(std::string_view text, const std::string& path) {
  EvidenceFile f;
  f.path = path;
  f.sha256 = Sha256Hex(text);
  return f;
}

Status ReadWorst(const JsonIn& in, const json& w, const std::string& where, WorstElement* out) {
  AV_RETURN_IF_ERROR(in.Str(w, "output", where, &out->output));
  AV_RETURN_IF_ERROR(in.Num(w, "candidate", where, &out->candidate));
  AV_RETURN_IF_ERROR(in.Num(w, "reference", where, &out->reference));
  AV_RETURN_IF_ERROR(in.Num(w, "abs_err", where, &out->abs_err));
  AV_RETURN_IF_ERROR(in.Num(w, "abs", where, &out->abs_err));
  AV_ASSIGN_OR_RETURN(const json* coords, in.Object(w, "coords", where));
  if (coords != nullptr) {
    for (const auto& [k, v] : coords->items()) {
      if (!v.is_number_integer()) return in.Error(where + ".coords." + k, "must be an integer");
      out->coords.emplace_back(k, v.get<int64_t>());
    }
    // JSON objects lose their order here; show the tensor's axes outermost first.
    static constexpr std::string_view kAxisOrder[] = {
        "batch", "b", "sequence", "row", "position", "m",       "query", "split",
        "head",  "h", "key",      "col", "column",   "channel", "n",     "c"};
    auto rank = [](const std::string& k) {
      for (size_t i = 0; i < std::size(kAxisOrder); ++i) {
        if (kAxisOrder[i] == k) return i;
      }
      return std::size(kAxisOrder);
    };
    std::stable_sort(out->coords.begin(), out->coords.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  }
  AV_ASSIGN_OR_RETURN(const json* index, in.Array(w, "index", where));
  if (index != nullptr) {
    for (size_t i = 0; i < index->size(); ++i) {
      if (!(*index)[i].is_number_integer())
        return in.Error(Idx(where + ".index", i), "must be an integer");
      out->coords.emplace_back("i" + std::to_string(i), (*index)[i].get<int64_t>());
    }
  }
  return Status::Ok();
}

Status ReadOutput(const JsonIn& in, const json& o, const std::string& where, OutputResult* out) {
  AV_RETURN_IF_ERROR(in.Str(o, "name", where, &out->name));
  AV_RETURN_IF_ERROR(in.Str(o, "tolerance", where, &out->tolerance));
  AV_RETURN_IF_ERROR(in.Bool(o, "passed", where, &out->passed));
  AV_ASSIGN_OR_RETURN(const json* cmp, in.Object(o, "compare", where));
  if (cmp == nullptr) return Status::Ok();
  const std::string cw = where + ".compare";
  out->compared = true;
  if (const json* rule = JsonIn::Get(*cmp, "rule"))
    AV_RETURN_IF_ERROR(in.Str(*rule, "name", cw + ".rule", &out->rule));
  if (const json* m = JsonIn::Get(*cmp, "metrics"))
    AV_RETURN_IF_ERROR(in.Num(*m, "max_abs", cw + ".metrics", &out->max_abs));
  std::vector<std::string> failures;
  AV_RETURN_IF_ERROR(in.Strings(*cmp, "failures", cw, &failures));
  if (!failures.empty()) out->failure = failures.front();
  AV_ASSIGN_OR_RETURN(const json* worst, in.Array(*cmp, "worst_abs", cw));
  if (worst != nullptr && !worst->empty()) {
    WorstElement w;
    w.output = out->name;
    AV_RETURN_IF_ERROR(ReadWorst(in, (*worst)[0], cw + ".worst_abs[0]", &w));
    out->worst = w;
  }
  return Status::Ok();
}

Status ReadCase(const JsonIn& in, const json& c, const std::string& where, NumericsCase* out) {
  if (!c.is_object()) return in.Error(where, "must be an object");
  for (auto [key, field] : {std::pair{"id", &out->id},
                            {"sweep", &out->sweep},
                            {"op", &out->op},
                            {"dtype", &out->dtype},
                            {"variant", &out->variant},
                            {"group", &out->group},
                            {"verdict", &out->verdict},
                            {"reason", &out->reason},
                            {"case_dir", &out->case_dir}}) {
    AV_RETURN_IF_ERROR(in.Str(c, key, where, field));
  }
  if (out->id.empty()) return in.Error(where + ".id", "missing");
  if (out->verdict.empty()) return in.Error(where + ".verdict", "missing");
  for (auto [key, field] : {std::pair{"params", &out->params},
                            {"op_params", &out->op_params},
                            {"knobs", &out->knobs}}) {
    AV_ASSIGN_OR_RETURN(const json* o, in.Object(c, key, where));
    if (o != nullptr) *field = *o;
  }
  if (const json* cand = JsonIn::Get(c, "candidate")) {
    AV_ASSIGN_OR_RETURN(const json* meta, in.Object(*cand, "metadata", where + ".candidate"));
    if (meta != nullptr) {
      for (const auto& [k, v] : meta->items())
        out->metadata[k] = v.is_string() ? v.get<std::string>() : DumpJson(v);
    }
  }
  AV_ASSIGN_OR_RETURN(const json* outputs, in.Array(c, "outputs", where));
  if (outputs != nullptr) {
    for (size_t i = 0; i < outputs->size(); ++i) {
      if (!(*outputs)[i].is_object())
        return in.Error(Idx(where + ".outputs", i), "must be an object");
      OutputResult o;
      AV_RETURN_IF_ERROR(ReadOutput(in, (*outputs)[i], Idx(where + ".outputs", i), &o));
      out->outputs.push_back(std::move(o));
    }
  }
  AV_ASSIGN_OR_RETURN(const json* loc, in.Object(c, "localisation", where));
  if (loc != nullptr) {
    const std::string lw = where + ".localisation";
    AV_RETURN_IF_ERROR(in.Strings(*loc, "hints", lw, &out->hints));
    AV_RETURN_IF_ERROR(in.Strings(*loc, "heatmaps", lw, &out->heatmaps));
    AV_ASSIGN_OR_RETURN(const json* worst, in.Array(*loc, "worst", lw));
    if (worst != nullptr) {
      for (size_t i = 0; i < worst->size(); ++i) {
        if (!(*worst)[i].is_object()) return in.Error(Idx(lw + ".worst", i), "must be an object");
        WorstElement w;
        AV_RETURN_IF_ERROR(ReadWorst(in, (*worst)[i], Idx(lw + ".worst", i), &w));
        out->localised_worst.push_back(std::move(w));
      }
    }
  }
  return Status::Ok();
}

Status ReadSide(const JsonIn& in, const json& k, const std::string& where, KernelSide* s) {
  if (!k.is_object()) return in.Error(where, "must be an object");
  for (auto [key, field] : {std::pair{"registers", &s->registers},
                            {"spill_store_bytes", &s->spill_store_bytes},
                            {"spill_load_bytes", &s->spill_load_bytes},
                            {"static_smem_bytes", &s->static_smem_bytes},
                            {"dynamic_smem_bytes", &s->dynamic_smem_bytes},
                            {"total_smem_bytes", &s->total_smem_bytes},
                            {"smem_cap_bytes", &s->smem_cap_bytes}}) {
    AV_RETURN_IF_ERROR(in.Int(k, key, where, field));
  }
  AV_ASSIGN_OR_RETURN(const json* ov, in.Object(k, "ptxas_overflow", where));
  if (ov != nullptr) {
    s->ptxas_overflow = true;
    AV_RETURN_IF_ERROR(in.Int(*ov, "bytes", where + ".ptxas_overflow", &s->overflow_bytes));
    AV_RETURN_IF_ERROR(in.Int(*ov, "max_bytes", where + ".ptxas_overflow", &s->overflow_max_bytes));
  }
  AV_ASSIGN_OR_RETURN(const json* occ, in.Object(k, "occupancy", where));
  if (occ != nullptr)
    AV_RETURN_IF_ERROR(in.Int(*occ, "warps_per_sm", where + ".occupancy", &s->warps_per_sm));
  return Status::Ok();
}

}  // namespace

Result<NumericsEvidence> ParseNumericsEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseDocument(text, path, "attnverify.numerics/"));
  JsonIn in(path);
  NumericsEvidence n;
  n.file = NewFile(text, path);
  AV_RETURN_IF_ERROR(ReadProvenance(in, doc, &n.file));
  AV_ASSIGN_OR_RETURN(const json* config, in.Object(doc, "config", "$"));
  if (config != nullptr) {
    AV_RETURN_IF_ERROR(in.Str(*config, "shapes", "$.config", &n.shapes));
    AV_RETURN_IF_ERROR(in.Str(*config, "shapes_sha256", "$.config", &n.shapes_sha256));
    AV_RETURN_IF_ERROR(in.Str(*config, "tolerances", "$.config", &n.tolerances));
    AV_RETURN_IF_ERROR(in.Str(*config, "tolerances_sha256", "$.config", &n.tolerances_sha256));
  }
  AV_ASSIGN_OR_RETURN(const json* cases, in.Array(doc, "cases", "$"));
  if (cases == nullptr) return in.Error("$.cases", "missing (not a numerics evidence file?)");
  for (size_t i = 0; i < cases->size(); ++i) {
    NumericsCase c;
    AV_RETURN_IF_ERROR(ReadCase(in, (*cases)[i], Idx("$.cases", i), &c));
    n.cases.push_back(std::move(c));
  }
  AV_ASSIGN_OR_RETURN(const json* inv, in.Array(doc, "invariance", "$"));
  if (inv != nullptr) {
    for (size_t i = 0; i < inv->size(); ++i) {
      const json& e = (*inv)[i];
      const std::string w = Idx("$.invariance", i);
      if (!e.is_object()) return in.Error(w, "must be an object");
      InvarianceResult r;
      for (auto [key, field] : {std::pair{"check", &r.check},
                                {"group", &r.group},
                                {"verdict", &r.verdict},
                                {"tolerance", &r.tolerance},
                                {"detail", &r.detail}}) {
        AV_RETURN_IF_ERROR(in.Str(e, key, w, field));
      }
      AV_RETURN_IF_ERROR(in.Strings(e, "cases", w, &r.cases));
      AV_RETURN_IF_ERROR(in.Num(e, "max_abs_diff", w, &r.max_abs_diff));
      if (r.check.empty() || r.verdict.empty())
        return in.Error(w, "needs \"check\" and \"verdict\"");
      n.invariance.push_back(std::move(r));
    }
  }
  return n;
}

Result<ResourcesEvidence> ParseResourcesEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseDocument(text, path, "attnverify.resources/"));
  JsonIn in(path);
  ResourcesEvidence r;
  r.file = NewFile(text, path);
  AV_RETURN_IF_ERROR(ReadProvenance(in, doc, &r.file));
  AV_RETURN_IF_ERROR(in.Str(doc, "status", "$", &r.status));
  if (r.status.empty()) return in.Error("$.status", "missing (not a resources evidence file?)");
  AV_RETURN_IF_ERROR(in.Str(doc, "missing_reason", "$", &r.missing_reason));
  if (const json* nvcc = JsonIn::Get(doc, "nvcc"))
    AV_RETURN_IF_ERROR(in.Str(*nvcc, "version", "$.nvcc", &r.nvcc_version));
  AV_RETURN_IF_ERROR(in.Strings(doc, "archs", "$", &r.archs));
  AV_ASSIGN_OR_RETURN(const json* head, in.Object(doc, "head", "$"));
  if (head != nullptr) {
    AV_RETURN_IF_ERROR(in.Str(*head, "ref", "$.head", &r.head_ref));
    AV_RETURN_IF_ERROR(in.Str(*head, "log", "$.head", &r.head_log));
  }
  AV_ASSIGN_OR_RETURN(const json* base, in.Object(doc, "base", "$"));
  if (base != nullptr) {
    r.has_base = true;
    AV_RETURN_IF_ERROR(in.Str(*base, "ref", "$.base", &r.base_ref));
    AV_RETURN_IF_ERROR(in.Str(*base, "log", "$.base", &r.base_log));
  }
  AV_ASSIGN_OR_RETURN(const json* kernels, in.Array(doc, "kernels", "$"));
  for (size_t i = 0; kernels != nullptr && i < kernels->size(); ++i) {
    const json& k = (*kernels)[i];
    const std::string w = Idx("$.kernels", i);
    if (!k.is_object()) return in.Error(w, "must be an object");
    KernelResourceRow row;
    AV_RETURN_IF_ERROR(in.Str(k, "kernel", w, &row.kernel));
    AV_RETURN_IF_ERROR(in.Str(k, "arch", w, &row.arch));
    AV_RETURN_IF_ERROR(in.Str(k, "change", w, &row.change));
    if (const json* b = JsonIn::Get(k, "base")) {
      row.base.emplace();
      AV_RETURN_IF_ERROR(ReadSide(in, *b, w + ".base", &*row.base));
    }
    if (const json* h = JsonIn::Get(k, "head")) {
      row.head.emplace();
      AV_RETURN_IF_ERROR(ReadSide(in, *h, w + ".head", &*row.head));
    }
    r.kernels.push_back(std::move(row));
  }
  AV_ASSIGN_OR_RETURN(const json* gates, in.Array(doc, "gates", "$"));
  for (size_t i = 0; gates != nullptr && i < gates->size(); ++i) {
    const json& g = (*gates)[i];
    const std::string w = Idx("$.gates", i);
    if (!g.is_object()) return in.Error(w, "must be an object");
    GateRow row;
    AV_RETURN_IF_ERROR(in.Str(g, "gate", w, &row.gate));
    AV_RETURN_IF_ERROR(in.Str(g, "rule", w, &row.rule));
    AV_RETURN_IF_ERROR(in.Bool(g, "enabled", w, &row.enabled));
    AV_RETURN_IF_ERROR(in.Bool(g, "skipped", w, &row.skipped));
    AV_RETURN_IF_ERROR(in.Bool(g, "passed", w, &row.passed));
    AV_RETURN_IF_ERROR(in.Strings(g, "failures", w, &row.failures));
    if (row.gate.empty()) return in.Error(w + ".gate", "missing");
    r.gates.push_back(std::move(row));
  }
  return r;
}

Result<ReviewEvidence> ParseReviewEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseDocument(text, path, "attnverify.review/"));
  JsonIn in(path);
  ReviewEvidence r;
  r.file = NewFile(text, path);
  AV_RETURN_IF_ERROR(ReadProvenance(in, doc, &r.file));
  for (auto [key, field] : {std::pair{"reviewer", &r.reviewer},
                            {"base", &r.base},
                            {"base_commit", &r.base_commit},
                            {"head_commit", &r.head_commit}}) {
    AV_RETURN_IF_ERROR(in.Str(doc, key, "$", field));
  }
  AV_ASSIGN_OR_RETURN(const json* diffs, in.Array(doc, "diffs", "$"));
  for (size_t i = 0; diffs != nullptr && i < diffs->size(); ++i) {
    const std::string w = Idx("$.diffs", i);
    if (!(*diffs)[i].is_object()) return in.Error(w, "must be an object");
    ReviewDiff d;
    AV_RETURN_IF_ERROR(in.Str((*diffs)[i], "component", w, &d.component));
    AV_RETURN_IF_ERROR(in.Str((*diffs)[i], "path", w, &d.path));
    AV_RETURN_IF_ERROR(in.Str((*diffs)[i], "sha256", w, &d.sha256));
    r.diffs.push_back(std::move(d));
  }
  AV_ASSIGN_OR_RETURN(const json* findings, in.Array(doc, "findings", "$"));
  for (size_t i = 0; findings != nullptr && i < findings->size(); ++i) {
    const json& f = (*findings)[i];
    const std::string w = Idx("$.findings", i);
    if (!f.is_object()) return in.Error(w, "must be an object");
    ReviewFinding x;
    for (auto [key, field] : {std::pair{"id", &x.id},
                              {"rule", &x.rule},
                              {"severity", &x.severity},
                              {"component", &x.component},
                              {"file", &x.file},
                              {"title", &x.title},
                              {"message", &x.message},
                              {"old", &x.old_text},
                              {"new", &x.new_text},
                              {"verify", &x.verify}}) {
      AV_RETURN_IF_ERROR(in.Str(f, key, w, field));
    }
    AV_RETURN_IF_ERROR(in.Int(f, "line", w, &x.line));
    AV_RETURN_IF_ERROR(in.Int(f, "end_line", w, &x.end_line));
    int64_t item = 0;
    AV_RETURN_IF_ERROR(in.Int(f, "checklist_item", w, &item));
    if (item < 0 || item > 8)
      return in.Error(w + ".checklist_item", "must be 1..8, got " + std::to_string(item));
    x.checklist_item = static_cast<int>(item);
    AV_ASSIGN_OR_RETURN(const json* related, in.Array(f, "related_items", w));
    for (size_t k = 0; related != nullptr && k < related->size(); ++k) {
      const json& v = (*related)[k];
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 8) {
        return in.Error(Idx(w + ".related_items", k), "must be an item number 1..8");
      }
      x.related_items.push_back(static_cast<int>(v.get<int64_t>()));
    }
    if (x.rule.empty()) return in.Error(w + ".rule", "missing");
    if (x.severity != "error" && x.severity != "warning" && x.severity != "note") {
      return in.Error(w + ".severity",
                      "must be \"error\", \"warning\" or \"note\", got \"" + x.severity + "\"");
    }
    if (x.line < 0 || x.end_line < 0) return in.Error(w + ".line", "must be >= 0");
    if (x.id.empty()) x.id = "F" + std::to_string(i + 1);
    r.findings.push_back(std::move(x));
  }
  return r;
}

Result<ReportRunEvidence> ParseRunEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseDocument(text, path, "attnverify.run/"));
  JsonIn in(path);
  ReportRunEvidence r;
  r.file = NewFile(text, path);
  AV_RETURN_IF_ERROR(ReadProvenance(in, doc, &r.file));
  AV_RETURN_IF_ERROR(in.Str(doc, "config", "$", &r.config));
  // The --config the user typed (relative to the folder `attnverify run` ran in; the
  // stages ran there too). Without --config, run uses the default.
  r.user_config = "attention-verify/attnverify.toml";
  std::vector<std::string> words;
  for (size_t i = 0; i < r.file.command.size();) {
    size_t j = r.file.command.find(' ', i);
    if (j == std::string::npos) j = r.file.command.size();
    if (j > i) words.push_back(r.file.command.substr(i, j - i));
    i = j + 1;
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--config" && i + 1 < words.size())
      r.user_config = words[i + 1];
    else if (words[i].rfind("--config=", 0) == 0)
      r.user_config = words[i].substr(9);
  }
  AV_ASSIGN_OR_RETURN(const json* stages, in.Array(doc, "stages", "$"));
  if (stages != nullptr) {
    for (size_t i = 0; i < stages->size(); ++i) {
      const std::string where = Idx("$.stages", i);
      const json& s = (*stages)[i];
      if (!s.is_object()) return in.Error(where, "must be an object");
      ReportRunStage st;
      AV_RETURN_IF_ERROR(in.Str(s, "name", where, &st.name));
      AV_RETURN_IF_ERROR(in.Str(s, "status", where, &st.status));
      AV_RETURN_IF_ERROR(in.Str(s, "reason", where, &st.reason));
      AV_RETURN_IF_ERROR(in.Str(s, "log", where, &st.log));
      AV_RETURN_IF_ERROR(in.Str(s, "log_sha256", where, &st.log_sha256));
      r.stages.push_back(std::move(st));
    }
  }
  return r;
}

Result<EvidenceFile> ParseProvenanceOnly(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(json doc, ParseDocument(text, path, nullptr));
  JsonIn in(path);
  EvidenceFile f = NewFile(text, path);
  AV_RETURN_IF_ERROR(ReadProvenance(in, doc, &f));
  return f;
}

}  // namespace av
