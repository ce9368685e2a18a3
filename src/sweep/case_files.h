// The files of the candidate protocol (DESIGN.md "Candidate protocol"): each case's
// work/cases/<id>/inputs.safetensors and case.json, the work/cases.json index, and the
// candidate's outputs (out/outputs.safetensors, or out/<name>.npy). Formats:
// doc/formats/candidate-protocol.md. The candidate may have left anything in a case
// folder: below the work folder no symbolic link is followed (each folder is opened
// O_NOFOLLOW from the one above), a FIFO or device is refused without blocking, and what
// attnverify reads back is read once into its own memory with a size cap. Functions
// touch only the named paths; any thread.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/json_value.h"
#include "core/status.h"
#include "sweep/case_builder.h"
#include "sweep/shapes_config.h"

namespace av {

inline constexpr const char* kCaseSchema = "attnverify.case/1";
inline constexpr const char* kCasesIndexSchema = "attnverify.cases/1";

// What attnverify keeps of a written case (the tensors themselves stay on disk).
struct WrittenCase {
  std::string work_dir;  // the work folder (absolute)
  std::string id;        // the case's folder name under work/cases
  std::string dir;       // absolute work/cases/<id>
  std::string out_dir;   // dir + "/out", emptied before the candidate runs
  std::string inputs_path;
  std::string inputs_sha256;  // recorded in the evidence
  std::string inputs_xxh3;    // XXH3-128 of the same bytes: the fast check after the candidate ran
  size_t inputs_bytes = 0;    // the file's length as written
  // Non-empty: inputs.safetensors is a symbolic link to ../<inputs_of>/inputs.safetensors
  // (the base case's file, whose digests these are).
  std::string inputs_of;
  // What attnverify had to repair before writing (a symbolic link at the case folder or
  // at work/cases replaced by a real folder); for the run's warnings.
  std::vector<std::string> warnings;
  std::vector<InputLayout> layouts;
  OpParams op_params;
  std::vector<ExpectedOutput> outputs;
  CaseNotes notes;      // as case.json has them
  JsonValue case_json;  // the document written (json.hpp to look inside)
};

// case.json's document for a built case.
nlohmann::json CaseJson(const CaseSpec& spec, const BuiltCase& built, const std::string& out_dir);

// Writes the case folder (removing what an earlier run left, outputs included).
Result<WrittenCase> WriteCase(const std::string& work_dir, const CaseSpec& spec,
                              const BuiltCase& built);
// The same for a case whose inputs are byte for byte those of `same_inputs`, a case of
// the same work folder (a num_splits or rerun variant of that base case): its
// inputs.safetensors is a symbolic link to ../<base id>/inputs.safetensors, and the
// base's digests are its own. The caller vouches that same_inputs' file still holds the
// bytes its digests name (written and not yet handed to a candidate, or checked since);
// the file is checked through the link after the candidate ran, as every case is.
Result<WrittenCase> WriteCaseWithInputsOf(const std::string& work_dir, const CaseSpec& spec,
                                          const BuiltCase& built, const WrittenCase& same_inputs);

// work/cases.json: {"schema", "cases": [{"id", "op", "dir", "out_dir"}]}; returns its path.
Result<std::string> WriteCasesIndex(const std::string& work_dir,
                                    const std::vector<WrittenCase>& cases,
                                    const std::vector<CaseSpec>& specs);

struct CandidateOutputs {
  NamedTensors tensors;                         // by expected name
  std::map<std::string, std::string> metadata;  // safetensors __metadata__
  std::string source;                           // outputs.safetensors or "<name>.npy, ..."
  std::string sha256;  // of outputs.safetensors, or of the .npy files in order
  // Outputs that are entirely NaN: the case fails for them, but they are outputs, which
  // the invariance checks still compare (NaN positions) with the group's other runs.
  std::vector<std::string> all_nan;
};

// Reads and checks the candidate's outputs. A problem (missing file or tensor, wrong
// dtype or shape, a link / FIFO / device, a file larger than its tensors need plus
// kOutputHeaderSlack) is an InvalidInput whose message is the case's failure reason; an
// all-NaN output is listed in `all_nan` instead. The tensors view attnverify's own copy
// of the bytes, never a mapping of the file.
Result<CandidateOutputs> ReadCandidateOutputs(const WrittenCase& wc);

// Room for the header (and any extra tensors in outputs.safetensors) beyond the bytes
// of the tensors case.json names: a larger output file is refused unread.
inline constexpr size_t kOutputHeaderSlack = size_t{16} << 20;

// Reads the case's inputs.safetensors (through a variant's link, which must still point
// at its base case's file) once into attnverify's own memory and checks those bytes
// against the digest taken when it was written. The reference is computed from this
// buffer: nothing can change it after the check. A file that changed, was replaced by a
// link, FIFO or device, or is gone is an InvalidInput whose message is the case's failure
// reason ("the candidate changed inputs.safetensors (sha256 ... -> ...)").
Result<std::shared_ptr<const Buffer>> ReadCheckedInputs(const WrittenCase& wc);

// Readies the work folder before the sweep writes anything: it and work/cases are made
// when absent; a symbolic link at the work folder is refused (exit 2, naming where it
// points); one at work/cases is replaced by a real folder (the link alone is removed).
// Returns the warnings for what it repaired.
Result<std::vector<std::string>> PrepareWorkFolder(const std::string& work_dir);

}  // namespace av
