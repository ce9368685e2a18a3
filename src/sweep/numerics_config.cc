#include "sweep/numerics_config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>

#include "core/file.h"
#include "core/shell_quote.h"
#include "core/package_config.h"
#include "core/toml_config.h"

namespace av {
namespace {

namespace fs = std::filesystem;

std::string Resolve(const std::string& base, const std::string& p) {
  return (fs::path(base) / p).lexically_normal().string();
}

// The adapters of python/attnverify_candidate/adapters/ (doc/python.md).
constexpr std::string_view kAdapters[] = {"flash_mla", "deep_gemm", "flash_attn", "torch_sdpa"};

}  // namespace

bool IsKnownAdapter(std::string_view name) {
  return std::find(std::begin(kAdapters), std::end(kAdapters), name) != std::end(kAdapters);
}

std::string KnownAdapterList() {
  std::string out;
  for (std::string_view a : kAdapters) out += (out.empty() ? "" : ", ") + std::string(a);
  return out;
}

std::vector<std::string> AdapterCommand(const std::string& name) {
  return {"python3", "-m", "attnverify_candidate.adapters." + name, "{cases}"};
}

namespace {

// The paths [numerics] names, before they are resolved against the toml's folder.
struct NumericsPaths {
  std::string shapes = "config/shapes.json", tolerances = "config/tolerances.json", work = "work",
              evidence = "evidence/numerics.json", junit = "evidence/numerics.junit.xml";
};

Status ParseNumericsTable(const toml::table* t, const TomlTableReader& r, NumericsConfig* out,
                          NumericsPaths* paths) {
  NumericsConfig& c = *out;
  AV_RETURN_IF_ERROR(r.CheckKeys(*t, "[numerics]",
                                 {"shapes", "tolerances", "work_dir", "evidence", "junit",
                                  "reference", "reference_threads", "jobs", "oracle_sample",
                                  "fast_tiles", "drawn_cases"}));
  if (auto* v = t->get("shapes")) {
    AV_ASSIGN_OR_RETURN(paths->shapes, r.String(*v, "shapes"));
  }
  if (auto* v = t->get("tolerances")) {
    AV_ASSIGN_OR_RETURN(paths->tolerances, r.String(*v, "tolerances"));
  }
  if (auto* v = t->get("work_dir")) {
    AV_ASSIGN_OR_RETURN(paths->work, r.String(*v, "work_dir"));
  }
  if (auto* v = t->get("evidence")) {
    AV_ASSIGN_OR_RETURN(paths->evidence, r.String(*v, "evidence"));
  }
  if (auto* v = t->get("junit")) {
    AV_ASSIGN_OR_RETURN(paths->junit, r.String(*v, "junit"));
  }
  if (auto* v = t->get("reference")) {
    AV_ASSIGN_OR_RETURN(std::string impl, r.String(*v, "reference"));
    if (impl == "oracle")
      c.reference.kind = ImplKind::kOracle;
    else if (impl == "fast")
      c.reference.kind = ImplKind::kFast;
    else
      return r.Error(*v, "\"reference\" must be \"oracle\" or \"fast\", got \"" + impl + "\"");
  }
  if (auto* v = t->get("reference_threads")) {
    AV_ASSIGN_OR_RETURN(int64_t th, r.Integer(*v, "reference_threads", 0, 1024));
    c.reference.threads = static_cast<int>(th);
  }
  if (auto* v = t->get("fast_tiles")) {
    AV_ASSIGN_OR_RETURN(c.reference.fast_tiles, r.Bool(*v, "fast_tiles"));
  }
  if (auto* v = t->get("oracle_sample")) {
    AV_ASSIGN_OR_RETURN(int64_t n, r.Integer(*v, "oracle_sample", 0, 1'000'000));
    c.oracle_sample = static_cast<int>(n);
  }
  if (auto* v = t->get("drawn_cases")) {
    AV_ASSIGN_OR_RETURN(int64_t n, r.Integer(*v, "drawn_cases", 0, 100));
    c.drawn_cases = static_cast<int>(n);
  }
  if (auto* v = t->get("jobs")) {
    AV_ASSIGN_OR_RETURN(int64_t j, r.Integer(*v, "jobs", 1, 1024));
    c.jobs = static_cast<int>(j);
  }
  return Status::Ok();
}

// [candidate] command (an argv template with {cases}, or {case_dir} / {out_dir}) or adapter
// (a named one of python/attnverify_candidate/adapters/), and which kind of run it is.
Status ParseCandidateCommand(const toml::node* n, const toml::table* t, const TomlTableReader& r,
                             NumericsConfig* out) {
  NumericsConfig& c = *out;
  const toml::node* cmd = t->get("command");
  const toml::node* adapter = t->get("adapter");
  if (cmd != nullptr && adapter != nullptr) {
    return r.Error(*adapter,
                   "[candidate] has both \"adapter\" and \"command\"; give one (the adapter "
                   "is a command: " +
                       ShellJoin(AdapterCommand("NAME")) + ")");
  }
  if (cmd == nullptr && adapter == nullptr) {
    return r.Error(*n,
                   "[candidate] needs a \"command\" (an array of strings) or an \"adapter\" (" +
                       KnownAdapterList() + ")");
  }
  bool all = false, per = false;
  if (adapter != nullptr) {
    AV_ASSIGN_OR_RETURN(std::string name, r.String(*adapter, "adapter"));
    if (!IsKnownAdapter(name)) {
      return r.Error(*adapter,
                     "unknown adapter \"" + name + "\" (known: " + KnownAdapterList() + ")");
    }
    c.candidate.command = AdapterCommand(name);
    c.candidate.adapter = name;
    all = true;
  } else {
    const toml::array* arr = cmd->as_array();
    if (arr == nullptr || arr->empty()) {
      return r.Error(*cmd, "\"command\" must be a non-empty array of strings (argv; no shell)");
    }
    for (const toml::node& item : *arr) {
      auto s = item.value<std::string>();
      if (!s) return r.Error(item, "\"command\" must hold strings");
      all |= s->find("{cases}") != std::string::npos;
      per |=
          s->find("{case_dir}") != std::string::npos || s->find("{out_dir}") != std::string::npos;
      c.candidate.command.push_back(*s);
    }
  }
  if (all == per) {
    return r.Error(
        *cmd,
        all ? "\"command\" uses {cases} together with {case_dir}/{out_dir}; choose one run for "
              "all cases ({cases}) or one run per case ({case_dir}, {out_dir})"
            : "\"command\" must contain {cases} (one run for all cases) or {case_dir} / "
              "{out_dir} "
              "(one run per case)");
  }
  c.candidate.mode = all ? CandidateMode::kAllCases : CandidateMode::kPerCase;
  return Status::Ok();
}

// The rest of [candidate]: prepare, timeout_s, cwd, sandbox, env.
Status ParseCandidateRun(const toml::table* t, const TomlTableReader& r, NumericsConfig* out) {
  NumericsConfig& c = *out;
  if (const toml::node* p = t->get("prepare")) {
    const toml::array* parr = p->as_array();
    if (parr == nullptr || parr->empty()) {
      return r.Error(*p, "\"prepare\" must be a non-empty array of strings (argv; no shell)");
    }
    for (const toml::node& item : *parr) {
      auto s = item.value<std::string>();
      if (!s) return r.Error(item, "\"prepare\" must hold strings");
      c.candidate.prepare.push_back(*s);
    }
  }
  if (auto* v = t->get("timeout_s")) {
    AV_ASSIGN_OR_RETURN(int64_t s, r.Integer(*v, "timeout_s", 1, 86400 * 7));
    c.candidate.timeout_s = static_cast<int>(s);
  }
  if (auto* v = t->get("cwd")) {
    AV_ASSIGN_OR_RETURN(std::string cwd, r.String(*v, "cwd"));
    c.candidate.cwd = Resolve(c.base_dir, cwd);
  }
  if (auto* v = t->get("sandbox")) {
    AV_ASSIGN_OR_RETURN(std::string mode, r.String(*v, "sandbox"));
    if (mode == "bwrap")
      c.candidate.sandbox = SandboxMode::kBwrap;
    else if (mode == "none")
      c.candidate.sandbox = SandboxMode::kNone;
    else
      return r.Error(*v, "\"sandbox\" must be \"bwrap\" or \"none\", got \"" + mode + "\"");
  }
  if (auto* v = t->get("env")) {
    const toml::table* e = v->as_table();
    if (e == nullptr) return r.Error(*v, "\"env\" must be a table of strings");
    for (const auto& [key, value] : *e) {
      auto s = value.value<std::string>();
      if (!s) return r.Error(value, "env \"" + std::string(key.str()) + "\" must be a string");
      c.candidate.env[std::string(key.str())] = *s;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<NumericsConfig> ParseNumericsConfig(const PackageConfig& package) {
  const std::string& path = package.path();
  const toml::table& doc = package.doc();
  TomlTableReader r(path);
  NumericsConfig c;
  c.path = path;
  c.base_dir = fs::absolute(fs::path(path)).parent_path().lexically_normal().string();
  NumericsPaths paths;
  if (const toml::node* n = doc.get("numerics")) {
    const toml::table* t = n->as_table();
    if (t == nullptr) return r.Error(*n, "\"numerics\" must be a table");
    AV_RETURN_IF_ERROR(ParseNumericsTable(t, r, &c, &paths));
  }
  c.shapes = Resolve(c.base_dir, paths.shapes);
  c.tolerances = Resolve(c.base_dir, paths.tolerances);
  c.work_dir = Resolve(c.base_dir, paths.work);
  c.evidence = Resolve(c.base_dir, paths.evidence);
  c.junit = Resolve(c.base_dir, paths.junit);
  c.candidate.cwd = c.base_dir;
  if (const toml::node* n = doc.get("candidate")) {
    const toml::table* t = n->as_table();
    if (t == nullptr) return r.Error(*n, "\"candidate\" must be a table");
    AV_RETURN_IF_ERROR(
        r.CheckKeys(*t, "[candidate]",
                    {"command", "adapter", "prepare", "timeout_s", "cwd", "env", "sandbox"}));
    AV_RETURN_IF_ERROR(ParseCandidateCommand(n, t, r, &c));
    AV_RETURN_IF_ERROR(ParseCandidateRun(t, r, &c));
    c.has_candidate = true;
  }
  return c;
}

Result<NumericsConfig> ParseNumericsConfig(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, path));
  return ParseNumericsConfig(package);
}

Result<NumericsConfig> LoadNumericsConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseNumericsConfig(package);
}

std::vector<std::string> ExpandCommand(const std::vector<std::string>& tmpl,
                                       const std::string& cases, const std::string& case_dir,
                                       const std::string& out_dir) {
  std::vector<std::string> out;
  for (std::string arg : tmpl) {
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"{cases}", cases},
                                     {"{case_dir}", case_dir},
                                     {"{out_dir}", out_dir}}) {
      size_t at = 0;
      while ((at = arg.find(key, at)) != std::string::npos) {
        arg.replace(at, key.size(), value);
        at += value.size();
      }
    }
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace av
