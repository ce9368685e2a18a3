#include "sweep/case_files.h"

#include <cmath>
#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
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

bool AllNaN(const Tensor& t) {
  if (!IsFloatingPoint(t.dtype()) || t.numel() == 0) return false;
  Tensor c = t.Contiguous();
  const size_t es = c.element_size();
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (!std::isnan(LoadOneAsDouble(c.dtype(), c.data() + static_cast<size_t>(i) * es))) return false;
  }
  return true;
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
    outputs[o.name] = json{{"dtype", std::string(DTypeName(o.dtype))}, {"shape", ShapeJson(o.shape)}};
  }
  j["outputs"] = outputs;
  j["outputs_file"] = "outputs.safetensors";
  j["out_dir"] = out_dir;
  if (!built.notes.is_null()) j["notes"] = built.notes;
  return j;
}

Result<WrittenCase> WriteCase(const std::string& work_dir, const CaseSpec& spec, const BuiltCase& built) {
  WrittenCase wc;
  wc.dir = (fs::path(work_dir) / "cases" / spec.id).string();
  wc.out_dir = wc.dir + "/out";
  std::error_code ec;
  fs::remove_all(wc.dir, ec);  // stale outputs of an earlier run must never be read
  AV_RETURN_IF_ERROR(MakeDirs(wc.out_dir));
  wc.inputs_path = wc.dir + "/inputs.safetensors";
  std::map<std::string, std::string> meta = built.op_params.values();
  AV_ASSIGN_OR_RETURN(std::string bytes, SerializeSafetensors(built.file_tensors, meta));
  AV_RETURN_IF_ERROR(WriteFileAtomically(wc.inputs_path, bytes));
  wc.inputs_sha256 = Sha256Hex(bytes);
  wc.layouts = built.layouts;
  wc.op_params = built.op_params;
  wc.outputs = built.outputs;
  wc.case_json = CaseJson(spec, built, wc.out_dir);
  wc.case_json["inputs_sha256"] = wc.inputs_sha256;
  AV_RETURN_IF_ERROR(WriteFileAtomically(wc.dir + "/case.json", wc.case_json.dump(2) + "\n"));
  return wc;
}

Result<std::string> WriteCasesIndex(const std::string& work_dir, const std::vector<WrittenCase>& cases,
                                    const std::vector<CaseSpec>& specs) {
  json list = json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    list.push_back(json{{"id", specs[i].id}, {"op", specs[i].op}, {"dir", cases[i].dir}, {"out_dir", cases[i].out_dir}});
  }
  std::string path = (fs::path(work_dir) / "cases.json").string();
  AV_RETURN_IF_ERROR(WriteFileAtomically(path, json{{"schema", kCasesIndexSchema}, {"cases", list}}.dump(2) + "\n"));
  return path;
}

Result<CandidateOutputs> ReadCandidateOutputs(const WrittenCase& wc) {
  CandidateOutputs out;
  std::string st_path = wc.out_dir + "/outputs.safetensors";
  std::error_code ec;
  if (fs::exists(st_path, ec)) {
    AV_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(st_path));
    out.sha256 = Sha256Hex(bytes);
    std::shared_ptr<const Buffer> buffer = CopyToBuffer(bytes);
    Result<SafetensorsFile> file = ParseSafetensors(buffer, "outputs.safetensors");
    if (!file.ok()) return InvalidInput("unreadable output: " + file.status().message());
    out.metadata = file->metadata;
    out.source = "outputs.safetensors";
    for (const ExpectedOutput& e : wc.outputs) {
      const Tensor* t = file->Find(e.name);
      if (t == nullptr) {
        std::string names;
        for (const auto& [n, tt] : file->tensors) names += (names.empty() ? "" : ", ") + n;
        return InvalidInput("outputs.safetensors has no tensor \"" + e.name + "\" (it holds: " +
                            (names.empty() ? "nothing" : names) + ")");
      }
      out.tensors.emplace_back(e.name, *t);
    }
  } else {
    std::string joined;
    for (const ExpectedOutput& e : wc.outputs) {
      std::string path = wc.out_dir + "/" + e.name + ".npy";
      if (!fs::exists(path, ec)) {
        return InvalidInput("no output: the candidate wrote neither out/outputs.safetensors nor out/" + e.name + ".npy");
      }
      AV_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
      joined += Sha256Hex(bytes);
      std::shared_ptr<const Buffer> buffer = CopyToBuffer(bytes);
      Result<Tensor> t = ParseNpy(buffer, e.name + ".npy");
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
      return InvalidInput("output " + e.name + " has shape " + ShapeToString(t.shape()) + ", expected " +
                          ShapeToString(e.shape));
    }
    if (t.dtype() != e.dtype) {
      return InvalidInput("output " + e.name + " has dtype " + std::string(DTypeName(t.dtype())) + ", expected " +
                          std::string(DTypeName(e.dtype)));
    }
    if (AllNaN(t)) return InvalidInput("output " + e.name + " is entirely NaN");
  }
  return out;
}

}  // namespace av
