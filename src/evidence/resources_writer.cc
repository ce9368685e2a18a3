#include "evidence/resources_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "evidence/demangle.h"
#include "evidence/ptxas_log_json.h"

namespace av {
namespace {

using nlohmann::json;

json OrNull(int64_t v) { return v < 0 ? json() : json(v); }

json KernelJson(const KernelResources& k) {
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
  if (k.smem_cap_bytes >= 0 && k.total_smem_bytes >= 0) {
    j["smem_headroom_bytes"] = k.smem_headroom_bytes;
    j["smem_headroom_pct"] = std::round(k.smem_headroom_pct * 100) / 100;
  }
  if (k.bad_count) j["bad_count"] = true;
  if (k.ptxas_overflow) {
    j["ptxas_overflow"] = {{"bytes", k.overflow_bytes},
                           {"max_bytes", k.overflow_max_bytes},
                           {"over_by_bytes", k.overflow_bytes - k.overflow_max_bytes}};
  }
  if (k.occupancy) {
    const Occupancy& o = *k.occupancy;
    j["occupancy"] = {{"blocks_per_sm", o.blocks_per_sm},
                      {"warps_per_sm", o.warps_per_sm},
                      {"occupancy", std::round(o.occupancy * 10000) / 10000},
                      {"limited_by", OccupancyLimiterName(o.limiter)},
                      {"smem_allocated_per_block", o.smem_allocated_per_block},
                      {"registers_allocated_per_block", o.registers_allocated_per_block}};
    if (!o.reason.empty()) j["occupancy"]["reason"] = o.reason;
  } else {
    j["occupancy"] = nullptr;
    j["occupancy_note"] = k.occupancy_note;
  }
  return j;
}

json RevisionJson(const RevisionInfo& r) {
  return {{"ref", r.ref},
          {"commit", r.commit.empty() ? json() : json(r.commit)},
          {"log", r.log_path},
          {"commands", r.commands},
          {"exit_codes", r.exit_codes},
          {"errors", r.errors},
          {"truncated", r.truncated}};
}

// The demangled name without its return type: "tile_copy<128>(float const*, float*, int)".
std::string WithoutReturnType(const std::string& demangled) {
  std::string shortname = KernelShortName(demangled);
  size_t at = shortname.empty() ? std::string::npos : demangled.find(shortname);
  return at == std::string::npos ? demangled : demangled.substr(at);
}

// `s` without namespace qualifiers ("cutlass::bfloat16_t" -> "bfloat16_t").
std::string DropQualifiers(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    if (j > i && s.compare(j, 2, "::") == 0) {
      i = j + 2;  // a qualifier: dropped
    } else if (j > i) {
      out.append(s, i, j - i);
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// Names for the table's kernel column: shortened where that keeps every row's name
// distinct (ten instantiations must not print as one prefix), in full where it would not.
std::vector<std::string> DisplayNames(const std::vector<KernelRow>& rows) {
  constexpr size_t kWidth = 72;
  std::vector<std::string> full, shown;
  for (const KernelRow& row : rows) {
    full.push_back(WithoutReturnType(row.demangled));
    std::string s = full.back();
    if (s.size() > kWidth) s = DropQualifiers(s);
    if (s.size() > kWidth)
      s = s.substr(0, kWidth / 2 - 2) + "..." + s.substr(s.size() - kWidth / 2 + 1);
    shown.push_back(s);
  }
  std::map<std::string, std::set<std::string>> fulls_of;  // shown name -> the names it stands for
  for (size_t i = 0; i < rows.size(); ++i) fulls_of[shown[i]].insert(full[i]);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (fulls_of[shown[i]].size() > 1) shown[i] = full[i];
  }
  return shown;
}

std::string Num(int64_t v) { return v < 0 ? "?" : std::to_string(v); }

// "a" when equal or one side is missing, else "a -> b".
std::string Pair(const std::optional<KernelResources>& b, const std::optional<KernelResources>& h,
                 const std::function<std::string(const KernelResources&)>& f) {
  if (!h) return b ? f(*b) + " -> -" : "";
  if (!b) return f(*h);
  std::string x = f(*b), y = f(*h);
  return x == y ? y : x + " -> " + y;
}

std::string SmemCell(const KernelResources& k) {
  std::string s = Num(k.static_smem_bytes);
  if (k.dynamic_smem_bytes >= 0) s += "+" + std::to_string(k.dynamic_smem_bytes);
  return s;
}

std::string HeadroomCell(const KernelResources& k) {
  if (k.ptxas_overflow)
    return "over by " + std::to_string(k.overflow_bytes - k.overflow_max_bytes) + " (ptxas)";
  if (k.smem_cap_bytes < 0 || k.total_smem_bytes < 0) return "?";
  if (k.smem_headroom_bytes < 0) return "over by " + std::to_string(-k.smem_headroom_bytes);
  return fmt::format("{} ({:.1f}%)", k.smem_headroom_bytes, k.smem_headroom_pct);
}

std::string OccupancyCell(const KernelResources& k) {
  if (!k.occupancy) return "-";
  return fmt::format("{} ({})", k.occupancy->warps_per_sm,
                     OccupancyLimiterName(k.occupancy->limiter));
}

json KernelRowJson(const KernelRow& row) {
  const char* pairing = KernelPairingName(row.pairing);
  return {{"kernel", row.demangled},
          {"arch", row.arch},
          {"change", KernelChangeName(row.change)},
          {"pairing", *pairing ? json(pairing) : json()},
          {"base", row.base ? KernelJson(*row.base) : json()},
          {"head", row.head ? KernelJson(*row.head) : json()}};
}

// Everything but the kernel rows.
json ReportJsonWithoutKernels(const ResourcesReport& r, const std::string& tool_version) {
  json gates = json::array();
  for (const GateResult& g : r.gates) {
    // "skipped" and "passed" say the same as "status" for readers of the first format.
    gates.push_back({{"gate", g.name},
                     {"enabled", g.enabled},
                     {"status", GateStatusName(g.status)},
                     {"reason", g.reason},
                     {"judged", g.judged},
                     {"skipped", g.missing()},
                     {"passed", g.passed()},
                     {"rule", g.rule},
                     {"failures", g.failures}});
  }
  json unmatched = json::array();
  for (const UnmatchedKernelEntry& u : r.unmatched_kernel_entries) {
    unmatched.push_back(
        {{"name", u.name},
         {"line", u.line},
         {"dynamic_smem_bytes", u.dynamic_smem_bytes ? json(*u.dynamic_smem_bytes) : json()},
         {"matches_base", u.matches_base}});
  }
  json findings = json::array();
  for (const BuildFinding& f : r.findings) {
    json j = {{"severity", SeverityName(f.severity)}, {"kind", f.kind}, {"message", f.message}};
    if (!f.file.empty()) j["file"] = f.file, j["line"] = f.line;
    if (!f.kernel.empty()) j["kernel"] = f.kernel;
    findings.push_back(j);
  }
  json diags = json::array();
  for (const PtxasDiagnostic& d : r.diagnostics) diags.push_back(PtxasDiagnosticToJson(d));
  return {{"schema", kResourcesJsonSchema},
          {"tool", {{"name", "attnverify"}, {"version", tool_version}}},
          {"status", r.status},
          {"missing_reason", r.missing_reason.empty() ? json() : json(r.missing_reason)},
          {"nvcc",
           {{"path", r.nvcc_path.empty() ? json() : json(r.nvcc_path)},
            {"version", r.nvcc_version.empty() ? json() : json(r.nvcc_version)}}},
          {"archs", r.archs},
          {"head", RevisionJson(r.head)},
          {"base", r.base ? RevisionJson(*r.base) : json()},
          {"kernels", json::array()},
          {"findings", findings},
          {"warnings", r.warnings},
          {"unmatched_kernel_entries", unmatched},
          {"gates", gates},
          {"diagnostics", diags}};
}

}  // namespace

json ResourcesReportToJson(const ResourcesReport& r, const std::string& tool_version) {
  json j = ReportJsonWithoutKernels(r, tool_version);
  for (const KernelRow& row : r.kernels) j["kernels"].push_back(KernelRowJson(row));
  return j;
}

std::string ResourcesReportToJsonText(const ResourcesReport& r, const std::string& tool_version) {
  constexpr auto kReplace = json::error_handler_t::replace;
  json top = ReportJsonWithoutKernels(r, tool_version);
  const std::string placeholder = "@@attnverify-kernels@@";
  top["kernels"] = placeholder;
  std::string text = top.dump(2, ' ', false, kReplace) + "\n";
  // The key at depth 1 starts a line; inside a string a quote or newline is escaped, so
  // this is the one place the placeholder can be.
  const std::string slot = "\n  \"kernels\": \"" + placeholder + "\"";
  size_t at = text.find(slot);
  if (r.kernels.empty()) return text.replace(at, slot.size(), "\n  \"kernels\": []");
  // The rows sit at depth 2 of the file: each line of a row's dump gets 4 more spaces.
  std::string out = text.substr(0, at) + "\n  \"kernels\": [\n";
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    std::string one = KernelRowJson(r.kernels[i]).dump(2, ' ', false, kReplace);
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

std::string FormatResourcesTable(const ResourcesReport& r) {
  std::string out;
  if (r.status == "missing") {
    return "compile evidence missing: " + r.missing_reason + "\n";
  }
  out += "compile evidence for " + (r.head.ref.empty() ? std::string("head") : r.head.ref);
  if (r.base)
    out += " vs base " + r.base->ref +
           (r.base->commit.empty() ? "" : " (" + r.base->commit.substr(0, 12) + ")");
  if (!r.nvcc_version.empty()) out += ", nvcc " + r.nvcc_version;
  out += "\n\n";
  std::vector<std::vector<std::string>> rows = {{"kernel", "arch", "regs", "barriers", "spill B",
                                                 "stack B", "smem B (static+dyn)", "cap B",
                                                 "headroom B", "warps/SM", "change"}};
  const std::vector<std::string> names = DisplayNames(r.kernels);
  std::vector<std::string> renamed;
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelRow& row = r.kernels[i];
    const KernelResources& any = row.head ? *row.head : *row.base;
    std::string change = KernelChangeName(row.change);
    if (row.pairing == KernelPairing::kSignatureChanged) {
      change += " (signature)";
      renamed.push_back(WithoutReturnType(row.base->demangled) + " -> " +
                        WithoutReturnType(row.head->demangled) + " on " + row.arch);
    }
    rows.push_back(
        {names[i], row.arch,
         Pair(row.base, row.head, [](const KernelResources& k) { return Num(k.registers); }),
         Pair(row.base, row.head, [](const KernelResources& k) { return Num(k.barriers); }),
         Pair(row.base, row.head,
              [](const KernelResources& k) { return std::to_string(k.SpillBytes()); }),
         Pair(row.base, row.head,
              [](const KernelResources& k) { return Num(k.stack_frame_bytes); }),
         Pair(row.base, row.head, SmemCell), Num(any.smem_cap_bytes),
         row.head ? HeadroomCell(*row.head) : "", Pair(row.base, row.head, OccupancyCell), change});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i] + std::string(width[i] - row[i].size() + (i + 1 < row.size() ? 2 : 0), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (r.kernels.empty()) out += "(no kernels in the log)\n";
  if (!renamed.empty()) {
    out += "\npaired across a signature change (same name, other template arguments):\n";
    for (const std::string& p : renamed) out += "  " + p + "\n";
  }
  if (!r.findings.empty()) {
    out += "\nfindings:\n";
    for (const BuildFinding& f : r.findings) {
      out += std::string("  ") + SeverityName(f.severity) + ": " +
             (f.file.empty() ? "" : f.file + ":" + std::to_string(f.line) + ": ") + f.message +
             "\n";
    }
  }
  int errors = 0;
  for (const PtxasDiagnostic& d : r.diagnostics) errors += d.severity == Severity::kError;
  if (errors > 0) {
    out += "\nerrors in the log:\n";
    for (const PtxasDiagnostic& d : r.diagnostics) {
      if (d.severity != Severity::kError) continue;
      out += "  " +
             (d.source_file.empty() ? ""
                                    : d.source_file + ":" + std::to_string(d.source_line) + ": ") +
             d.tool + ": " + d.message + "\n";
    }
  }
  if (!r.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const std::string& w : r.warnings) out += "  " + w + "\n";
  }
  out += "\ngates:\n";
  int failed = 0;
  std::vector<std::string> missing;
  for (const GateResult& g : r.gates) {
    std::string verdict = !g.enabled                         ? "off "
                          : g.status == GateStatus::kMissing ? "MISS"
                          : g.passed()                       ? "PASS"
                                                             : "FAIL";
    failed += g.enabled && g.status == GateStatus::kFail;
    if (g.enabled && g.missing()) missing.push_back(g.name);
    out += fmt::format("  {} {:<20} {}\n", verdict, g.name, g.rule);
    if (g.enabled && g.missing()) out += "         missing: " + g.reason + "\n";
    for (const std::string& f : g.failures) out += "         " + f + "\n";
  }
  out += "\nverdict: " + r.status;
  if (failed > 0) {
    out += " (" + std::to_string(failed) + (failed == 1 ? " gate" : " gates") + " failed)";
  } else if (!missing.empty()) {
    std::string names;
    for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
    out += " (nothing to judge for " + names + ")";
  }
  out += "\n";
  return out;
}

}  // namespace av
