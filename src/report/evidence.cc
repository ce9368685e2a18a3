#include "report/evidence.h"

#include <nlohmann/json.hpp>

#include "core/json_reader.h"
#include "core/sha256.h"
#include "core/shell_quote.h"

namespace av {
namespace {

using nlohmann::json;

// The file's identity and how it was made: schema /2 files carry a provenance block (the
// command is its argv, rendered); /1 files a command line, shown as written.
EvidenceFile NewFile(std::string_view text, const std::string& path, const Provenance& p,
                     bool has_provenance, const std::string& legacy_command,
                     const std::string& tool_version) {
  EvidenceFile f;
  f.path = path;
  f.sha256 = Sha256Hex(text);
  f.provenance = p;
  f.has_provenance = has_provenance;
  f.command = has_provenance && !p.argv.empty() ? ShellJoin(p.argv) : legacy_command;
  f.tool_version = !tool_version.empty() ? tool_version : p.tool_version;
  return f;
}

}  // namespace

Result<NumericsEvidence> ParseNumericsEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(NumericsRecord record, ParseNumerics(text, path));
  NumericsEvidence n;
  n.file = NewFile(text, path, record.provenance, record.has_provenance, record.legacy_command,
                   record.tool_version);
  static_cast<NumericsRecord&>(n) = std::move(record);
  return n;
}

Result<ResourcesEvidence> ParseResourcesEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(ResourcesRecord record, ParseResources(text, path));
  ResourcesEvidence r;
  r.file = NewFile(text, path, record.provenance, record.has_provenance, "", record.tool_version);
  static_cast<ResourcesRecord&>(r) = std::move(record);
  return r;
}

Result<ReviewEvidence> ParseReviewEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(ReviewReport record, ParseReview(text, path));
  ReviewEvidence r;
  r.file = NewFile(text, path, record.provenance, record.has_provenance, record.legacy_command,
                   record.tool_version);
  static_cast<ReviewReport&>(r) = std::move(record);
  return r;
}

Result<EvidenceFile> ParseSliceEvidence(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(SliceRecord record, ParseSlice(text, path));
  return NewFile(text, path, record.provenance, record.has_provenance, record.legacy_command,
                 record.tool_version);
}

Result<ReportRunEvidence> ParseRunEvidence(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  AV_RETURN_IF_ERROR(in.CheckSchema(doc, {"attnverify.run/1", "attnverify.run/2"}, true));
  ReportRunEvidence r;
  Provenance p;
  bool has_provenance = false;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &p, &has_provenance));
  std::string command, tool_version;
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &command));
  if (const json* tool = JsonReader::Get(doc, "tool"))
    AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &tool_version));
  r.file = NewFile(text, path, p, has_provenance, command, tool_version);
  AV_RETURN_IF_ERROR(in.Str(doc, "config", "$", &r.config));
  // The --config the user typed (relative to the folder `attnverify run` ran in; the
  // stages ran there too). Without --config, run uses the default.
  r.user_config = "attention-verify/attnverify.toml";
  std::vector<std::string> argv = p.argv;
  if (!has_provenance) {
    // Schema /1 stored the run's command as a line of words joined by spaces; only such
    // old files are split (a folder with a space in its name reads wrong there, which
    // is why /2 stores argv).
    for (size_t i = 0; i < command.size();) {
      size_t j = command.find(' ', i);
      if (j == std::string::npos) j = command.size();
      if (j > i) argv.push_back(command.substr(i, j - i));
      i = j + 1;
    }
  }
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--config" && i + 1 < argv.size())
      r.user_config = argv[i + 1];
    else if (argv[i].rfind("--config=", 0) == 0)
      r.user_config = argv[i].substr(9);
  }
  AV_ASSIGN_OR_RETURN(const json* stages, in.Array(doc, "stages", "$"));
  for (size_t i = 0; stages != nullptr && i < stages->size(); ++i) {
    const std::string where = JsonReader::Index("$.stages", i);
    const json& s = (*stages)[i];
    if (!s.is_object()) return in.Error(where, "must be an object");
    ReportRunStage st;
    AV_RETURN_IF_ERROR(in.Str(s, "name", where, &st.name));
    AV_RETURN_IF_ERROR(in.Str(s, "status", where, &st.status));
    if (!st.status.empty() && !ParseStageStatus(st.status)) {
      return in.Error(where + ".status",
                      std::string("must be ") + StageStatusWords() + ", got \"" + st.status + "\"");
    }
    AV_RETURN_IF_ERROR(in.Str(s, "reason", where, &st.reason));
    AV_RETURN_IF_ERROR(in.Str(s, "log", where, &st.log));
    AV_RETURN_IF_ERROR(in.Str(s, "log_sha256", where, &st.log_sha256));
    r.stages.push_back(std::move(st));
  }
  return r;
}

Result<EvidenceFile> ParseProvenanceOnly(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  Provenance p;
  bool has_provenance = false;
  AV_RETURN_IF_ERROR(ParseProvenance(in, doc, &p, &has_provenance));
  std::string command, tool_version;
  AV_RETURN_IF_ERROR(in.Str(doc, "command", "$", &command));
  if (const json* tool = JsonReader::Get(doc, "tool"))
    AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &tool_version));
  return NewFile(text, path, p, has_provenance, command, tool_version);
}

}  // namespace av
