#include "schema/compare_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace av {
namespace {

using nlohmann::json;

json ElementJson(const CompareElement& e) {
  return {{"index", e.index},
          {"linear", e.linear},
          {"candidate", JsonNumber(e.candidate)},
          {"reference", JsonNumber(e.reference)},
          {"abs", JsonNumber(e.abs)},
          {"rel", JsonNumber(e.rel)}};
}

json CountsJson(const CompareNonFiniteCounts& c) {
  return {{"nan", c.nan}, {"pos_inf", c.pos_inf}, {"neg_inf", c.neg_inf}};
}

json InputJson(const CompareTensorInput& in) {
  return {{"spec", in.spec},
          {"file_sha256", in.file_sha256.empty() ? json(nullptr) : json(in.file_sha256)},
          {"dtype", in.dtype},
          {"shape", in.shape}};
}

json Elements(const std::vector<CompareElement>& v) {
  json out = json::array();
  for (const CompareElement& e : v) out.push_back(ElementJson(e));
  return out;
}

Status ReadInts(const JsonReader& in, const json& o, const char* key, const std::string& where,
                std::vector<int64_t>* out) {
  AV_ASSIGN_OR_RETURN(const json* arr, in.Array(o, key, where));
  for (size_t i = 0; arr != nullptr && i < arr->size(); ++i) {
    const json& v = (*arr)[i];
    if (!v.is_number_integer())
      return in.Error(JsonReader::Index(JsonReader::Member(where, key), i), "must be an integer");
    out->push_back(v.get<int64_t>());
  }
  return Status::Ok();
}

Status ReadElements(const JsonReader& in, const json& o, const char* key, const std::string& where,
                    std::vector<CompareElement>* out) {
  AV_ASSIGN_OR_RETURN(const json* arr, in.Array(o, key, where));
  for (size_t i = 0; arr != nullptr && i < arr->size(); ++i) {
    const std::string w = JsonReader::Index(JsonReader::Member(where, key), i);
    const json& e = (*arr)[i];
    if (!e.is_object()) return in.Error(w, "must be an object");
    CompareElement x;
    AV_RETURN_IF_ERROR(ReadInts(in, e, "index", w, &x.index));
    AV_RETURN_IF_ERROR(in.Int(e, "linear", w, &x.linear));
    AV_RETURN_IF_ERROR(in.Num(e, "candidate", w, &x.candidate));
    AV_RETURN_IF_ERROR(in.Num(e, "reference", w, &x.reference));
    AV_RETURN_IF_ERROR(in.Num(e, "abs", w, &x.abs));
    AV_RETURN_IF_ERROR(in.Num(e, "rel", w, &x.rel));
    out->push_back(std::move(x));
  }
  return Status::Ok();
}

Status ReadInput(const JsonReader& in, const json& o, const std::string& where,
                 CompareTensorInput* out) {
  if (!o.is_object()) return in.Error(where, "must be an object");
  AV_RETURN_IF_ERROR(in.Str(o, "spec", where, &out->spec));
  AV_RETURN_IF_ERROR(in.Str(o, "file_sha256", where, &out->file_sha256));
  AV_RETURN_IF_ERROR(in.Str(o, "dtype", where, &out->dtype));
  return ReadInts(in, o, "shape", where, &out->shape);
}

Status ReadCounts(const JsonReader& in, const json& o, const char* key, const std::string& where,
                  CompareNonFiniteCounts* out) {
  AV_ASSIGN_OR_RETURN(const json* c, in.Object(o, key, where));
  if (c == nullptr) return Status::Ok();
  const std::string w = JsonReader::Member(where, key);
  AV_RETURN_IF_ERROR(in.Int(*c, "nan", w, &out->nan));
  AV_RETURN_IF_ERROR(in.Int(*c, "pos_inf", w, &out->pos_inf));
  return in.Int(*c, "neg_inf", w, &out->neg_inf);
}

Status ReadBreakdown(const JsonReader& in, const json& block, const std::string& where,
                     CompareRecord* out) {
  AV_ASSIGN_OR_RETURN(const json* b, in.Object(block, "breakdown", where));
  if (b == nullptr) return Status::Ok();
  const std::string bw = where + ".breakdown";
  AV_RETURN_IF_ERROR(in.Str(*b, "of", bw, &out->breakdown_of));
  AV_ASSIGN_OR_RETURN(const json* axes, in.Array(*b, "axes", bw));
  for (size_t i = 0; axes != nullptr && i < axes->size(); ++i) {
    const std::string w = JsonReader::Index(bw + ".axes", i);
    const json& a = (*axes)[i];
    if (!a.is_object()) return in.Error(w, "must be an object");
    CompareAxis axis;
    AV_RETURN_IF_ERROR(in.Int(a, "axis", w, &axis.axis));
    AV_RETURN_IF_ERROR(in.Int(a, "size", w, &axis.size));
    AV_RETURN_IF_ERROR(in.Int(a, "bucket", w, &axis.bucket));
    AV_RETURN_IF_ERROR(in.Int(a, "indices_touched", w, &axis.indices_touched));
    AV_ASSIGN_OR_RETURN(const json* top, in.Array(a, "top", w));
    for (size_t k = 0; top != nullptr && k < top->size(); ++k) {
      const std::string tw = JsonReader::Index(w + ".top", k);
      if (!(*top)[k].is_object()) return in.Error(tw, "must be an object");
      CompareAxisShare s;
      AV_RETURN_IF_ERROR(in.Int((*top)[k], "begin", tw, &s.begin));
      AV_RETURN_IF_ERROR(in.Int((*top)[k], "end", tw, &s.end));
      AV_RETURN_IF_ERROR(in.Num((*top)[k], "amount", tw, &s.amount));
      AV_RETURN_IF_ERROR(in.Num((*top)[k], "fraction", tw, &s.fraction));
      axis.top.push_back(s);
    }
    out->breakdown.push_back(std::move(axis));
  }
  return Status::Ok();
}

}  // namespace

json JsonNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

json CompareToJson(const CompareRecord& r, bool standalone) {
  json j = json::object();
  if (standalone) {
    j["schema"] = kCompareJsonSchema;
    j["tool"] = {{"name", r.provenance.tool_name}, {"version", r.provenance.tool_version}};
    j["provenance"] = ProvenanceToJson(r.provenance);
  }
  j["verdict"] = r.passed ? "pass" : "fail";
  j["failures"] = r.failures;
  j["inputs"] = {
      {"candidate", InputJson(r.candidate)},
      {"reference", InputJson(r.reference)},
      {"lowprec_reference", r.lowprec_reference ? InputJson(*r.lowprec_reference) : json(nullptr)}};
  const CompareRuleRecord& rule = r.rule;
  j["rule"] = {{"name", rule.name},
               {"atol", rule.atol},
               {"rtol", rule.rtol},
               {"cos_tol", rule.cos_tol},
               {"k", rule.k},
               {"allow_nan", rule.allow_nan},
               {"equal_nan", rule.equal_nan},
               {"defaults_source", rule.defaults_source}};
  // Only with a row bound (cos_diff's row_rel_l2), so files without one are unchanged.
  if (rule.row_rel_l2) j["rule"]["row_rel_l2"] = *rule.row_rel_l2;
  j["numel"] = r.numel;
  const auto& m = r.metrics;
  j["metrics"] = {{"compared", m.compared},           {"max_abs", JsonNumber(m.max_abs)},
                  {"max_rel", JsonNumber(m.max_rel)}, {"mean_abs", JsonNumber(m.mean_abs)},
                  {"rmse", JsonNumber(m.rmse)},       {"cos_diff", JsonNumber(m.cos_diff)},
                  {"nmse", JsonNumber(m.nmse)}};
  j["rule_cos_diff"] = JsonNumber(r.rule_cos_diff);
  if (r.row_errors) {
    j["row_errors"] = {{"rows", r.row_errors->rows},
                       {"over", r.row_errors->over},
                       {"worst", JsonNumber(r.row_errors->worst)},
                       {"worst_row", r.row_errors->worst_row}};
  }
  j["mismatches"] = {{"defined", r.mismatches.defined},
                     {"count", r.mismatches.count},
                     {"fraction", JsonNumber(r.mismatches.fraction)},
                     {"nonfinite", r.mismatches.nonfinite}};
  j["lowprec"] = {{"max_abs", JsonNumber(r.lowprec.max_abs)},
                  {"threshold", JsonNumber(r.lowprec.threshold)}};
  j["nonfinite"] = {{"candidate", CountsJson(r.nonfinite.candidate)},
                    {"reference", CountsJson(r.nonfinite.reference)},
                    {"position_mismatches", r.nonfinite.position_mismatches},
                    {"first_mismatches", Elements(r.nonfinite.first_mismatches)},
                    {"excluded", r.nonfinite.excluded}};
  j["worst_abs"] = Elements(r.worst_abs);
  j["worst_rel"] = Elements(r.worst_rel);
  json axes = json::array();
  for (const CompareAxis& a : r.breakdown) {
    json top = json::array();
    for (const CompareAxisShare& s : a.top) {
      top.push_back({{"begin", s.begin},
                     {"end", s.end},
                     {"amount", JsonNumber(s.amount)},
                     {"fraction", JsonNumber(s.fraction)}});
    }
    axes.push_back({{"axis", a.axis},
                    {"size", a.size},
                    {"bucket", a.bucket},
                    {"indices_touched", a.indices_touched},
                    {"top", std::move(top)}});
  }
  j["breakdown"] = {{"of", r.breakdown_of}, {"axes", std::move(axes)}};
  return j;
}

Status ReadCompare(const JsonReader& in, const json& c, const std::string& w, CompareRecord* out) {
  if (!c.is_object()) return in.Error(w, "must be an object");
  std::string verdict;
  AV_RETURN_IF_ERROR(in.Str(c, "verdict", w, &verdict));
  if (!verdict.empty() && verdict != "pass" && verdict != "fail")
    return in.Error(w + ".verdict", "must be \"pass\" or \"fail\", got \"" + verdict + "\"");
  out->passed = verdict == "pass";
  AV_RETURN_IF_ERROR(in.Strings(c, "failures", w, &out->failures));
  AV_ASSIGN_OR_RETURN(const json* inputs, in.Object(c, "inputs", w));
  if (inputs != nullptr) {
    const std::string iw = w + ".inputs";
    if (const json* v = JsonReader::Get(*inputs, "candidate"))
      AV_RETURN_IF_ERROR(ReadInput(in, *v, iw + ".candidate", &out->candidate));
    if (const json* v = JsonReader::Get(*inputs, "reference"))
      AV_RETURN_IF_ERROR(ReadInput(in, *v, iw + ".reference", &out->reference));
    if (const json* v = JsonReader::Get(*inputs, "lowprec_reference")) {
      out->lowprec_reference.emplace();
      AV_RETURN_IF_ERROR(ReadInput(in, *v, iw + ".lowprec_reference", &*out->lowprec_reference));
    }
  }
  AV_ASSIGN_OR_RETURN(const json* rule, in.Object(c, "rule", w));
  if (rule != nullptr) {
    const std::string rw = w + ".rule";
    CompareRuleRecord& r = out->rule;
    AV_RETURN_IF_ERROR(in.Str(*rule, "name", rw, &r.name));
    for (auto [key, field] :
         {std::pair{"atol", &r.atol}, {"rtol", &r.rtol}, {"cos_tol", &r.cos_tol}, {"k", &r.k}}) {
      AV_RETURN_IF_ERROR(in.Num(*rule, key, rw, field));
    }
    AV_RETURN_IF_ERROR(in.Bool(*rule, "allow_nan", rw, &r.allow_nan));
    AV_RETURN_IF_ERROR(in.Bool(*rule, "equal_nan", rw, &r.equal_nan));
    AV_RETURN_IF_ERROR(in.Str(*rule, "defaults_source", rw, &r.defaults_source));
    if (JsonReader::Get(*rule, "row_rel_l2") != nullptr) {
      double bound = 0;
      AV_RETURN_IF_ERROR(in.Num(*rule, "row_rel_l2", rw, &bound));
      r.row_rel_l2 = bound;
    }
  }
  AV_RETURN_IF_ERROR(in.Int(c, "numel", w, &out->numel));
  AV_ASSIGN_OR_RETURN(const json* m, in.Object(c, "metrics", w));
  if (m != nullptr) {
    auto& x = out->metrics;
    AV_RETURN_IF_ERROR(in.Int(*m, "compared", w + ".metrics", &x.compared));
    for (auto [key, field] : {std::pair{"max_abs", &x.max_abs},
                              {"max_rel", &x.max_rel},
                              {"mean_abs", &x.mean_abs},
                              {"rmse", &x.rmse},
                              {"cos_diff", &x.cos_diff},
                              {"nmse", &x.nmse}}) {
      AV_RETURN_IF_ERROR(in.Num(*m, key, w + ".metrics", field));
    }
  }
  AV_RETURN_IF_ERROR(in.Num(c, "rule_cos_diff", w, &out->rule_cos_diff));
  AV_ASSIGN_OR_RETURN(const json* rows, in.Object(c, "row_errors", w));
  if (rows != nullptr) {
    const std::string rw = w + ".row_errors";
    CompareRowErrors& e = out->row_errors.emplace();
    AV_RETURN_IF_ERROR(in.Int(*rows, "rows", rw, &e.rows));
    AV_RETURN_IF_ERROR(in.Int(*rows, "over", rw, &e.over));
    AV_RETURN_IF_ERROR(in.Num(*rows, "worst", rw, &e.worst));
    AV_RETURN_IF_ERROR(ReadInts(in, *rows, "worst_row", rw, &e.worst_row));
  }
  AV_ASSIGN_OR_RETURN(const json* mm, in.Object(c, "mismatches", w));
  if (mm != nullptr) {
    const std::string mw = w + ".mismatches";
    AV_RETURN_IF_ERROR(in.Bool(*mm, "defined", mw, &out->mismatches.defined));
    AV_RETURN_IF_ERROR(in.Int(*mm, "count", mw, &out->mismatches.count));
    AV_RETURN_IF_ERROR(in.Num(*mm, "fraction", mw, &out->mismatches.fraction));
    AV_RETURN_IF_ERROR(in.Int(*mm, "nonfinite", mw, &out->mismatches.nonfinite));
  }
  AV_ASSIGN_OR_RETURN(const json* lp, in.Object(c, "lowprec", w));
  if (lp != nullptr) {
    AV_RETURN_IF_ERROR(in.Num(*lp, "max_abs", w + ".lowprec", &out->lowprec.max_abs));
    AV_RETURN_IF_ERROR(in.Num(*lp, "threshold", w + ".lowprec", &out->lowprec.threshold));
  }
  AV_ASSIGN_OR_RETURN(const json* nf, in.Object(c, "nonfinite", w));
  if (nf != nullptr) {
    const std::string nw = w + ".nonfinite";
    AV_RETURN_IF_ERROR(ReadCounts(in, *nf, "candidate", nw, &out->nonfinite.candidate));
    AV_RETURN_IF_ERROR(ReadCounts(in, *nf, "reference", nw, &out->nonfinite.reference));
    AV_RETURN_IF_ERROR(in.Int(*nf, "position_mismatches", nw, &out->nonfinite.position_mismatches));
    AV_RETURN_IF_ERROR(
        ReadElements(in, *nf, "first_mismatches", nw, &out->nonfinite.first_mismatches));
    AV_RETURN_IF_ERROR(in.Int(*nf, "excluded", nw, &out->nonfinite.excluded));
  }
  AV_RETURN_IF_ERROR(ReadElements(in, c, "worst_abs", w, &out->worst_abs));
  AV_RETURN_IF_ERROR(ReadElements(in, c, "worst_rel", w, &out->worst_rel));
  return ReadBreakdown(in, c, w, out);
}

Result<CompareRecord> ParseCompare(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  AV_RETURN_IF_ERROR(in.CheckSchema(doc, {kCompareJsonSchema, kCompareJsonSchemaV1}, false));
  CompareRecord r;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &r.provenance, &r.has_provenance));
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &r.legacy_command));
  AV_RETURN_IF_ERROR(ReadCompare(in, doc, "$", &r));
  return r;
}

}  // namespace av
