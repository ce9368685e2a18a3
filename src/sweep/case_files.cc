#include "sweep/case_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/file.h"
#include "core/folder.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "core/utf8.h"
#include "core/xxh3.h"
#include "numerics/element_stream.h"
#include "sweep/rng.h"
#include "sweep/run_salt.h"
#include "tensor/npy.h"
#include "tensor/safetensors.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ShapeJson(const Shape& s) { return json(s); }

// The candidate's view leaves out a batch_permutation variant's order: it would name the
// case a variant (the permuted key lengths are the case's own).
json NotesJson(const CaseNotes& n, bool candidate_view) {
  json j = json::object();
  if (n.key_lengths) j["key_lengths"] = *n.key_lengths;
  if (n.query_lengths) j["query_lengths"] = *n.query_lengths;
  if (n.batch_permutation && !candidate_view) j["batch_permutation"] = *n.batch_permutation;
  if (n.num_blocks) j["num_blocks"] = *n.num_blocks;
  return j;
}

// A file of the case folder: scratch that the next run rewrites, so it is written in
// place without fsync (an fsync per file was most of a small case's wall time: ~6 ms
// each on ext4) and without truncating first: the last run's file of the same case is
// rewritten where it differs and cut to the new length at Close: truncating 55 MB of
// cached pages still being written back cost ~45 ms of the default MLA sweep. A run
// given an earlier run's --salt writes the same bytes, which are then read and compared
// instead of written (overwriting pages under writeback with the same bytes could stall
// as long); a fresh salt's bytes differ, and comparing a 64 KiB piece first costs a read
// of cached pages. A crash leaves a partial or mixed file nobody trusts: the inputs'
// digest is checked before the reference reads them. Hashes what it writes when
// `digests` is given.
struct Digests {
  Sha256Stream sha256;
  Xxh3Stream xxh3;
};

class ScratchFile {
 public:
  // `name` in the folder `dir_fd`; `path` is how messages name it.
  static Result<ScratchFile> Create(int dir_fd, const char* name, const std::string& path) {
    int fd = ::openat(dir_fd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (fd < 0) return IoError(path + ": cannot create: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      return IoError(path + ": cannot stat: " + std::strerror(err));
    }
    return ScratchFile(path, fd, st.st_size);
  }
  ScratchFile(ScratchFile&& o) noexcept
      : path_(std::move(o.path_)),
        fd_(std::exchange(o.fd_, -1)),
        old_size_(o.old_size_),
        size_(o.size_) {}
  ~ScratchFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status Write(const void* data, size_t n, Digests* digests) {
    if (digests != nullptr && n > 0) {
      digests->sha256.Update(data, n);
      digests->xxh3.Update(data, n);
    }
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      const size_t piece = std::min(n, kPiece);
      if (!SameAsOnDisk(p, piece)) AV_RETURN_IF_ERROR(WriteAt(p, piece));
      p += piece;
      n -= piece;
      size_ += static_cast<off_t>(piece);
    }
    return Status::Ok();
  }
  // Cuts what an earlier, longer file left past the bytes written, and closes.
  Status Close() {
    int fd = std::exchange(fd_, -1);
    if (size_ != old_size_ && ::ftruncate(fd, size_) != 0) {
      const int err = errno;
      ::close(fd);
      return IoError(path_ + ": cannot set its length: " + std::strerror(err));
    }
    if (::close(fd) != 0) return IoError(path_ + ": close failed: " + std::strerror(errno));
    return Status::Ok();
  }

 private:
  static constexpr size_t kPiece = size_t{64} << 10;

  ScratchFile(std::string path, int fd, off_t old_size)
      : path_(std::move(path)), fd_(fd), old_size_(old_size) {}

  // Whether the n bytes at p are already the file's bytes at size_.
  bool SameAsOnDisk(const char* p, size_t n) const {
    if (size_ + static_cast<off_t>(n) > old_size_) return false;
    thread_local const std::unique_ptr<char[]> disk(new char[kPiece]);
    ssize_t r;
    do {
      r = ::pread(fd_, disk.get(), n, size_);
    } while (r < 0 && errno == EINTR);
    return r == static_cast<ssize_t>(n) && std::memcmp(disk.get(), p, n) == 0;
  }
  Status WriteAt(const char* p, size_t n) {
    off_t at = size_;
    while (n > 0) {
      ssize_t w = ::pwrite(fd_, p, n, at);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return IoError(path_ + ": write failed: " + std::strerror(errno));
      p += w;
      n -= static_cast<size_t>(w);
      at += w;
    }
    return Status::Ok();
  }

  std::string path_;
  int fd_ = -1;
  off_t old_size_ = 0;  // the length of what an earlier run left
  off_t size_ = 0;      // bytes written (or found in place) so far
};

Status WriteScratchFile(int dir_fd, const char* name, const std::string& path,
                        std::string_view contents) {
  AV_ASSIGN_OR_RETURN(ScratchFile f, ScratchFile::Create(dir_fd, name, path));
  AV_RETURN_IF_ERROR(f.Write(contents.data(), contents.size(), nullptr));
  return f.Close();
}

// Empties what an earlier run left in the case folder (stale outputs must never be
// read) but keeps the folder, out/ and the two files WriteCase truncates: on a busy ext4
// every unlink, rmdir and mkdir costs ~0.3-2 ms, the bulk of a small case's write.
// What it keeps for WriteCase to rewrite: plain, single-link files (writing into a link
// a candidate left there would write into someone else's file; a symbolic link is
// removed, never written through). Everything is done relative to the case folder's
// descriptor, never by path.
bool KeptFile(int case_fd, const std::string& name) {
  if (name != "inputs.safetensors" && name != "case.json") return false;
  struct stat st;
  if (::fstatat(case_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  return S_ISREG(st.st_mode) && st.st_nlink == 1;
}

Status ResetCaseDir(int case_fd, const std::string& dir) {
  AV_ASSIGN_OR_RETURN(std::vector<std::string> names, ListFolder(case_fd, dir));
  for (const std::string& name : names) {
    if (name == "out" || KeptFile(case_fd, name)) continue;
    AV_RETURN_IF_ERROR(RemoveTreeAt(case_fd, name, dir + "/" + name));
  }
  // out/ itself stays when it is a real folder; a link or file there is replaced.
  AV_ASSIGN_OR_RETURN(UniqueFd out_fd,
                      OpenFolderAt(case_fd, "out", dir + "/out", true, NotAFolder::kReplace));
  AV_ASSIGN_OR_RETURN(std::vector<std::string> outs, ListFolder(out_fd.get(), dir + "/out"));
  for (const std::string& name : outs) {
    AV_RETURN_IF_ERROR(RemoveTreeAt(out_fd.get(), name, dir + "/out/" + name));
  }
  return Status::Ok();
}

// Writes inputs.safetensors straight from the tensors (no whole-file copy in memory) and
// sets its sha256, XXH3-128 and length, computed on the way.
Status WriteInputsFile(int case_fd, const std::string& path, const NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata, WrittenCase* wc) {
  AV_ASSIGN_OR_RETURN(std::string header, SerializeSafetensorsHeader(tensors, metadata));
  Digests digests;
  AV_ASSIGN_OR_RETURN(ScratchFile f, ScratchFile::Create(case_fd, "inputs.safetensors", path));
  AV_RETURN_IF_ERROR(f.Write(header.data(), header.size(), &digests));
  size_t bytes = header.size();
  for (const auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    const Tensor packed = t.is_contiguous() ? t : t.Contiguous();
    AV_RETURN_IF_ERROR(f.Write(packed.data(), packed.nbytes(), &digests));
    bytes += packed.nbytes();
  }
  AV_RETURN_IF_ERROR(f.Close());
  wc->inputs_sha256 = digests.sha256.HexDigest();
  wc->inputs_xxh3 = digests.xxh3.HexDigest();
  wc->inputs_bytes = bytes;
  return Status::Ok();
}

bool AllNaN(const Tensor& t) {
  if (!IsFloatingPoint(t.dtype()) || t.numel() == 0) return false;
  ElementStream s(t);
  std::vector<double> x(4096);
  for (int64_t n; (n = s.Next(x.data(), static_cast<int64_t>(x.size()))) > 0;) {
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isnan(x[static_cast<size_t>(i)])) return false;
    }
  }
  return true;
}

// The case folder work/cases/<id>, opened without following a link at any level below
// the work folder. Writing repairs (a link at work/cases or at the case folder is
// replaced by a real folder, noted in `warnings`); reading refuses.
Result<UniqueFd> OpenCaseFolder(const std::string& work_dir, const std::string& id, bool write,
                                std::vector<std::string>* warnings) {
  AV_ASSIGN_OR_RETURN(UniqueFd work_fd, OpenFolderNoFollow(work_dir, write));
  const NotAFolder mode = write ? NotAFolder::kReplace : NotAFolder::kRefuse;
  std::string replaced;
  AV_ASSIGN_OR_RETURN(UniqueFd cases_fd, OpenFolderAt(work_fd.get(), "cases", work_dir + "/cases",
                                                      write, mode, &replaced));
  if (!replaced.empty() && warnings != nullptr) warnings->push_back(replaced);
  replaced.clear();
  AV_ASSIGN_OR_RETURN(UniqueFd case_fd, OpenFolderAt(cases_fd.get(), id, work_dir + "/cases/" + id,
                                                     write, mode, &replaced));
  if (!replaced.empty() && warnings != nullptr) warnings->push_back(replaced);
  return case_fd;
}

// What case.json describes of a case: a BuiltCase's parts, or a written case's.
struct CaseParts {
  const std::vector<InputLayout>& layouts;
  const OpParams& op_params;
  const std::vector<ExpectedOutput>& outputs;
  const CaseNotes& notes;
};

json CaseJsonOf(const CaseSpec& spec, const CaseParts& parts, const std::string& id,
                const std::string& out_dir, bool candidate_view) {
  json j;
  j["schema"] = kCaseSchema;
  j["id"] = id;
  j["sweep"] = spec.sweep;
  j["op"] = spec.op;
  if (!candidate_view) {
    j["variant"] = spec.variant;
    j["group"] = spec.group_id();
  }
  j["knobs"] = ParamMapToJson(spec.knobs);
  j["dtype"] = std::string(DTypeName(spec.dtype));
  if (!candidate_view) j["seed"] = spec.seed;
  j["input_generator"] = kNormalGenerator;
  j["params"] = ParamMapToJson(spec.params);
  j["op_params"] = json(parts.op_params.values());
  j["inputs_file"] = "inputs.safetensors";
  json inputs = json::object();
  for (const InputLayout& l : parts.layouts) {
    json e{{"dtype", std::string(DTypeName(l.dtype))}, {"shape", ShapeJson(l.shape)}};
    if (l.storage_shape != l.shape) {
      // The file holds the padded storage; the op reads the leading elements of each row.
      e["storage_shape"] = ShapeJson(l.storage_shape);
      e["strides"] = ContiguousStrides(l.storage_shape);
      e["padding"] = "NaN";
    }
    inputs[l.name] = e;
  }
  j["inputs"] = inputs;
  json outputs = json::object();
  for (const ExpectedOutput& o : parts.outputs) {
    outputs[o.name] =
        json{{"dtype", std::string(DTypeName(o.dtype))}, {"shape", ShapeJson(o.shape)}};
  }
  j["outputs"] = outputs;
  j["outputs_file"] = "outputs.safetensors";
  j["out_dir"] = out_dir;
  json notes = NotesJson(parts.notes, candidate_view);
  if (!notes.empty()) j["notes"] = std::move(notes);
  return j;
}

// Writes inputs.safetensors from `bytes` (a checked copy of another case's file) and sets
// its digests, computed on the way.
Status WriteInputsBytes(int case_fd, const std::string& path, const Buffer& bytes,
                        WrittenCase* wc) {
  Digests digests;
  AV_ASSIGN_OR_RETURN(ScratchFile f, ScratchFile::Create(case_fd, "inputs.safetensors", path));
  AV_RETURN_IF_ERROR(f.Write(bytes.data(), bytes.size(), &digests));
  AV_RETURN_IF_ERROR(f.Close());
  wc->inputs_sha256 = digests.sha256.HexDigest();
  wc->inputs_xxh3 = digests.xxh3.HexDigest();
  wc->inputs_bytes = bytes.size();
  return Status::Ok();
}

// Writes the case folder: inputs.safetensors from `tensors` or else from `bytes`, then
// case.json.
Result<WrittenCase> WriteCaseFiles(const std::string& work_dir, const CaseSpec& spec,
                                   const CaseParts& parts, const CaseWriteOptions& options,
                                   const NamedTensors* tensors, const Buffer* bytes) {
  WrittenCase wc;
  wc.work_dir = work_dir;
  wc.id = options.folder.empty() ? spec.id : options.folder;
  wc.dir = (fs::path(work_dir) / "cases" / wc.id).string();
  wc.out_dir = wc.dir + "/out";
  AV_ASSIGN_OR_RETURN(UniqueFd case_fd, OpenCaseFolder(work_dir, wc.id, true, &wc.warnings));
  AV_RETURN_IF_ERROR(ResetCaseDir(case_fd.get(), wc.dir));
  wc.inputs_path = wc.dir + "/inputs.safetensors";
  if (tensors != nullptr) {
    AV_RETURN_IF_ERROR(WriteInputsFile(case_fd.get(), wc.inputs_path, *tensors,
                                       parts.op_params.values(), &wc));
  } else {
    AV_RETURN_IF_ERROR(WriteInputsBytes(case_fd.get(), wc.inputs_path, *bytes, &wc));
  }
  wc.layouts = parts.layouts;
  wc.op_params = parts.op_params;
  wc.outputs = parts.outputs;
  wc.notes = parts.notes;
  // A folder whose path is not UTF-8 cannot be a JSON string; case.json then names it
  // relative to its own folder (doc/formats/candidate-protocol.md).
  const bool absolute = IsValidUtf8(wc.out_dir) && !options.relative_paths;
  json case_json =
      CaseJsonOf(spec, parts, wc.id, absolute ? wc.out_dir : "out", options.candidate_view);
  if (!options.candidate_view) case_json["inputs_sha256"] = wc.inputs_sha256;
  AV_RETURN_IF_ERROR(
      WriteScratchFile(case_fd.get(), "case.json", wc.dir + "/case.json", JsonFileText(case_json)));
  wc.case_json = std::move(case_json);
  return wc;
}

// The bytes of the tensors case.json names for these outputs.
size_t ExpectedBytes(const std::vector<ExpectedOutput>& outputs) {
  size_t bytes = 0;
  for (const ExpectedOutput& e : outputs) {
    size_t n = DTypeSize(e.dtype);
    for (int64_t d : e.shape) n *= static_cast<size_t>(std::max<int64_t>(d, 0));
    bytes += n;
  }
  return bytes;
}

// Reads one output file of out/ into owned memory: refused unread when it is a link,
// FIFO or device, or larger than `needed` plus the header slack.
Result<std::shared_ptr<OwnedBuffer>> ReadOutputFile(int out_fd, const std::string& name,
                                                    size_t needed) {
  const std::string shown = "out/" + name;
  size_t size = 0;
  Result<UniqueFd> fd = OpenRegularFileAt(out_fd, name, shown, Links::kRefuse, &size);
  if (!fd.ok()) return InvalidInput("unreadable output: " + fd.status().message());
  if (size > needed + kOutputHeaderSlack) {
    return InvalidInput("unreadable output: " + shown + " is " + std::to_string(size) +
                        " bytes, more than its tensors need (" + std::to_string(needed) +
                        " bytes) plus " + std::to_string(kOutputHeaderSlack >> 20) +
                        " MiB for the header: refused unread");
  }
  Result<std::shared_ptr<OwnedBuffer>> bytes = ReadFdToBuffer(fd->get(), shown, size);
  if (!bytes.ok()) return InvalidInput("unreadable output: " + bytes.status().message());
  return bytes;
}

}  // namespace

json CaseJson(const CaseSpec& spec, const BuiltCase& built, const std::string& out_dir,
              bool candidate_view) {
  return CaseJsonOf(spec, {built.layouts, built.op_params, built.outputs, built.notes}, spec.id,
                    out_dir, candidate_view);
}

Result<WrittenCase> WriteCase(const std::string& work_dir, const CaseSpec& spec,
                              const BuiltCase& built, const CaseWriteOptions& options) {
  return WriteCaseFiles(work_dir, spec, {built.layouts, built.op_params, built.outputs, built.notes},
                        options, &built.file_tensors, nullptr);
}

Result<WrittenCase> WriteCaseCopy(const std::string& work_dir, const CaseSpec& spec,
                                  const WrittenCase& same_inputs, const Buffer& bytes,
                                  const CaseWriteOptions& options) {
  AV_ASSIGN_OR_RETURN(
      WrittenCase wc,
      WriteCaseFiles(work_dir, spec,
                     {same_inputs.layouts, same_inputs.op_params, same_inputs.outputs,
                      same_inputs.notes},
                     options, nullptr, &bytes));
  if (wc.inputs_xxh3 != same_inputs.inputs_xxh3) {
    return Internal(wc.inputs_path + ": the copy of " + same_inputs.inputs_path +
                    " is not its bytes (sha256 " + wc.inputs_sha256.substr(0, 12) + ", not " +
                    same_inputs.inputs_sha256.substr(0, 12) + ")");
  }
  return wc;
}

Status RemoveOutputs(const WrittenCase& wc) {
  AV_ASSIGN_OR_RETURN(UniqueFd case_fd, OpenCaseFolder(wc.work_dir, wc.id, false, nullptr));
  AV_ASSIGN_OR_RETURN(UniqueFd out_fd,
                      OpenFolderAt(case_fd.get(), "out", wc.out_dir, false, NotAFolder::kRefuse));
  AV_ASSIGN_OR_RETURN(std::vector<std::string> outs, ListFolder(out_fd.get(), wc.out_dir));
  for (const std::string& name : outs) {
    AV_RETURN_IF_ERROR(RemoveTreeAt(out_fd.get(), name, wc.out_dir + "/" + name));
  }
  return Status::Ok();
}

Result<std::string> WriteCasesIndex(const std::string& work_dir,
                                    const std::vector<WrittenCase>& cases,
                                    const std::vector<CaseSpec>& specs,
                                    const ExportStamp* stamp) {
  // Absolute folders, unless the work folder's path is not UTF-8: a JSON string cannot hold
  // it, so the folders are then relative to cases.json's own folder (case ids are ASCII).
  // An export (a stamp) is always relative, so that it can move to another machine.
  json list = json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const bool absolute = IsValidUtf8(cases[i].dir) && stamp == nullptr;
    const std::string& id = cases[i].id;
    list.push_back(json{{"id", id},
                        {"op", specs[i].op},
                        {"dir", absolute ? cases[i].dir : "cases/" + id},
                        {"out_dir", absolute ? cases[i].out_dir : "cases/" + id + "/out"}});
  }
  std::string path = (fs::path(work_dir) / "cases.json").string();
  json index{{"schema", kCasesIndexSchema}, {"cases", list}};
  if (stamp != nullptr) {
    index["salt"] = SaltHex(stamp->salt);
    index["drawn_cases"] = stamp->drawn_cases;
  }
  AV_RETURN_IF_ERROR(WriteFileAtomically(path, JsonFileText(index)));
  return path;
}

Result<ExportStamp> ReadExportStamp(const std::string& cases_json) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(cases_json));
  json index = json::parse(text, nullptr, false);
  if (index.is_discarded() || !index.is_object() || !index.contains("cases"))
    return InvalidInput(cases_json + ": not a cases.json written by attnverify cases --export");
  ExportStamp stamp;
  if (index.contains("salt")) {
    const json& salt = index["salt"];
    if (!salt.is_string()) return InvalidInput(cases_json + ": \"salt\" must be a string");
    Result<uint64_t> parsed = ParseSalt(salt.get<std::string>());
    if (!parsed.ok()) return InvalidInput(cases_json + ": \"salt\": " + parsed.status().message());
    stamp.salt = *parsed;
  }
  if (index.contains("drawn_cases")) {
    const json& n = index["drawn_cases"];
    if (!n.is_number_integer() || n.get<int64_t>() < 0 || n.get<int64_t>() > 100)
      return InvalidInput(cases_json + ": \"drawn_cases\" must be an integer from 0 to 100");
    stamp.drawn_cases = n.get<int>();
  }
  return stamp;
}

Result<CandidateOutputs> ReadCandidateOutputs(const WrittenCase& wc) {
  CandidateOutputs out;
  Result<UniqueFd> case_fd = OpenCaseFolder(wc.work_dir, wc.id, false, nullptr);
  if (!case_fd.ok()) return InvalidInput("no output: " + case_fd.status().message());
  Result<UniqueFd> out_fd =
      OpenFolderAt(case_fd->get(), "out", wc.out_dir, false, NotAFolder::kRefuse);
  if (!out_fd.ok()) return InvalidInput("no output: " + out_fd.status().message());
  struct stat st;
  if (::fstatat(out_fd->get(), "outputs.safetensors", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    AV_ASSIGN_OR_RETURN(
        std::shared_ptr<OwnedBuffer> bytes,
        ReadOutputFile(out_fd->get(), "outputs.safetensors", ExpectedBytes(wc.outputs)));
    out.sha256 = Sha256Hex(bytes->view());
    Result<SafetensorsFile> file = ParseSafetensors(bytes, "outputs.safetensors");
    if (!file.ok()) return InvalidInput("unreadable output: " + file.status().message());
    out.metadata = file->metadata;
    out.source = "outputs.safetensors";
    for (const ExpectedOutput& e : wc.outputs) {
      const Tensor* t = file->Find(e.name);
      if (t == nullptr) {
        std::string names;
        for (const auto& [n, tt] : file->tensors) names += (names.empty() ? "" : ", ") + n;
        return InvalidInput("outputs.safetensors has no tensor \"" + e.name +
                            "\" (it holds: " + (names.empty() ? "nothing" : names) + ")");
      }
      out.tensors.emplace_back(e.name, *t);
    }
  } else {
    std::string joined;
    for (const ExpectedOutput& e : wc.outputs) {
      const std::string name = e.name + ".npy";
      if (::fstatat(out_fd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return InvalidInput(
            "no output: the candidate wrote neither out/outputs.safetensors nor out/" + name);
      }
      AV_ASSIGN_OR_RETURN(std::shared_ptr<OwnedBuffer> bytes,
                          ReadOutputFile(out_fd->get(), name, ExpectedBytes({e})));
      joined += Sha256Hex(bytes->view());
      Result<Tensor> t = ParseNpy(bytes, name);
      if (!t.ok()) return InvalidInput("unreadable output: " + t.status().message());
      out.tensors.emplace_back(e.name, *t);
      out.source += (out.source.empty() ? "" : ", ") + name;
    }
    out.sha256 = wc.outputs.size() == 1 ? joined : Sha256Hex(joined);
  }
  for (size_t i = 0; i < wc.outputs.size(); ++i) {
    const ExpectedOutput& e = wc.outputs[i];
    const Tensor& t = out.tensors[i].second;
    if (t.shape() != e.shape) {
      return InvalidInput("output " + e.name + " has shape " + ShapeToString(t.shape()) +
                          ", expected " + ShapeToString(e.shape));
    }
    if (t.dtype() != e.dtype) {
      return InvalidInput("output " + e.name + " has dtype " + std::string(DTypeName(t.dtype())) +
                          ", expected " + std::string(DTypeName(e.dtype)));
    }
    if (AllNaN(t)) out.all_nan.push_back(e.name);
  }
  return out;
}

Result<std::shared_ptr<const Buffer>> ReadCheckedInputs(const WrittenCase& wc) {
  auto changed = [&](const std::string& now) {
    return InvalidInput("the candidate changed inputs.safetensors (sha256 " +
                        wc.inputs_sha256.substr(0, 12) + " -> " + now + ")");
  };
  Result<UniqueFd> case_fd = OpenCaseFolder(wc.work_dir, wc.id, false, nullptr);
  if (!case_fd.ok()) return changed(case_fd.status().message());
  const int dir = case_fd->get();
  size_t size = 0;
  Result<UniqueFd> fd =
      OpenRegularFileAt(dir, "inputs.safetensors", "inputs.safetensors", Links::kRefuse, &size);
  if (!fd.ok()) return changed(fd.status().message());
  if (size != wc.inputs_bytes) {
    return changed(std::to_string(size) + " bytes, " + std::to_string(wc.inputs_bytes) +
                   " were written");
  }
  Result<std::shared_ptr<OwnedBuffer>> bytes =
      ReadFdToBuffer(fd->get(), "inputs.safetensors", wc.inputs_bytes);
  if (!bytes.ok()) return changed(bytes.status().message());
  if (Xxh3Hex((*bytes)->view()) != wc.inputs_xxh3) {
    return changed(Sha256Hex((*bytes)->view()).substr(0, 12));
  }
  return std::shared_ptr<const Buffer>(std::move(*bytes));
}

Result<std::vector<std::string>> PrepareWorkFolder(const std::string& work_dir) {
  std::vector<std::string> warnings;
  AV_ASSIGN_OR_RETURN(UniqueFd work_fd, OpenFolderNoFollow(work_dir, true));
  std::string replaced;
  AV_ASSIGN_OR_RETURN(UniqueFd cases_fd, OpenFolderAt(work_fd.get(), "cases", work_dir + "/cases",
                                                      true, NotAFolder::kReplace, &replaced));
  if (!replaced.empty()) warnings.push_back(replaced);
  return warnings;
}

}  // namespace av
