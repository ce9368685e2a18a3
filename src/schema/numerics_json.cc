#include "schema/numerics_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_dump.h"
#include "core/json_reader.h"

namespace av {
namespace {

using nlohmann::json;

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json ObjectOr(const JsonValue& v) { return v->is_null() ? json::object() : v.get(); }

json LocalisedJson(const LocalisedElement& e) {
  json coords = json::object();
  for (const auto& [k, v] : e.coords) coords[k] = v;
  return {{"output", e.output},
          {"coords", std::move(coords)},
          {"candidate", JsonNumber(e.candidate)},
          {"reference", JsonNumber(e.reference)},
          {"abs_err", JsonNumber(e.abs_err)},
          {"error_over_tolerance", JsonNumber(e.error_over_tolerance)}};
}

json CaseJson(const NumericsCase& c) {
  json outputs = json::array();
  for (const NumericsOutput& o : c.outputs) {
    json j = {{"name", o.name}, {"tolerance", o.tolerance}, {"passed", o.passed}};
    if (o.compare) j["compare"] = CompareToJson(*o.compare, /*standalone=*/false);
    outputs.push_back(std::move(j));
  }
  const CaseDurations& d = c.durations_ms;
  json j = {
      {"id", c.id},
      {"sweep", c.sweep},
      {"op", c.op},
      {"params", ObjectOr(c.params)},
      {"op_params", ObjectOr(c.op_params)},
      {"dtype", c.dtype},
      {"seed", c.seed},
      {"index", c.index},
      {"variant", c.variant},
      {"group", c.group_id()},
      {"knobs", ObjectOr(c.knobs)},
      {"verdict", CaseVerdictName(c.verdict)},
      {"reason", c.reason},
      {"outputs", std::move(outputs)},
      {"reference_impl", c.reference_impl},
      {"sha256", {{"inputs", c.inputs_sha256}, {"outputs", c.outputs_sha256}}},
      {"candidate",
       {{"status", c.candidate.status},
        {"metadata", c.candidate.metadata},
        {"stderr_tail", c.candidate.stderr_tail}}},
      {"durations_ms",
       {{"generate", d.generate},
        {"candidate", d.candidate},
        {"reference", d.reference},
        {"compare", d.compare},
        {"check", d.check},
        {"total", d.total}}},
      {"case_dir", c.case_dir},
      {"compare_from", OrNull(c.compare_from)},
      {"refereed_by", OrNull(c.refereed_by)},
      {"referee_reason", OrNull(c.referee_reason)},
  };
  if (c.drawn) j["drawn"] = true;
  if (!c.hints.empty() || !c.localised_worst.empty() || !c.heatmaps.empty()) {
    json worst = json::array();
    for (const LocalisedElement& e : c.localised_worst) worst.push_back(LocalisedJson(e));
    j["localisation"] = {{"hints", c.hints}, {"worst", std::move(worst)}, {"heatmaps", c.heatmaps}};
  }
  return j;
}

json TimeJson(const TimeSummary& t) {
  return {{"generate", t.generate},   {"candidate", t.candidate},
          {"reference", t.reference}, {"compare", t.compare},
          {"check", t.check},         {"other", t.other},
          {"total", t.total},         {"overhead_fraction", t.overhead_fraction}};
}

json SummaryJson(const NumericsSummary& s) {
  json j = {{"cases_total", s.cases_total}, {"cases_run", s.cases_run},
            {"passed", s.passed},           {"failed", s.failed},
            {"wall_ms", s.wall_ms},         {"time_ms", TimeJson(s.time_ms)},
            {"invariance", s.invariance}};
  if (s.wall_ms_sum) j["wall_ms_sum"] = *s.wall_ms_sum;
  return j;
}

json ShardJson(const ShardRecord& s) {
  json j = {{"index", s.index}, {"count", s.count}};
  if (s.merged) {
    json from = json::array();
    for (const MergedShard& m : s.merged_from) {
      from.push_back(
          {{"path", m.path}, {"sha256", m.sha256}, {"index", m.index}, {"count", m.count}});
    }
    j["merged_from"] = std::move(from);
    j["missing"] = s.missing;
  }
  return j;
}

// ---- reading ----

// JSON objects lose their order: show the tensor's axes outermost first.
void SortAxes(std::vector<std::pair<std::string, int64_t>>* coords) {
  static constexpr std::string_view kAxisOrder[] = {
      "batch", "b", "sequence", "row", "position", "m",       "query", "split",
      "head",  "h", "key",      "col", "column",   "channel", "n",     "c"};
  auto rank = [](const std::string& k) {
    for (size_t i = 0; i < std::size(kAxisOrder); ++i) {
      if (kAxisOrder[i] == k) return i;
    }
    return std::size(kAxisOrder);
  };
  std::stable_sort(coords->begin(), coords->end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
}

Status ReadLocalised(const JsonReader& in, const json& w, const std::string& where,
                     LocalisedElement* out) {
  if (!w.is_object()) return in.Error(where, "must be an object");
  AV_RETURN_IF_ERROR(in.Str(w, "output", where, &out->output));
  AV_RETURN_IF_ERROR(in.Num(w, "candidate", where, &out->candidate));
  AV_RETURN_IF_ERROR(in.Num(w, "reference", where, &out->reference));
  AV_RETURN_IF_ERROR(in.Num(w, "abs_err", where, &out->abs_err));
  AV_RETURN_IF_ERROR(in.Num(w, "error_over_tolerance", where, &out->error_over_tolerance));
  AV_ASSIGN_OR_RETURN(const json* coords, in.Object(w, "coords", where));
  if (coords != nullptr) {
    for (const auto& [k, v] : coords->items()) {
      if (!v.is_number_integer())
        return in.Error(JsonReader::Member(where + ".coords", k), "must be an integer");
      out->coords.emplace_back(k, v.get<int64_t>());
    }
    SortAxes(&out->coords);
  }
  return Status::Ok();
}

Status ReadObjectField(const JsonReader& in, const json& c, const char* key,
                       const std::string& where, JsonValue* out) {
  AV_ASSIGN_OR_RETURN(const json* o, in.Object(c, key, where));
  *out = o != nullptr ? *o : json::object();
  return Status::Ok();
}

Status ReadOutputs(const JsonReader& in, const json& c, const std::string& where,
                   NumericsCase* out) {
  AV_ASSIGN_OR_RETURN(const json* outputs, in.Array(c, "outputs", where));
  for (size_t i = 0; outputs != nullptr && i < outputs->size(); ++i) {
    const std::string w = JsonReader::Index(where + ".outputs", i);
    const json& o = (*outputs)[i];
    if (!o.is_object()) return in.Error(w, "must be an object");
    NumericsOutput x;
    AV_RETURN_IF_ERROR(in.Str(o, "name", w, &x.name));
    AV_RETURN_IF_ERROR(in.Str(o, "tolerance", w, &x.tolerance));
    AV_RETURN_IF_ERROR(in.Bool(o, "passed", w, &x.passed));
    if (const json* cmp = JsonReader::Get(o, "compare")) {
      x.compare.emplace();
      AV_RETURN_IF_ERROR(ReadCompare(in, *cmp, w + ".compare", &*x.compare));
    }
    out->outputs.push_back(std::move(x));
  }
  return Status::Ok();
}

Status ReadCandidate(const JsonReader& in, const json& c, const std::string& where,
                     CandidateRecord* out) {
  AV_ASSIGN_OR_RETURN(const json* cand, in.Object(c, "candidate", where));
  if (cand == nullptr) return Status::Ok();
  const std::string w = where + ".candidate";
  AV_RETURN_IF_ERROR(in.Str(*cand, "status", w, &out->status));
  AV_RETURN_IF_ERROR(in.Str(*cand, "stderr_tail", w, &out->stderr_tail));
  AV_ASSIGN_OR_RETURN(const json* meta, in.Object(*cand, "metadata", w));
  if (meta != nullptr) {
    for (const auto& [k, v] : meta->items())
      out->metadata[k] = v.is_string() ? v.get<std::string>() : DumpJson(v);
  }
  return Status::Ok();
}

Status ReadLocalisation(const JsonReader& in, const json& c, const std::string& where,
                        NumericsCase* out) {
  AV_ASSIGN_OR_RETURN(const json* loc, in.Object(c, "localisation", where));
  if (loc == nullptr) return Status::Ok();
  const std::string lw = where + ".localisation";
  AV_RETURN_IF_ERROR(in.Strings(*loc, "hints", lw, &out->hints));
  AV_RETURN_IF_ERROR(in.Strings(*loc, "heatmaps", lw, &out->heatmaps));
  AV_ASSIGN_OR_RETURN(const json* worst, in.Array(*loc, "worst", lw));
  for (size_t i = 0; worst != nullptr && i < worst->size(); ++i) {
    LocalisedElement e;
    AV_RETURN_IF_ERROR(ReadLocalised(in, (*worst)[i], JsonReader::Index(lw + ".worst", i), &e));
    out->localised_worst.push_back(std::move(e));
  }
  return Status::Ok();
}

Status ReadCase(const JsonReader& in, const json& c, const std::string& where, NumericsCase* out) {
  if (!c.is_object()) return in.Error(where, "must be an object");
  for (auto [key, field] : {std::pair{"id", &out->id},
                            {"sweep", &out->sweep},
                            {"op", &out->op},
                            {"dtype", &out->dtype},
                            {"variant", &out->variant},
                            {"group", &out->group},
                            {"reason", &out->reason},
                            {"reference_impl", &out->reference_impl},
                            {"case_dir", &out->case_dir},
                            {"compare_from", &out->compare_from},
                            {"refereed_by", &out->refereed_by},
                            {"referee_reason", &out->referee_reason}}) {
    AV_RETURN_IF_ERROR(in.Str(c, key, where, field));
  }
  if (out->id.empty()) return in.Error(where + ".id", "missing");
  std::string verdict;
  AV_RETURN_IF_ERROR(in.Str(c, "verdict", where, &verdict));
  if (verdict.empty()) return in.Error(where + ".verdict", "missing");
  std::optional<CaseVerdict> v = ParseCaseVerdict(verdict);
  if (!v) {
    return in.Error(where + ".verdict",
                    std::string("must be ") + CaseVerdictWords() + ", got \"" + verdict + "\"");
  }
  out->verdict = *v;
  int64_t seed = 0;
  AV_RETURN_IF_ERROR(in.Int(c, "seed", where, &seed));
  out->seed = static_cast<uint64_t>(seed);
  AV_RETURN_IF_ERROR(in.Int(c, "index", where, &out->index));
  AV_RETURN_IF_ERROR(ReadObjectField(in, c, "params", where, &out->params));
  AV_RETURN_IF_ERROR(ReadObjectField(in, c, "op_params", where, &out->op_params));
  AV_RETURN_IF_ERROR(ReadObjectField(in, c, "knobs", where, &out->knobs));
  AV_RETURN_IF_ERROR(in.Bool(c, "drawn", where, &out->drawn));
  AV_ASSIGN_OR_RETURN(const json* sha, in.Object(c, "sha256", where));
  if (sha != nullptr) {
    AV_RETURN_IF_ERROR(in.Str(*sha, "inputs", where + ".sha256", &out->inputs_sha256));
    AV_RETURN_IF_ERROR(in.Str(*sha, "outputs", where + ".sha256", &out->outputs_sha256));
  }
  AV_ASSIGN_OR_RETURN(const json* d, in.Object(c, "durations_ms", where));
  if (d != nullptr) {
    CaseDurations& t = out->durations_ms;
    for (auto [key, field] : {std::pair{"generate", &t.generate},
                              {"candidate", &t.candidate},
                              {"reference", &t.reference},
                              {"compare", &t.compare},
                              {"check", &t.check},
                              {"total", &t.total}}) {
      AV_RETURN_IF_ERROR(in.Num(*d, key, where + ".durations_ms", field));
    }
  }
  AV_RETURN_IF_ERROR(ReadOutputs(in, c, where, out));
  AV_RETURN_IF_ERROR(ReadCandidate(in, c, where, &out->candidate));
  return ReadLocalisation(in, c, where, out);
}

Status ReadInvariance(const JsonReader& in, const json& e, const std::string& w,
                      InvarianceRecord* r) {
  if (!e.is_object()) return in.Error(w, "must be an object");
  for (auto [key, field] : {std::pair{"check", &r->check},
                            {"group", &r->group},
                            {"tolerance", &r->tolerance},
                            {"detail", &r->detail}}) {
    AV_RETURN_IF_ERROR(in.Str(e, key, w, field));
  }
  std::string verdict;
  AV_RETURN_IF_ERROR(in.Str(e, "verdict", w, &verdict));
  if (r->check.empty() || verdict.empty()) return in.Error(w, "needs \"check\" and \"verdict\"");
  std::optional<InvarianceVerdict> v = ParseInvarianceVerdict(verdict);
  if (!v) {
    return in.Error(w + ".verdict", std::string("must be ") + InvarianceVerdictWords() +
                                        ", got \"" + verdict + "\"");
  }
  r->verdict = *v;
  AV_RETURN_IF_ERROR(in.Strings(e, "cases", w, &r->cases));
  return in.Num(e, "max_abs_diff", w, &r->max_abs_diff);
}

Status ReadConfig(const JsonReader& in, const json& doc, NumericsRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* config, in.Object(doc, "config", "$"));
  if (config == nullptr) return Status::Ok();
  NumericsConfigRecord& c = r->config;
  for (auto [key, field] : {std::pair{"attnverify_toml", &c.attnverify_toml},
                            {"shapes", &c.shapes},
                            {"shapes_sha256", &c.shapes_sha256},
                            {"tolerances", &c.tolerances},
                            {"tolerances_sha256", &c.tolerances_sha256},
                            {"candidate_command", &c.legacy_candidate_command},
                            {"input_generator", &c.input_generator},
                            {"salt", &c.salt},
                            {"fast_kernels", &c.fast_kernels}}) {
    AV_RETURN_IF_ERROR(in.Str(*config, key, "$.config", field));
  }
  return in.Strings(*config, "candidate_argv", "$.config", &c.candidate_argv);
}

Status ReadShard(const JsonReader& in, const json& doc, ShardRecord* s) {
  AV_ASSIGN_OR_RETURN(const json* shard, in.Object(doc, "shard", "$"));
  if (shard == nullptr) return Status::Ok();
  AV_RETURN_IF_ERROR(in.Int(*shard, "index", "$.shard", &s->index));
  AV_RETURN_IF_ERROR(in.Int(*shard, "count", "$.shard", &s->count));
  if (s->count < 1 || s->index < 0 || s->index >= s->count)
    return in.Error("$.shard", "index must be in 0..count-1 and count >= 1");
  AV_ASSIGN_OR_RETURN(const json* from, in.Array(*shard, "merged_from", "$.shard"));
  s->merged = from != nullptr;
  for (size_t i = 0; from != nullptr && i < from->size(); ++i) {
    const std::string w = JsonReader::Index("$.shard.merged_from", i);
    const json& m = (*from)[i];
    if (!m.is_object()) return in.Error(w, "must be an object");
    MergedShard x;
    AV_RETURN_IF_ERROR(in.Str(m, "path", w, &x.path));
    AV_RETURN_IF_ERROR(in.Str(m, "sha256", w, &x.sha256));
    AV_RETURN_IF_ERROR(in.Int(m, "index", w, &x.index));
    AV_RETURN_IF_ERROR(in.Int(m, "count", w, &x.count));
    s->merged_from.push_back(std::move(x));
  }
  AV_ASSIGN_OR_RETURN(const json* missing, in.Array(*shard, "missing", "$.shard"));
  for (size_t i = 0; missing != nullptr && i < missing->size(); ++i) {
    if (!(*missing)[i].is_number_integer())
      return in.Error(JsonReader::Index("$.shard.missing", i), "must be an integer");
    s->missing.push_back((*missing)[i].get<int64_t>());
  }
  return Status::Ok();
}

Status ReadRunIdentity(const JsonReader& in, const json& doc, RunIdentity* out) {
  AV_ASSIGN_OR_RETURN(const json* id, in.Object(doc, "run_identity", "$"));
  if (id == nullptr) return Status::Ok();
  for (const auto& [key, value] : id->items()) {
    if (!value.is_string())
      return in.Error(JsonReader::Member("$.run_identity", key), "must be a string");
    (*out)[key] = value.get<std::string>();
  }
  return Status::Ok();
}

Status ReadSummary(const JsonReader& in, const json& doc, NumericsSummary* s) {
  AV_ASSIGN_OR_RETURN(const json* sum, in.Object(doc, "summary", "$"));
  if (sum == nullptr) return Status::Ok();
  const std::string w = "$.summary";
  for (auto [key, field] : {std::pair{"cases_total", &s->cases_total},
                            {"cases_run", &s->cases_run},
                            {"passed", &s->passed},
                            {"failed", &s->failed}}) {
    AV_RETURN_IF_ERROR(in.Int(*sum, key, w, field));
  }
  AV_RETURN_IF_ERROR(in.Num(*sum, "wall_ms", w, &s->wall_ms));
  if (JsonReader::Get(*sum, "wall_ms_sum") != nullptr) {
    double v = 0;
    AV_RETURN_IF_ERROR(in.Num(*sum, "wall_ms_sum", w, &v));
    s->wall_ms_sum = v;
  }
  AV_ASSIGN_OR_RETURN(const json* t, in.Object(*sum, "time_ms", w));
  if (t != nullptr) {
    TimeSummary& x = s->time_ms;
    for (auto [key, field] : {std::pair{"generate", &x.generate},
                              {"candidate", &x.candidate},
                              {"reference", &x.reference},
                              {"compare", &x.compare},
                              {"check", &x.check},
                              {"other", &x.other},
                              {"total", &x.total},
                              {"overhead_fraction", &x.overhead_fraction}}) {
      AV_RETURN_IF_ERROR(in.Num(*t, key, w + ".time_ms", field));
    }
  }
  AV_ASSIGN_OR_RETURN(const json* inv, in.Object(*sum, "invariance", w));
  if (inv == nullptr) return Status::Ok();
  for (const auto& [check, verdicts] : inv->items()) {
    const std::string cw = JsonReader::Member(w + ".invariance", check);
    if (!verdicts.is_object()) return in.Error(cw, "must be an object");
    for (const auto& [verdict, n] : verdicts.items()) {
      if (!n.is_number_integer())
        return in.Error(JsonReader::Member(cw, verdict), "must be an integer");
      s->invariance[check][verdict] = n.get<int64_t>();
    }
  }
  return Status::Ok();
}

Status ReadPrepare(const JsonReader& in, const json& doc, NumericsRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* p, in.Object(doc, "prepare", "$"));
  if (p == nullptr) return Status::Ok();
  PrepareRecord x;
  AV_RETURN_IF_ERROR(in.Strings(*p, "argv", "$.prepare", &x.argv));
  AV_RETURN_IF_ERROR(in.Str(*p, "command", "$.prepare", &x.legacy_command));
  AV_RETURN_IF_ERROR(in.Str(*p, "status", "$.prepare", &x.status));
  AV_RETURN_IF_ERROR(in.Num(*p, "wall_ms", "$.prepare", &x.wall_ms));
  r->prepare = std::move(x);
  return Status::Ok();
}

Status ReadContainment(const JsonReader& in, const json& doc, NumericsRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* p, in.Object(doc, "containment", "$"));
  if (p == nullptr) return Status::Ok();
  ContainmentRecord x;
  const std::string w = "$.containment";
  AV_RETURN_IF_ERROR(in.Str(*p, "sandbox", w, &x.sandbox));
  AV_RETURN_IF_ERROR(in.Strings(*p, "package_changes", w, &x.package_changes));
  AV_RETURN_IF_ERROR(in.Int(*p, "leftover_processes", w, &x.leftover_processes));
  AV_RETURN_IF_ERROR(in.Strings(*p, "warnings", w, &x.warnings));
  r->containment = std::move(x);
  return Status::Ok();
}

}  // namespace

std::string NumericsOutput::rule() const { return compare ? compare->rule.name : ""; }

double NumericsOutput::max_abs() const { return compare ? compare->metrics.max_abs : 0; }

std::string NumericsOutput::failure() const {
  return compare && !compare->failures.empty() ? compare->failures.front() : "";
}

std::optional<LocalisedElement> NumericsOutput::worst() const {
  if (!compare || compare->worst_abs.empty()) return std::nullopt;
  const CompareElement& e = compare->worst_abs.front();
  LocalisedElement w;
  w.output = name;
  for (size_t i = 0; i < e.index.size(); ++i)
    w.coords.emplace_back(std::string("i").append(std::to_string(i)), e.index[i]);
  w.candidate = e.candidate;
  w.reference = e.reference;
  w.abs_err = e.abs;
  return w;
}

json NumericsToJson(const NumericsRecord& r) {
  json cases = json::array();
  for (const NumericsCase& c : r.cases) cases.push_back(CaseJson(c));
  json invariance = json::array();
  for (const InvarianceRecord& v : r.invariance) {
    invariance.push_back({{"check", v.check},
                          {"group", v.group},
                          {"cases", v.cases},
                          {"verdict", InvarianceVerdictName(v.verdict)},
                          {"max_abs_diff", JsonNumber(v.max_abs_diff)},
                          {"tolerance", v.tolerance},
                          {"detail", v.detail}});
  }
  const NumericsConfigRecord& c = r.config;
  json prepare = nullptr;
  if (r.prepare) {
    prepare = {
        {"argv", r.prepare->argv}, {"status", r.prepare->status}, {"wall_ms", r.prepare->wall_ms}};
  }
  json containment = nullptr;
  if (r.containment) {
    containment = {{"sandbox", r.containment->sandbox},
                   {"package_changes", r.containment->package_changes},
                   {"leftover_processes", r.containment->leftover_processes},
                   {"warnings", r.containment->warnings}};
  }
  json doc = {{"schema", kNumericsJsonSchema},
          {"tool", {{"name", "attnverify"}, {"version", r.provenance.tool_version}}},
          {"provenance", ProvenanceToJson(r.provenance)},
          {"config",
           {{"attnverify_toml", c.attnverify_toml},
            {"shapes", c.shapes},
            {"shapes_sha256", c.shapes_sha256},
            {"tolerances", c.tolerances},
            {"tolerances_sha256", c.tolerances_sha256},
            {"candidate_argv", c.candidate_argv},
            {"input_generator", c.input_generator},
            {"salt", c.salt},
            {"fast_kernels", c.fast_kernels}}},
          {"shard", ShardJson(r.shard)},
          {"filter", r.filter},
          {"summary", SummaryJson(r.summary)},
          {"verdict", CaseVerdictName(r.verdict)},
          {"prepare", std::move(prepare)},
          {"containment", std::move(containment)},
          {"cases", std::move(cases)},
          {"invariance", std::move(invariance)}};
  if (!r.run_identity.empty()) doc["run_identity"] = r.run_identity;
  if (!r.skipped.empty()) {
    json skipped = json::array();
    for (const SkippedCaseRecord& k : r.skipped)
      skipped.push_back({{"id", k.id}, {"op", k.op}, {"reason", k.reason}});
    doc["skipped"] = std::move(skipped);
  }
  return doc;
}

Result<NumericsRecord> ParseNumerics(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  // /1 files written by hand (tests, old packages) may lack "schema".
  AV_RETURN_IF_ERROR(in.CheckSchema(doc, {kNumericsJsonSchema, kNumericsJsonSchemaV1}, true));
  NumericsRecord r;
  r.schema.clear();  // "" when the file names none
  AV_RETURN_IF_ERROR(in.Str(doc, "schema", "$", &r.schema));
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &r.provenance, &r.has_provenance));
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &r.legacy_command));
  AV_ASSIGN_OR_RETURN(const json* tool, in.Object(doc, "tool", "$"));
  if (tool != nullptr) AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &r.tool_version));
  if (r.tool_version.empty()) r.tool_version = r.provenance.tool_version;
  AV_RETURN_IF_ERROR(ReadConfig(in, doc, &r));
  AV_RETURN_IF_ERROR(ReadShard(in, doc, &r.shard));
  AV_RETURN_IF_ERROR(ReadRunIdentity(in, doc, &r.run_identity));
  AV_RETURN_IF_ERROR(in.Str(doc, "filter", "$", &r.filter));
  AV_RETURN_IF_ERROR(ReadSummary(in, doc, &r.summary));
  std::string verdict = "fail";
  AV_RETURN_IF_ERROR(in.Str(doc, "verdict", "$", &verdict));
  if (verdict != "pass" && verdict != "fail")
    return in.Error("$.verdict", "must be \"pass\" or \"fail\", got \"" + verdict + "\"");
  r.verdict = *ParseCaseVerdict(verdict);
  AV_RETURN_IF_ERROR(ReadPrepare(in, doc, &r));
  AV_RETURN_IF_ERROR(ReadContainment(in, doc, &r));
  AV_ASSIGN_OR_RETURN(const json* cases, in.Array(doc, "cases", "$"));
  if (cases == nullptr) return in.Error("$.cases", "missing (not a numerics evidence file?)");
  for (size_t i = 0; i < cases->size(); ++i) {
    NumericsCase c;
    AV_RETURN_IF_ERROR(ReadCase(in, (*cases)[i], JsonReader::Index("$.cases", i), &c));
    r.cases.push_back(std::move(c));
  }
  AV_ASSIGN_OR_RETURN(const json* inv, in.Array(doc, "invariance", "$"));
  for (size_t i = 0; inv != nullptr && i < inv->size(); ++i) {
    InvarianceRecord x;
    AV_RETURN_IF_ERROR(ReadInvariance(in, (*inv)[i], JsonReader::Index("$.invariance", i), &x));
    r.invariance.push_back(std::move(x));
  }
  AV_ASSIGN_OR_RETURN(const json* skipped, in.Array(doc, "skipped", "$"));
  for (size_t i = 0; skipped != nullptr && i < skipped->size(); ++i) {
    const std::string w = JsonReader::Index("$.skipped", i);
    const json& k = (*skipped)[i];
    if (!k.is_object()) return in.Error(w, "must be an object");
    SkippedCaseRecord x;
    AV_RETURN_IF_ERROR(in.Str(k, "id", w, &x.id));
    AV_RETURN_IF_ERROR(in.Str(k, "op", w, &x.op));
    AV_RETURN_IF_ERROR(in.Str(k, "reason", w, &x.reason));
    if (x.id.empty()) return in.Error(w + ".id", "missing");
    r.skipped.push_back(std::move(x));
  }
  return r;
}

TimeSummary SumCaseTimes(const std::vector<NumericsCase>& cases) {
  TimeSummary t;
  for (const NumericsCase& c : cases) {
    t.generate += c.durations_ms.generate;
    t.candidate += c.durations_ms.candidate;
    t.reference += c.durations_ms.reference;
    t.compare += c.durations_ms.compare;
    t.check += c.durations_ms.check;
    t.total += c.durations_ms.total;
  }
  const double named = t.generate + t.candidate + t.reference + t.compare + t.check;
  t.other = std::max(0.0, t.total - named);
  const double own = t.generate + t.compare + t.check + t.other;
  t.overhead_fraction = t.total > 0 ? own / t.total : 0.0;
  return t;
}

}  // namespace av
