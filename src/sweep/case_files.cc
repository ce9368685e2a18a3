#include "sweep/case_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "core/xxh3.h"
#include "numerics/element_stream.h"
#include "sweep/rng.h"
#include "tensor/npy.h"
#include "tensor/safetensors.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ShapeJson(const Shape& s) { return json(s); }

Status MakeDirs(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir + ": cannot create folder: " + ec.message());
  return Status::Ok();
}

// A file of the case folder: scratch that the next run rewrites, so it is written in
// place without fsync (an fsync per file was most of a small case's wall time: ~6 ms
// each on ext4) and without truncating first: the last run's file of the same case is
// rewritten where it differs and cut to the new length at Close. Inputs are the same
// bytes run after run, so a rerun of a sweep reads and compares instead of writing:
// truncating 55 MB of cached pages still being written back cost ~45 ms of the default
// MLA sweep, and overwriting them with the same bytes could stall as long on pages
// under writeback. A crash leaves a partial or mixed file nobody trusts: the inputs'
// digest is checked before the reference reads them. Hashes what it writes when
// `digests` is given.
struct Digests {
  Sha256Stream sha256;
  Xxh3Stream xxh3;
};

class ScratchFile {
 public:
  static Result<ScratchFile> Create(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
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

Status WriteScratchFile(const std::string& path, std::string_view contents) {
  AV_ASSIGN_OR_RETURN(ScratchFile f, ScratchFile::Create(path));
  AV_RETURN_IF_ERROR(f.Write(contents.data(), contents.size(), nullptr));
  return f.Close();
}

// Empties what an earlier run left in the case folder (stale outputs must never be
// read) but keeps the folder, out/ and the two files WriteCase truncates: on a busy ext4
// every unlink, rmdir and mkdir costs ~0.3-2 ms, the bulk of a small case's write.
// What ResetCaseDir keeps for WriteCase to rewrite: plain, single-link files (writing
// into a link a candidate left there would write into someone else's file), and a
// symbolic link at inputs.safetensors, which is never written through: WriteCase
// re-points it or replaces it.
bool KeptFile(const fs::directory_entry& e, const std::string& name) {
  std::error_code ec;
  if (name != "inputs.safetensors" && name != "case.json") return false;
  if (e.is_symlink(ec)) return name == "inputs.safetensors";
  return e.is_regular_file(ec) && e.hard_link_count(ec) == 1;
}

Status ResetCaseDir(const std::string& dir, const std::string& out_dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name == "out" && e.is_directory(ec) && !e.is_symlink(ec)) {
        for (const fs::directory_entry& o : fs::directory_iterator(e.path(), ec)) {
          if (o.is_directory(ec) && !o.is_symlink(ec))
            fs::remove_all(o.path(), ec);
          else
            fs::remove(o.path(), ec);
        }
        if (ec) return IoError(out_dir + ": cannot empty folder: " + ec.message());
      } else if (!KeptFile(e, name)) {
        fs::remove_all(e.path(), ec);
      }
      if (ec) return IoError(dir + ": cannot clear " + name + ": " + ec.message());
    }
    if (ec) return IoError(dir + ": cannot list folder: " + ec.message());
  }
  return MakeDirs(out_dir);
}

// Writes inputs.safetensors straight from the tensors (no whole-file copy in memory) and
// sets its sha256 and XXH3-128, computed on the way.
Status WriteInputsFile(const std::string& path, const NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata, WrittenCase* wc) {
  AV_ASSIGN_OR_RETURN(std::string header, SerializeSafetensorsHeader(tensors, metadata));
  Digests digests;
  AV_ASSIGN_OR_RETURN(ScratchFile f, ScratchFile::Create(path));
  AV_RETURN_IF_ERROR(f.Write(header.data(), header.size(), &digests));
  for (const auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    const Tensor packed = t.is_contiguous() ? t : t.Contiguous();
    AV_RETURN_IF_ERROR(f.Write(packed.data(), packed.nbytes(), &digests));
  }
  AV_RETURN_IF_ERROR(f.Close());
  wc->inputs_sha256 = digests.sha256.HexDigest();
  wc->inputs_xxh3 = digests.xxh3.HexDigest();
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

// Makes `path` a symbolic link to the base case's inputs file, relative so that the work
// folder may move: ../<base id>/inputs.safetensors.
// A link already there with that target (the last run's) is kept.
Status LinkToInputsOf(const WrittenCase& base, const std::string& path) {
  const fs::path p(base.inputs_path);
  const std::string target = (fs::path("..") / p.parent_path().filename() / p.filename()).string();
  char existing[4096];
  const ssize_t len = ::readlink(path.c_str(), existing, sizeof existing);
  if (len >= 0 && std::string_view(existing, static_cast<size_t>(len)) == target)
    return Status::Ok();
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return IoError(path + ": cannot remove: " + std::strerror(errno));
  }
  if (::symlink(target.c_str(), path.c_str()) != 0) {
    return IoError(path + ": cannot link to " + target + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<WrittenCase> WriteCaseFiles(const std::string& work_dir, const CaseSpec& spec,
                                   const BuiltCase& built, const WrittenCase* same_inputs) {
  WrittenCase wc;
  wc.dir = (fs::path(work_dir) / "cases" / spec.id).string();
  wc.out_dir = wc.dir + "/out";
  AV_RETURN_IF_ERROR(ResetCaseDir(wc.dir, wc.out_dir));
  wc.inputs_path = wc.dir + "/inputs.safetensors";
  if (same_inputs != nullptr) {
    AV_RETURN_IF_ERROR(LinkToInputsOf(*same_inputs, wc.inputs_path));
    wc.inputs_sha256 = same_inputs->inputs_sha256;
    wc.inputs_xxh3 = same_inputs->inputs_xxh3;
  } else {
    // A variant's link from the last run (or one a candidate left) is replaced, not
    // followed.
    struct stat st;
    if (::lstat(wc.inputs_path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) &&
        ::unlink(wc.inputs_path.c_str()) != 0) {
      return IoError(wc.inputs_path + ": cannot remove: " + std::strerror(errno));
    }
    AV_RETURN_IF_ERROR(
        WriteInputsFile(wc.inputs_path, built.file_tensors, built.op_params.values(), &wc));
  }
  wc.layouts = built.layouts;
  wc.op_params = built.op_params;
  wc.outputs = built.outputs;
  wc.case_json = CaseJson(spec, built, wc.out_dir);
  wc.case_json["inputs_sha256"] = wc.inputs_sha256;
  AV_RETURN_IF_ERROR(WriteScratchFile(wc.dir + "/case.json", JsonFileText(wc.case_json)));
  return wc;
}

}  // namespace

json CaseJson(const CaseSpec& spec, const BuiltCase& built, const std::string& out_dir) {
  json j;
  j["schema"] = kCaseSchema;
  j["id"] = spec.id;
  j["sweep"] = spec.sweep;
  j["op"] = spec.op;
  j["variant"] = spec.variant;
  j["group"] = spec.group_id();
  j["knobs"] = spec.knobs;
  j["dtype"] = std::string(DTypeName(spec.dtype));
  j["seed"] = spec.seed;
  j["input_generator"] = kNormalGenerator;
  j["params"] = json(spec.params);
  j["op_params"] = json(built.op_params.values());
  j["inputs_file"] = "inputs.safetensors";
  json inputs = json::object();
  for (const InputLayout& l : built.layouts) {
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
  for (const ExpectedOutput& o : built.outputs) {
    outputs[o.name] =
        json{{"dtype", std::string(DTypeName(o.dtype))}, {"shape", ShapeJson(o.shape)}};
  }
  j["outputs"] = outputs;
  j["outputs_file"] = "outputs.safetensors";
  j["out_dir"] = out_dir;
  if (!built.notes.is_null()) j["notes"] = built.notes;
  return j;
}

Result<WrittenCase> WriteCase(const std::string& work_dir, const CaseSpec& spec,
                              const BuiltCase& built) {
  return WriteCaseFiles(work_dir, spec, built, nullptr);
}

Result<WrittenCase> WriteCaseWithInputsOf(const std::string& work_dir, const CaseSpec& spec,
                                          const BuiltCase& built, const WrittenCase& same_inputs) {
  return WriteCaseFiles(work_dir, spec, built, &same_inputs);
}

Result<std::string> WriteCasesIndex(const std::string& work_dir,
                                    const std::vector<WrittenCase>& cases,
                                    const std::vector<CaseSpec>& specs) {
  json list = json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    list.push_back(json{{"id", specs[i].id},
                        {"op", specs[i].op},
                        {"dir", cases[i].dir},
                        {"out_dir", cases[i].out_dir}});
  }
  std::string path = (fs::path(work_dir) / "cases.json").string();
  AV_RETURN_IF_ERROR(WriteFileAtomically(
      path, JsonFileText(json{{"schema", kCasesIndexSchema}, {"cases", list}})));
  return path;
}

Result<CandidateOutputs> ReadCandidateOutputs(const WrittenCase& wc) {
  CandidateOutputs out;
  std::string st_path = wc.out_dir + "/outputs.safetensors";
  std::error_code ec;
  if (fs::exists(st_path, ec)) {
    AV_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> mapped, MappedFile::Open(st_path));
    out.sha256 = Sha256Hex(mapped->view());
    Result<SafetensorsFile> file = ParseSafetensors(mapped, "outputs.safetensors");
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
      std::string path = wc.out_dir + "/" + e.name + ".npy";
      if (!fs::exists(path, ec)) {
        return InvalidInput(
            "no output: the candidate wrote neither out/outputs.safetensors nor out/" + e.name +
            ".npy");
      }
      AV_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> mapped, MappedFile::Open(path));
      joined += Sha256Hex(mapped->view());
      Result<Tensor> t = ParseNpy(mapped, e.name + ".npy");
      if (!t.ok()) return InvalidInput("unreadable output: " + t.status().message());
      out.tensors.emplace_back(e.name, *t);
      out.source += (out.source.empty() ? "" : ", ") + e.name + ".npy";
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
    if (AllNaN(t)) return InvalidInput("output " + e.name + " is entirely NaN");
  }
  return out;
}

}  // namespace av
