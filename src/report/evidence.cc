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
  if (has_provenance) {
    f.run_id = p.run_id;
    f.stage = p.stage;
    f.head_commit = p.head_commit;
  }
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

Result<EvidenceFile> ParseSliceEvidence(std::string_view text, const std::string& path,
                                        std::vector<SliceComponentRecord>* components) {
  AV_ASSIGN_OR_RETURN(SliceRecord record, ParseSlice(text, path));
  if (components != nullptr) *components = record.components;
  return NewFile(text, path, record.provenance, record.has_provenance, record.legacy_command,
                 record.tool_version);
}

Result<ReportRunEvidence> ParseRunEvidence(std::string_view text, const std::string& path) {
  ReportRunEvidence r;
  AV_ASSIGN_OR_RETURN(r.ledger, ParseRunLedger(text, path));
  // The ledger is the run's record, not a stage's evidence: its command is `run`'s argv.
  r.file =
      NewFile(text, path, Provenance{}, false, ShellJoin(r.ledger.argv), r.ledger.tool_version);
  return r;
}

Result<PerfEvidence> ParsePerfEvidence(std::string_view text, const std::string& path) {
  PerfEvidence p;
  AV_ASSIGN_OR_RETURN(p.record, ParsePerf(text, path));
  p.file = NewFile(text, path, p.record.provenance, p.record.has_provenance, "", "");
  return p;
}

}  // namespace av
