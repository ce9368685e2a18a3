#include "tensor/tensor_file.h"

#include <string_view>

#include "tensor/npy.h"
#include "tensor/npz.h"
#include "tensor/safetensors.h"

namespace av {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

enum class Format { kNpy, kNpz, kSafetensors, kUnknown };

Format FormatOf(std::string_view path) {
  if (EndsWith(path, ".npy")) return Format::kNpy;
  if (EndsWith(path, ".npz")) return Format::kNpz;
  if (EndsWith(path, ".safetensors")) return Format::kSafetensors;
  return Format::kUnknown;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 20; ++i) {
    if (i) s += ", ";
    s += names[i];
  }
  if (names.size() > 20) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s.empty() ? "(none)" : s;
}

// Picks `name` out of a container, or its only tensor when no name was given.
Result<std::string> ChooseName(const std::string& path, const std::string& name,
                               const std::vector<std::string>& names) {
  if (name.empty()) {
    if (names.size() == 1) return names.front();
    return InvalidInput(path + " holds " + std::to_string(names.size()) + " tensors; name one as " +
                        path + ":NAME (present: " + JoinNames(names) + ")");
  }
  for (const auto& n : names) {
    if (n == name) return name;
  }
  return NotFound(path + ": no tensor named \"" + name + "\" (present: " + JoinNames(names) + ")");
}

}  // namespace

TensorSpec ParseTensorSpec(const std::string& spec) {
  size_t colon = spec.rfind(':');
  if (colon != std::string::npos) {
    std::string_view head(spec.data(), colon);
    if (FormatOf(head) == Format::kSafetensors || FormatOf(head) == Format::kNpz) {
      return {spec.substr(0, colon), spec.substr(colon + 1)};
    }
  }
  return {spec, ""};
}

Result<Tensor> LoadTensor(const std::string& spec_text) {
  TensorSpec spec = ParseTensorSpec(spec_text);
  switch (FormatOf(spec.path)) {
    case Format::kNpy:
      return ReadNpy(spec.path);
    case Format::kSafetensors: {
      AV_ASSIGN_OR_RETURN(SafetensorsFile file, ReadSafetensors(spec.path));
      std::vector<std::string> names;
      for (const auto& [n, t] : file.tensors) names.push_back(n);
      AV_ASSIGN_OR_RETURN(std::string name, ChooseName(spec.path, spec.name, names));
      return *file.Find(name);
    }
    case Format::kNpz: {
      AV_ASSIGN_OR_RETURN(NpzArchive archive, ReadNpz(spec.path));
      AV_ASSIGN_OR_RETURN(std::string name, ChooseName(spec.path, spec.name, archive.names()));
      return archive.Get(name);
    }
    case Format::kUnknown:
      break;
  }
  return InvalidInput(spec.path +
                      ": unknown tensor file type (expected .npy, .npz or .safetensors; name a "
                      "tensor in a container as FILE:NAME)");
}

}  // namespace av
