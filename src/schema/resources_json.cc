#include "schema/resources_json.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_dump.h"
#include "core/json_reader.h"

namespace av {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 4> kResourcesStatuses = {"ok", "rejected", "incomplete",
                                                             "missing"};

// A build gate's word: pass, fail or missing (a build gate is never n/a).
std::optional<CheckStatus> GateStatusOf(std::string_view word) {
  std::optional<CheckStatus> s = ParseGateStatus(word);
  if (s == CheckStatus::kNotApplicable) return std::nullopt;
  return s;
}

json OrNull(int64_t v) { return v < 0 ? json() : json(v); }
json OrNull(const std::string& s) { return s.empty() ? json() : json(s); }

json SideJson(const ResourcesKernelSide& k) {
  json j = {{"mangled", k.mangled},
            {"registers", OrNull(k.registers)},
            {"barriers", OrNull(k.barriers)},
            {"stack_frame_bytes", OrNull(k.stack_frame_bytes)},
            {"cumulative_stack_bytes", OrNull(k.cumulative_stack_bytes)},
            {"spill_store_bytes", OrNull(k.spill_store_bytes)},
            {"spill_load_bytes", OrNull(k.spill_load_bytes)},
            {"static_smem_bytes", OrNull(k.static_smem_bytes)},
            {"dynamic_smem_bytes", OrNull(k.dynamic_smem_bytes)},
            {"total_smem_bytes", OrNull(k.total_smem_bytes)},
            {"smem_cap_bytes", OrNull(k.smem_cap_bytes)},
            {"block_size", k.block_size > 0 ? json(k.block_size) : json()}};
  if (k.smem_headroom_bytes) j["smem_headroom_bytes"] = *k.smem_headroom_bytes;
  if (k.smem_headroom_pct) j["smem_headroom_pct"] = *k.smem_headroom_pct;
  if (k.bad_count) j["bad_count"] = true;
  if (k.ptxas_overflow) {
    j["ptxas_overflow"] = {{"bytes", k.overflow_bytes},
                           {"max_bytes", k.overflow_max_bytes},
                           {"over_by_bytes", k.overflow_bytes - k.overflow_max_bytes}};
  }
  if (k.occupancy) {
    const ResourcesOccupancy& o = *k.occupancy;
    j["occupancy"] = {{"blocks_per_sm", o.blocks_per_sm},
                      {"warps_per_sm", o.warps_per_sm},
                      {"occupancy", o.occupancy},
                      {"limited_by", o.limited_by},
                      {"smem_allocated_per_block", o.smem_allocated_per_block},
                      {"registers_allocated_per_block", o.registers_allocated_per_block}};
    if (!o.reason.empty()) j["occupancy"]["reason"] = o.reason;
  } else {
    j["occupancy"] = nullptr;
    j["occupancy_note"] = k.occupancy_note;
  }
  return j;
}

json RevisionJson(const ResourcesRevision& r) {
  return {{"ref", r.ref},
          {"commit", OrNull(r.commit)},
          {"log", r.log},
          {"commands", r.commands},
          {"exit_codes", r.exit_codes},
          {"errors", r.errors},
          {"truncated", r.truncated}};
}

json DiagnosticJson(const ResourcesDiagnostic& d) {
  json j = {{"severity", SeverityName(d.severity)},
            {"kind", d.kind},
            {"tool", d.tool},
            {"message", d.message},
            {"log_line", d.log_line}};
  if (!d.function.empty()) j["function"] = d.function;
  if (!d.arch.empty()) j["arch"] = d.arch;
  if (!d.file.empty()) j["file"] = d.file, j["line"] = d.line;
  if (d.bytes >= 0) j["bytes"] = d.bytes;
  if (d.max_bytes >= 0) j["max_bytes"] = d.max_bytes;
  return j;
}

// ---- reading ----

Status ReadSeverity(const JsonReader& in, const json& o, const std::string& w, Severity* out) {
  std::string s = SeverityName(*out);
  AV_RETURN_IF_ERROR(in.Str(o, "severity", w, &s));
  std::optional<Severity> v = ParseSeverity(s);
  if (!v)
    return in.Error(w + ".severity",
                    std::string("must be ") + SeverityWords() + ", got \"" + s + "\"");
  *out = *v;
  return Status::Ok();
}

Status ReadSide(const JsonReader& in, const json& k, const std::string& where,
                ResourcesKernelSide* s) {
  if (!k.is_object()) return in.Error(where, "must be an object");
  AV_RETURN_IF_ERROR(in.Str(k, "mangled", where, &s->mangled));
  for (auto [key, field] : {std::pair{"registers", &s->registers},
                            {"barriers", &s->barriers},
                            {"stack_frame_bytes", &s->stack_frame_bytes},
                            {"cumulative_stack_bytes", &s->cumulative_stack_bytes},
                            {"spill_store_bytes", &s->spill_store_bytes},
                            {"spill_load_bytes", &s->spill_load_bytes},
                            {"static_smem_bytes", &s->static_smem_bytes},
                            {"dynamic_smem_bytes", &s->dynamic_smem_bytes},
                            {"total_smem_bytes", &s->total_smem_bytes},
                            {"smem_cap_bytes", &s->smem_cap_bytes},
                            {"block_size", &s->block_size}}) {
    AV_RETURN_IF_ERROR(in.Int(k, key, where, field));
  }
  if (JsonReader::Get(k, "smem_headroom_bytes") != nullptr) {
    int64_t v = 0;
    AV_RETURN_IF_ERROR(in.Int(k, "smem_headroom_bytes", where, &v));
    s->smem_headroom_bytes = v;
  }
  if (JsonReader::Get(k, "smem_headroom_pct") != nullptr) {
    double v = 0;
    AV_RETURN_IF_ERROR(in.Num(k, "smem_headroom_pct", where, &v));
    s->smem_headroom_pct = v;
  }
  AV_ASSIGN_OR_RETURN(const json* ov, in.Object(k, "ptxas_overflow", where));
  if (ov != nullptr) {
    s->ptxas_overflow = true;
    AV_RETURN_IF_ERROR(in.Int(*ov, "bytes", where + ".ptxas_overflow", &s->overflow_bytes));
    AV_RETURN_IF_ERROR(in.Int(*ov, "max_bytes", where + ".ptxas_overflow", &s->overflow_max_bytes));
  }
  AV_ASSIGN_OR_RETURN(const json* occ, in.Object(k, "occupancy", where));
  if (occ != nullptr) {
    const std::string w = where + ".occupancy";
    ResourcesOccupancy o;
    for (auto [key, field] :
         {std::pair{"blocks_per_sm", &o.blocks_per_sm},
          {"warps_per_sm", &o.warps_per_sm},
          {"smem_allocated_per_block", &o.smem_allocated_per_block},
          {"registers_allocated_per_block", &o.registers_allocated_per_block}}) {
      AV_RETURN_IF_ERROR(in.Int(*occ, key, w, field));
    }
    AV_RETURN_IF_ERROR(in.Num(*occ, "occupancy", w, &o.occupancy));
    AV_RETURN_IF_ERROR(in.Str(*occ, "limited_by", w, &o.limited_by));
    AV_RETURN_IF_ERROR(in.Str(*occ, "reason", w, &o.reason));
    s->occupancy = std::move(o);
  }
  AV_RETURN_IF_ERROR(in.Bool(k, "bad_count", where, &s->bad_count));
  return in.Str(k, "occupancy_note", where, &s->occupancy_note);
}

Status ReadRevision(const JsonReader& in, const json& r, const std::string& w,
                    ResourcesRevision* out) {
  if (!r.is_object()) return in.Error(w, "must be an object");
  AV_RETURN_IF_ERROR(in.Str(r, "ref", w, &out->ref));
  AV_RETURN_IF_ERROR(in.Str(r, "commit", w, &out->commit));
  AV_RETURN_IF_ERROR(in.Str(r, "log", w, &out->log));
  AV_RETURN_IF_ERROR(in.Int(r, "errors", w, &out->errors));
  AV_RETURN_IF_ERROR(in.Bool(r, "truncated", w, &out->truncated));
  AV_ASSIGN_OR_RETURN(const json* cmds, in.Array(r, "commands", w));
  for (size_t i = 0; cmds != nullptr && i < cmds->size(); ++i) {
    const std::string cw = JsonReader::Index(w + ".commands", i);
    const json& c = (*cmds)[i];
    if (!c.is_array()) return in.Error(cw, "must be an argv array");
    std::vector<std::string> argv;
    for (size_t k = 0; k < c.size(); ++k) {
      if (!c[k].is_string()) return in.Error(JsonReader::Index(cw, k), "must be a string");
      argv.push_back(c[k].get<std::string>());
    }
    out->commands.push_back(std::move(argv));
  }
  AV_ASSIGN_OR_RETURN(const json* codes, in.Array(r, "exit_codes", w));
  for (size_t i = 0; codes != nullptr && i < codes->size(); ++i) {
    if (!(*codes)[i].is_number_integer())
      return in.Error(JsonReader::Index(w + ".exit_codes", i), "must be an integer");
    out->exit_codes.push_back((*codes)[i].get<int64_t>());
  }
  return Status::Ok();
}

Status ReadKernels(const JsonReader& in, const json& doc, ResourcesRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* kernels, in.Array(doc, "kernels", "$"));
  for (size_t i = 0; kernels != nullptr && i < kernels->size(); ++i) {
    const json& k = (*kernels)[i];
    const std::string w = JsonReader::Index("$.kernels", i);
    if (!k.is_object()) return in.Error(w, "must be an object");
    ResourcesKernelRow row;
    for (auto [key, field] : {std::pair{"kernel", &row.kernel},
                              {"arch", &row.arch},
                              {"change", &row.change},
                              {"pairing", &row.pairing}}) {
      AV_RETURN_IF_ERROR(in.Str(k, key, w, field));
    }
    if (const json* b = JsonReader::Get(k, "base")) {
      row.base.emplace();
      AV_RETURN_IF_ERROR(ReadSide(in, *b, w + ".base", &*row.base));
    }
    if (const json* h = JsonReader::Get(k, "head")) {
      row.head.emplace();
      AV_RETURN_IF_ERROR(ReadSide(in, *h, w + ".head", &*row.head));
    }
    r->kernels.push_back(std::move(row));
  }
  return Status::Ok();
}

Status ReadGates(const JsonReader& in, const json& doc, ResourcesRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* gates, in.Array(doc, "gates", "$"));
  for (size_t i = 0; gates != nullptr && i < gates->size(); ++i) {
    const json& g = (*gates)[i];
    const std::string w = JsonReader::Index("$.gates", i);
    if (!g.is_object()) return in.Error(w, "must be an object");
    ResourcesGate row;
    std::string status;
    for (auto [key, field] : {std::pair{"gate", &row.gate},
                              {"rule", &row.rule},
                              {"status", &status},
                              {"reason", &row.reason}}) {
      AV_RETURN_IF_ERROR(in.Str(g, key, w, field));
    }
    AV_RETURN_IF_ERROR(in.Bool(g, "enabled", w, &row.enabled));
    AV_RETURN_IF_ERROR(in.Bool(g, "skipped", w, &row.skipped));
    AV_RETURN_IF_ERROR(in.Bool(g, "passed", w, &row.passed));
    AV_RETURN_IF_ERROR(in.Strings(g, "failures", w, &row.failures));
    AV_RETURN_IF_ERROR(in.Int(g, "judged", w, &row.judged));
    if (row.gate.empty()) return in.Error(w + ".gate", "missing");
    if (!status.empty()) {
      row.status = GateStatusOf(status);
      if (!row.status) {
        return in.Error(w + ".status",
                        "must be \"pass\", \"fail\" or \"missing\", got \"" + status + "\"");
      }
    }
    r->gates.push_back(std::move(row));
  }
  return Status::Ok();
}

Status ReadFindings(const JsonReader& in, const json& doc, ResourcesRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* findings, in.Array(doc, "findings", "$"));
  for (size_t i = 0; findings != nullptr && i < findings->size(); ++i) {
    const json& f = (*findings)[i];
    const std::string w = JsonReader::Index("$.findings", i);
    if (!f.is_object()) return in.Error(w, "must be an object");
    ResourcesFinding x;
    AV_RETURN_IF_ERROR(ReadSeverity(in, f, w, &x.severity));
    for (auto [key, field] : {std::pair{"kind", &x.kind},
                              {"message", &x.message},
                              {"file", &x.file},
                              {"kernel", &x.kernel}}) {
      AV_RETURN_IF_ERROR(in.Str(f, key, w, field));
    }
    AV_RETURN_IF_ERROR(in.Int(f, "line", w, &x.line));
    r->findings.push_back(std::move(x));
  }
  AV_ASSIGN_OR_RETURN(const json* diags, in.Array(doc, "diagnostics", "$"));
  for (size_t i = 0; diags != nullptr && i < diags->size(); ++i) {
    const json& d = (*diags)[i];
    const std::string w = JsonReader::Index("$.diagnostics", i);
    if (!d.is_object()) return in.Error(w, "must be an object");
    ResourcesDiagnostic x;
    AV_RETURN_IF_ERROR(ReadSeverity(in, d, w, &x.severity));
    for (auto [key, field] : {std::pair{"kind", &x.kind},
                              {"tool", &x.tool},
                              {"message", &x.message},
                              {"function", &x.function},
                              {"arch", &x.arch},
                              {"file", &x.file}}) {
      AV_RETURN_IF_ERROR(in.Str(d, key, w, field));
    }
    for (auto [key, field] : {std::pair{"line", &x.line},
                              {"log_line", &x.log_line},
                              {"bytes", &x.bytes},
                              {"max_bytes", &x.max_bytes}}) {
      AV_RETURN_IF_ERROR(in.Int(d, key, w, field));
    }
    r->diagnostics.push_back(std::move(x));
  }
  return Status::Ok();
}

json KernelRowJson(const ResourcesKernelRow& row) {
  return {{"kernel", row.kernel},
          {"arch", row.arch},
          {"change", row.change},
          {"pairing", OrNull(row.pairing)},
          {"base", row.base ? SideJson(*row.base) : json()},
          {"head", row.head ? SideJson(*row.head) : json()}};
}

// Everything but the kernel rows (an empty array in their place).
json ResourcesJsonWithoutKernels(const ResourcesRecord& r) {
  json gates = json::array();
  for (const ResourcesGate& g : r.gates) {
    // "skipped" and "passed" say the same as "status" for readers of the first format.
    gates.push_back({{"gate", g.gate},
                     {"enabled", g.enabled},
                     {"status", g.status ? GateStatusName(*g.status) : ""},
                     {"reason", g.reason},
                     {"judged", g.judged},
                     {"skipped", g.skipped},
                     {"passed", g.passed},
                     {"rule", g.rule},
                     {"failures", g.failures}});
  }
  json unmatched = json::array();
  for (const ResourcesUnmatchedEntry& u : r.unmatched_kernel_entries) {
    unmatched.push_back(
        {{"name", u.name},
         {"line", u.line},
         {"dynamic_smem_bytes", u.dynamic_smem_bytes ? json(*u.dynamic_smem_bytes) : json()},
         {"matches_base", u.matches_base}});
  }
  json findings = json::array();
  for (const ResourcesFinding& f : r.findings) {
    json j = {{"severity", SeverityName(f.severity)}, {"kind", f.kind}, {"message", f.message}};
    if (!f.file.empty()) j["file"] = f.file, j["line"] = f.line;
    if (!f.kernel.empty()) j["kernel"] = f.kernel;
    findings.push_back(std::move(j));
  }
  json diags = json::array();
  for (const ResourcesDiagnostic& d : r.diagnostics) diags.push_back(DiagnosticJson(d));
  return {{"schema", kResourcesJsonSchema},
          {"tool", {{"name", "attnverify"}, {"version", r.provenance.tool_version}}},
          {"provenance", ProvenanceToJson(r.provenance)},
          {"status", ResourcesStatusName(r.status)},
          {"missing_reason", OrNull(r.missing_reason)},
          {"nvcc", {{"path", OrNull(r.nvcc_path)}, {"version", OrNull(r.nvcc_version)}}},
          {"archs", r.archs},
          {"head", RevisionJson(r.head)},
          {"base", r.base ? RevisionJson(*r.base) : json()},
          {"kernels", json::array()},
          {"findings", std::move(findings)},
          {"gates", std::move(gates)},
          {"diagnostics", std::move(diags)},
          {"warnings", r.warnings},
          {"unmatched_kernel_entries", std::move(unmatched)}};
}

Status ReadUnmatched(const JsonReader& in, const json& doc, ResourcesRecord* r) {
  AV_ASSIGN_OR_RETURN(const json* list, in.Array(doc, "unmatched_kernel_entries", "$"));
  for (size_t i = 0; list != nullptr && i < list->size(); ++i) {
    const json& u = (*list)[i];
    const std::string w = JsonReader::Index("$.unmatched_kernel_entries", i);
    if (!u.is_object()) return in.Error(w, "must be an object");
    ResourcesUnmatchedEntry x;
    AV_RETURN_IF_ERROR(in.Str(u, "name", w, &x.name));
    AV_RETURN_IF_ERROR(in.Int(u, "line", w, &x.line));
    if (const json* d = JsonReader::Get(u, "dynamic_smem_bytes"); d != nullptr && !d->is_null()) {
      int64_t v = 0;
      AV_RETURN_IF_ERROR(in.Int(u, "dynamic_smem_bytes", w, &v));
      x.dynamic_smem_bytes = v;
    }
    AV_RETURN_IF_ERROR(in.Bool(u, "matches_base", w, &x.matches_base));
    if (x.name.empty()) return in.Error(w + ".name", "missing");
    r->unmatched_kernel_entries.push_back(std::move(x));
  }
  return Status::Ok();
}

}  // namespace

const char* ResourcesStatusName(ResourcesStatus s) {
  return kResourcesStatuses[static_cast<size_t>(s)];
}

std::optional<ResourcesStatus> ParseResourcesStatus(std::string_view word) {
  for (size_t i = 0; i < kResourcesStatuses.size(); ++i) {
    if (word == kResourcesStatuses[i]) return static_cast<ResourcesStatus>(i);
  }
  return std::nullopt;
}

json ResourcesToJson(const ResourcesRecord& r) {
  json j = ResourcesJsonWithoutKernels(r);
  for (const ResourcesKernelRow& row : r.kernels) j["kernels"].push_back(KernelRowJson(row));
  return j;
}

std::string ResourcesToJsonText(const ResourcesRecord& r) {
  json top = ResourcesJsonWithoutKernels(r);
  const std::string placeholder = "@@attnverify-kernels@@";
  top["kernels"] = placeholder;
  std::string text = JsonFileText(top);
  // The key at depth 1 starts a line; inside a string a quote or newline is escaped, so
  // this is the one place the placeholder can be.
  const std::string slot = "\n  \"kernels\": \"" + placeholder + "\"";
  const size_t at = text.find(slot);
  if (r.kernels.empty()) return text.replace(at, slot.size(), "\n  \"kernels\": []");
  // The rows sit at depth 2 of the file: each line of a row's dump gets 4 more spaces.
  std::string out = text.substr(0, at) + "\n  \"kernels\": [\n";
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const std::string one = DumpJson(KernelRowJson(r.kernels[i]), 2);
    // Rows are alike: room for all of them at once, 25% to spare, so a large file is not
    // regrown by doubling (which held 1.5x its size: 1.6 GB for 300,000 kernels).
    if (i == 0) out.reserve(text.size() + r.kernels.size() * (one.size() * 5 / 4 + 64));
    out += "    ";
    for (char c : one) {
      out += c;
      if (c == '\n') out += "    ";
    }
    out += i + 1 < r.kernels.size() ? ",\n" : "\n";
  }
  out += "  ]";
  out.append(text, at + slot.size(), std::string::npos);
  return out;
}

Result<ResourcesRecord> ParseResources(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  AV_RETURN_IF_ERROR(
      in.CheckSchema(doc, {kResourcesJsonSchema, kResourcesJsonSchemaV1}, /*absent_ok=*/true));
  ResourcesRecord r;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &r.provenance, &r.has_provenance));
  AV_ASSIGN_OR_RETURN(const json* tool, in.Object(doc, "tool", "$"));
  if (tool != nullptr) AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &r.tool_version));
  std::string status;
  AV_RETURN_IF_ERROR(in.Str(doc, "status", "$", &status));
  if (status.empty()) return in.Error("$.status", "missing (not a resources evidence file?)");
  std::optional<ResourcesStatus> parsed = ParseResourcesStatus(status);
  if (!parsed) {
    return in.Error("$.status",
                    "must be \"ok\", \"rejected\", \"incomplete\" or \"missing\", got \"" +
                        status + "\"");
  }
  r.status = *parsed;
  AV_RETURN_IF_ERROR(in.Str(doc, "missing_reason", "$", &r.missing_reason));
  AV_ASSIGN_OR_RETURN(const json* nvcc, in.Object(doc, "nvcc", "$"));
  if (nvcc != nullptr) {
    AV_RETURN_IF_ERROR(in.Str(*nvcc, "path", "$.nvcc", &r.nvcc_path));
    AV_RETURN_IF_ERROR(in.Str(*nvcc, "version", "$.nvcc", &r.nvcc_version));
  }
  AV_RETURN_IF_ERROR(in.Strings(doc, "archs", "$", &r.archs));
  if (const json* head = JsonReader::Get(doc, "head"))
    AV_RETURN_IF_ERROR(ReadRevision(in, *head, "$.head", &r.head));
  if (const json* base = JsonReader::Get(doc, "base")) {
    r.base.emplace();
    AV_RETURN_IF_ERROR(ReadRevision(in, *base, "$.base", &*r.base));
  }
  AV_RETURN_IF_ERROR(ReadKernels(in, doc, &r));
  AV_RETURN_IF_ERROR(ReadGates(in, doc, &r));
  AV_RETURN_IF_ERROR(ReadFindings(in, doc, &r));
  AV_RETURN_IF_ERROR(in.Strings(doc, "warnings", "$", &r.warnings));
  AV_RETURN_IF_ERROR(ReadUnmatched(in, doc, &r));
  return r;
}

}  // namespace av
