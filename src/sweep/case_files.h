// The files of the candidate protocol (doc/formats/candidate-protocol.md): each case's
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

// How a case is written. `cases --export` writes the full record under the case's id (a
// harness that runs the kernel itself checks the digests); `numerics` writes what the
// candidate may know under an opaque folder name: no variant, group, seed or digest, so a
// rerun or num_splits variant cannot be told from a case of its own, nor its base found.
struct CaseWriteOptions {
  std::string folder;           // under work/cases; empty: the case's id
  bool candidate_view = false;  // case.json without variant, group, seed, inputs_sha256
  // case.json's out_dir relative to the case folder ("out"), as an export writes it so the
  // exported folder can be moved to another machine (a GPU box) and still be read there.
  bool relative_paths = false;
};

// What attnverify keeps of a written case (the tensors themselves stay on disk).
struct WrittenCase {
  std::string work_dir;  // the work folder (absolute)
  std::string id;        // the case's folder name under work/cases (case.json "id")
  std::string dir;       // absolute work/cases/<id>
  std::string out_dir;   // dir + "/out", emptied before the candidate runs
  std::string inputs_path;
  std::string inputs_sha256;  // recorded in the evidence
  std::string inputs_xxh3;    // XXH3-128 of the same bytes: the fast check after the candidate ran
  size_t inputs_bytes = 0;    // the file's length as written
  // What attnverify had to repair before writing (a symbolic link at the case folder or
  // at work/cases replaced by a real folder); for the run's warnings.
  std::vector<std::string> warnings;
  std::vector<InputLayout> layouts;
  OpParams op_params;
  std::vector<ExpectedOutput> outputs;
  CaseNotes notes;      // as attnverify keeps them (case.json may show fewer)
  JsonValue case_json;  // the document written (json.hpp to look inside)
};

// case.json's document for a built case (the full record; `candidate_view` leaves out what
// CaseWriteOptions says).
nlohmann::json CaseJson(const CaseSpec& spec, const BuiltCase& built, const std::string& out_dir,
                        bool candidate_view = false);

// Writes the case folder (removing what an earlier run left, outputs included).
Result<WrittenCase> WriteCase(const std::string& work_dir, const CaseSpec& spec,
                              const BuiltCase& built, const CaseWriteOptions& options = {});
// The same for a case whose inputs are byte for byte those of `same_inputs` (a num_splits
// or rerun variant of that base case), from `bytes`, attnverify's checked copy of that
// file: a file of its own, which the digests taken as it is written must find equal.
Result<WrittenCase> WriteCaseCopy(const std::string& work_dir, const CaseSpec& spec,
                                  const WrittenCase& same_inputs, const Buffer& bytes,
                                  const CaseWriteOptions& options);

// Removes the candidate's outputs of a judged case (what is in its out/ folder), so that a
// later candidate run cannot find them: its reruns and num_splits variants must compute.
Status RemoveOutputs(const WrittenCase& wc);

// work/cases.json: {"schema", "cases": [{"id", "op", "dir", "out_dir"}]}, in the order
// given (numerics gives its cases in the order of their shuffled folder names); "id" is
// the folder's name. Returns its path.
// `cases --export` also stamps the index with the export's salt and drawn-case count
// ("salt", "drawn_cases"), which `judge` reads to generate the same cases again, and its
// folders are relative to cases.json (an export moves between machines); the candidate's
// own work/cases.json under `numerics` carries neither and names absolute folders.
struct ExportStamp {
  uint64_t salt = 0;  // written as 16 hex digits (run_salt.h SaltHex)
  int drawn_cases = 0;
};
Result<std::string> WriteCasesIndex(const std::string& work_dir,
                                    const std::vector<WrittenCase>& cases,
                                    const std::vector<CaseSpec>& specs,
                                    const ExportStamp* stamp = nullptr);

// Reads the stamp of an exported cases.json (`cases --export`). An index without one
// (exported before salts existed) gives salt 0 and no drawn cases.
Result<ExportStamp> ReadExportStamp(const std::string& cases_json);

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

// Reads the case's inputs.safetensors once into attnverify's own memory and checks those bytes
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
