#include "agent/evidence_check.h"

#include <cctype>

#include "agent/run_commands_policy.h"

namespace av {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Does [line, end_line] lie on the lines given for the file on its side?
bool LinesPresent(const std::set<int64_t>& lines, int64_t line, int64_t end_line) {
  return lines.count(line) > 0 && lines.count(end_line) > 0;
}

CheckedFinding Drop(CheckedFinding c, DropReason r, std::string why) {
  c.drop = r;
  c.why = std::move(why);
  return c;
}

std::string Range(const AgentFinding& f) {
  return f.end_line != f.line ? std::to_string(f.line) + "-" + std::to_string(f.end_line)
                              : std::to_string(f.line);
}

// "" when the place holds, else why not.
std::string CheckPlace(const AgentFinding& f, const RequestContext& ctx) {
  if (f.file.empty()) return f.line == 0 ? "" : "a line without a file";
  if (f.line <= 0) return "";  // a file without a line: checked as evidence, not as a place
  const auto& diff_side = f.side == "old" ? ctx.old_lines : ctx.new_lines;
  auto d = diff_side.find(f.file);
  if (d != diff_side.end()) {
    if (LinesPresent(d->second, f.line, f.end_line)) return "";
    return f.file + ":" + Range(f) + " is not on the " + f.side + " side of the diff sent";
  }
  auto shown = ctx.file_lines.find(f.file);
  if (shown != ctx.file_lines.end()) {
    if (LinesPresent(shown->second, f.line, f.end_line)) return "";
    return f.file + ":" + Range(f) + " is not among the lines of it sent";
  }
  return f.file + " was not in this request's context";
}

std::string CheckEvidence(const AgentFinding& f, const RequestContext& ctx, const AgentPackage& p) {
  const std::string& e = f.evidence;
  if (e.empty()) return "no evidence named";
  if (e == "diff") return ctx.had_diff ? "" : "\"diff\" but this request was given no diff";
  size_t hash = e.find('#');
  if (hash != std::string::npos) {
    std::string file = e.substr(0, hash), id = e.substr(hash + 1);
    if (file != "evidence/numerics.json") return file + "#...: only numerics.json has case ids";
    if (!p.numerics_text) return "the package has no evidence/numerics.json";
    if (p.case_ids.count(id) == 0) return "no case \"" + id + "\" in evidence/numerics.json";
    return "";
  }
  size_t colon = e.rfind(':');
  if (colon != std::string::npos && colon + 1 < e.size() &&
      std::isdigit(static_cast<unsigned char>(e[colon + 1]))) {
    std::string file = e.substr(0, colon);
    char* end = nullptr;
    long long line = std::strtoll(e.c_str() + colon + 1, &end, 10);
    if (*end != '\0' && *end != '-') return "\"" + e + "\" is not file:line";
    if (!p.HasFile(file)) return "no file " + file + " in the package";
    if (line < 1 || line > p.LineCount(file)) {
      return file + " has no line " + std::to_string(line);
    }
    return "";
  }
  if (!p.HasFile(e)) return "no file " + e + " in the package";
  return "";
}

// Numbers that are places, not quantities: after "line", "lines", "item" or "L" ("line 63",
// "lines 63-64", "L63"), or the second of a range whose first was one.
bool IsPlaceNumber(const Quantity& q, std::string_view claim, size_t previous_place_end) {
  std::string before = Lower(claim.substr(0, q.offset));
  if (previous_place_end != std::string::npos && q.offset == previous_place_end + 1 &&
      claim[previous_place_end] == '-') {
    return true;
  }
  while (!before.empty() && (before.back() == ' ' || before.back() == ':')) before.pop_back();
  size_t w = before.size();
  while (w > 0 && std::isalpha(static_cast<unsigned char>(before[w - 1]))) --w;
  std::string word = before.substr(w);
  return word == "line" || word == "lines" || word == "item" || word == "items" ||
         (word == "l" && q.offset > 0 && claim[q.offset - 1] == 'L');
}

std::string CheckNumbers(const AgentFinding& f, const RequestContext& ctx) {
  if (!ClaimHasMeasuredTopic(f.claim)) return "";
  size_t place_end = std::string::npos;
  for (const Quantity& q : ExtractQuantities(f.claim)) {
    if (IsPlaceNumber(q, f.claim, place_end)) {
      place_end = q.offset + q.text.size();
      continue;
    }
    place_end = std::string::npos;
    if (!ctx.numbers.Supports(q)) return "\"" + q.text + "\" does not occur in what was sent";
  }
  return "";
}

}  // namespace

std::string_view DropReasonName(DropReason r) {
  switch (r) {
    case DropReason::kKept:
      return "kept";
    case DropReason::kNoSuchLine:
      return "no_such_line";
    case DropReason::kNoSuchEvidence:
      return "no_such_evidence";
    case DropReason::kUnsupportedNumber:
      return "unsupported_number";
  }
  return "kept";
}

CheckedFinding CheckFinding(const AgentFinding& finding, const RequestContext& context,
                            const AgentPackage& package, const PermissionSettings& policy) {
  CheckedFinding c;
  c.finding = finding;
  if (std::string why = CheckPlace(finding, context); !why.empty()) {
    return Drop(std::move(c), DropReason::kNoSuchLine, why);
  }
  if (std::string why = CheckEvidence(finding, context, package); !why.empty()) {
    return Drop(std::move(c), DropReason::kNoSuchEvidence, why);
  }
  if (std::string why = CheckNumbers(finding, context); !why.empty()) {
    return Drop(std::move(c), DropReason::kUnsupportedNumber, why);
  }
  if (!finding.command.empty()) {
    Decision d = DecideCommand(policy, finding.command);
    c.command_decision = std::string(VerdictName(d.decision));
    if (d.decision != Verdict::kAllow) {
      c.command_reason = d.reason;
      c.command_dropped = finding.command;
      c.finding.command.clear();
    }
  }
  return c;
}

Result<PermissionSettings> AgentCommandPolicy(const AgentPackage& package, std::string* source) {
  // Never the repository's .claude/ settings: the code under review would decide (issue 34).
  // `agent run-commands` decides again under the user's own policy (run_commands_policy.h).
  PermissionSettings settings;
  AV_RETURN_IF_ERROR(AddBuiltinReviewRules(&settings));
  *source = "the built-in review rules (attnverify agent-config emit --tool claude-code)";
  settings.package_dir = package.package_dir;
  settings.cwd = package.repo_dir;
  return settings;
}

}  // namespace av
