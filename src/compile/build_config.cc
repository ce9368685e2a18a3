#include "compile/build_config.h"

#include <toml++/toml.h>

#include <filesystem>
#include <tuple>
#include <utility>

#include "core/file.h"
#include "core/package_config.h"
#include "core/toml_config.h"
#include "compile/demangle.h"

namespace av {
namespace {

// The shared reader plus [build]'s own tables.
class ConfigReader : public TomlTableReader {
 public:
  using TomlTableReader::TomlTableReader;

  Status Kernel(const toml::node& node, BuildConfig* config) const {
    const toml::table* t = node.as_table();
    if (t == nullptr) return Error(node, "[[build.kernel]] entries must be tables");
    AV_RETURN_IF_ERROR(CheckKeys(*t, "[[build.kernel]]",
                                 {"name", "block_size", "dynamic_smem", "base_dynamic_smem"}));
    KernelLaunchConfig k;
    k.line = static_cast<int>(node.source().begin.line);
    auto name = (*t)["name"].value<std::string>();
    if (!name || name->empty()) return Error(node, "[[build.kernel]] needs a \"name\"");
    k.name = *name;
    if (const toml::node* b = t->get("block_size")) {
      AV_ASSIGN_OR_RETURN(int64_t v, Integer(*b, "block_size", 1, 1024));
      k.block_size = static_cast<int>(v);
    }
    for (auto [key, bytes, expr] :
         {std::tuple{"dynamic_smem", &k.dynamic_smem_bytes, &k.dynamic_smem_expr},
          {"base_dynamic_smem", &k.base_dynamic_smem_bytes, &k.base_dynamic_smem_expr}}) {
      const toml::node* d = t->get(key);
      if (d == nullptr) continue;
      const std::string q = std::string("\"") + key + "\"";
      if (auto n = d->value_exact<int64_t>()) {
        if (*n < 0) return Error(*d, q + " must not be negative");
        *bytes = *n;
        *expr = std::to_string(*n);
      } else if (auto s = d->value<std::string>()) {
        auto v = EvaluateIntExpression(*s, config->constants);
        if (!v.ok()) return Error(*d, q + ": " + v.status().message());
        if (*v < 0) return Error(*d, q + " is negative: " + std::to_string(*v));
        *bytes = *v;
        *expr = *s;
      } else {
        return Error(*d, q + " must be bytes (an integer) or an expression (a string)");
      }
    }
    config->kernels.push_back(std::move(k));
    return Status::Ok();
  }

  Status Gates(const toml::node& node, BuildGates* gates) const {
    const toml::table* t = node.as_table();
    if (t == nullptr) return Error(node, "[build.gates] must be a table");
    AV_RETURN_IF_ERROR(
        CheckKeys(*t, "[build.gates]",
                  {"no_new_spills", "smem_within_cap", "occupancy_not_lower", "max_registers"}));
    if (const toml::node* n = t->get("no_new_spills")) {
      AV_ASSIGN_OR_RETURN(gates->no_new_spills, Bool(*n, "no_new_spills"));
    }
    if (const toml::node* n = t->get("smem_within_cap")) {
      AV_ASSIGN_OR_RETURN(gates->smem_within_cap, Bool(*n, "smem_within_cap"));
    }
    if (const toml::node* n = t->get("occupancy_not_lower")) {
      AV_ASSIGN_OR_RETURN(gates->occupancy_not_lower, Bool(*n, "occupancy_not_lower"));
    }
    if (const toml::node* n = t->get("max_registers")) {
      AV_ASSIGN_OR_RETURN(int64_t v, Integer(*n, "max_registers", 1, 255));
      gates->max_registers = static_cast<int>(v);
    }
    return Status::Ok();
  }

  Status Build(const toml::table& b, BuildConfig* config) const {
    AV_RETURN_IF_ERROR(CheckKeys(b, "[build]",
                                 {"root", "sources", "flags", "archs", "nvcc", "timeout_s",
                                  "block_size", "constants", "kernel", "gates", "base_setup"}));
    if (const toml::node* n = b.get("root")) {
      AV_ASSIGN_OR_RETURN(config->root, String(*n, "root"));
    }
    for (auto [key, field] : {std::pair{"sources", &config->sources},
                              {"flags", &config->flags},
                              {"archs", &config->archs},
                              {"base_setup", &config->base_setup}}) {
      if (const toml::node* n = b.get(key)) {
        AV_ASSIGN_OR_RETURN(*field, NonEmptyStringArray(*n, key));
      }
    }
    if (const toml::node* n = b.get("nvcc")) {
      AV_ASSIGN_OR_RETURN(config->nvcc, String(*n, "nvcc"));
    }
    if (const toml::node* n = b.get("timeout_s")) {
      AV_ASSIGN_OR_RETURN(int64_t v, Integer(*n, "timeout_s", 1, 86400));
      config->timeout_s = static_cast<int>(v);
    }
    if (const toml::node* n = b.get("block_size")) {
      AV_ASSIGN_OR_RETURN(int64_t v, Integer(*n, "block_size", 1, 1024));
      config->block_size = static_cast<int>(v);
    }
    if (const toml::node* n = b.get("constants")) {
      const toml::table* t = n->as_table();
      if (t == nullptr) return Error(*n, "\"constants\" must be a table of integers");
      for (const auto& [key, value] : *t) {
        AV_ASSIGN_OR_RETURN(int64_t v,
                            Integer(value, std::string(key.str()), INT64_MIN, INT64_MAX));
        config->constants[std::string(key.str())] = v;
      }
    }
    if (const toml::node* n = b.get("kernel")) {
      const toml::array* arr = n->as_array();
      if (arr == nullptr) return Error(*n, "\"kernel\" must be written as [[build.kernel]] tables");
      for (const toml::node& item : *arr) AV_RETURN_IF_ERROR(Kernel(item, config));
    }
    if (const toml::node* n = b.get("gates")) AV_RETURN_IF_ERROR(Gates(*n, &config->gates));
    return Status::Ok();
  }
};

}  // namespace

Result<BuildConfig> ParseBuildConfig(const PackageConfig& package) {
  const std::string& path = package.path();
  const toml::table& doc = package.doc();
  BuildConfig config;
  config.path = path;
  ConfigReader reader(path);
  if (const toml::node* b = doc.get("build")) {
    const toml::table* t = b->as_table();
    if (t == nullptr) return reader.Error(*b, "\"build\" must be a table");
    AV_RETURN_IF_ERROR(reader.Build(*t, &config));
  }
  std::filesystem::path base = std::filesystem::absolute(std::filesystem::path(path)).parent_path();
  std::filesystem::path root = config.root.empty() ? base : base / config.root;
  config.root = root.lexically_normal().string();
  if (config.root.size() > 1 && config.root.back() == '/') config.root.pop_back();
  return config;
}

Result<BuildConfig> ParseBuildConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, path));
  return ParseBuildConfig(package);
}

Result<BuildConfig> LoadBuildConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseBuildConfig(package);
}

const KernelLaunchConfig* FindKernelConfig(const BuildConfig& config, std::string_view mangled,
                                           std::string_view demangled) {
  std::string shortname = KernelShortName(demangled);
  std::string qualified = KernelQualifiedName(demangled);
  std::string base = KernelBaseName(demangled);
  for (std::string_view want : {mangled, demangled, std::string_view(shortname),
                                std::string_view(qualified), std::string_view(base)}) {
    for (const KernelLaunchConfig& k : config.kernels) {
      if (k.name == want) return &k;
    }
  }
  return nullptr;
}

bool KernelEntryNames(const KernelLaunchConfig& entry, std::string_view mangled,
                      std::string_view demangled) {
  return entry.name == mangled || entry.name == demangled ||
         entry.name == KernelShortName(demangled) || entry.name == KernelQualifiedName(demangled) ||
         entry.name == KernelBaseName(demangled);
}

}  // namespace av
