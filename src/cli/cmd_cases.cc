// attnverify cases: the protocol's case folders without a candidate. `--export DIR`
// writes DIR/cases/<id>/{case.json,inputs.safetensors} and DIR/cases.json exactly as
// `numerics` would (the same builders, so the same bytes: the pytest plugin reads them);
// `--list` prints the ids; `--import-outputs FROM CASES_JSON` is the candidate that
// `attnverify judge` runs: it copies FROM/cases/<id>/out/* into each case's out/;
// `--shard-plan N` prints how `numerics --shard i/N` shares the sweep out.
// Exit 0 ok, 2 usage or input error.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "cli/case_source.h"
#include "cli/commands.h"
#include "cli/parse.h"
#include "core/file.h"
#include "sweep/case_builder.h"
#include "sweep/case_files.h"
#include "sweep/drawn_cases.h"
#include "sweep/invariance.h"
#include "sweep/run_salt.h"
#include "sweep/shard_plan.h"
#include "sweep/tolerances_config.h"

namespace av::cli {
namespace {
namespace fs = std::filesystem;

constexpr const char* kCasesHelp =
    "The candidate protocol's case folders, without running a candidate.\n"
    "  --export DIR   write DIR/cases/<id>/ (case.json, inputs.safetensors) and DIR/cases.json\n"
    "                 for every case of the sweep (or --filter / --case), byte for byte what\n"
    "                 `attnverify numerics` writes; the inputs are drawn under a fresh salt\n"
    "                 (--salt HEX to repeat an export) with the toml's drawn cases added,\n"
    "                 both stamped into cases.json for `attnverify judge`\n"
    "  --list         print the case ids, one a line\n"
    "  --import-outputs FROM CASES_JSON\n"
    "                 copy FROM/cases/<id>/out/* into the out/ folder of each case of\n"
    "                 CASES_JSON (the candidate `attnverify judge` runs)\n"
    "  --shard-plan N print each shard of `numerics --shard i/N`: its groups, cases and\n"
    "                 estimated reference work (doc/sharding.md)\n"
    "The sweep: --config attnverify.toml, or --shapes and --tolerances. Format:\n"
    "doc/formats/candidate-protocol.md; the pytest plugin: doc/python.md.";

// The cases a run keeps: groups (a base case and its variants) with a member matching
// `filter`, each with its base case, as `numerics --filter` keeps them.
Result<std::vector<CaseSpec>> SelectCases(const std::vector<CaseSpec>& all,
                                          const std::string& filter) {
  if (filter.empty()) return all;
  std::regex re;
  try {
    re = std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return InvalidInput("--filter \"" + filter +
                        "\" is not a valid regular expression: " + e.what());
  }
  std::vector<CaseSpec> kept;
  for (size_t i = 0; i < all.size();) {
    size_t j = i + 1;
    while (j < all.size() && all[j].kind != VariantKind::kBase) ++j;
    std::vector<bool> keep(j - i, false);
    bool any = false;
    for (size_t k = i; k < j; ++k) any |= (keep[k - i] = std::regex_search(all[k].id, re));
    for (size_t k = i; any && k < j; ++k) {
      if (k == i || keep[k - i]) kept.push_back(all[k]);
    }
    i = j;
  }
  if (kept.empty()) {
    return InvalidInput("no case: --filter \"" + filter + "\" matches none of the " +
                        std::to_string(all.size()) + " cases");
  }
  return kept;
}

// Builds every case as the sweep does: a group's variants start from its base case's
// inputs (permutations rewrite a copy), seed variants build their own.
Status ExportCases(const std::string& dir, const std::vector<CaseSpec>& specs,
                   const ExportStamp& stamp) {
  AV_ASSIGN_OR_RETURN(std::vector<std::string> warnings, PrepareWorkFolder(dir));
  for (const std::string& w : warnings)
    std::fprintf(stderr, "attnverify: warning: %s\n", w.c_str());
  std::vector<WrittenCase> written;
  std::optional<BuiltCase> base;
  // The key/value side once per input family, as numerics generates it (the same bytes
  // either way); families recur across the expansion, so several are kept.
  SharedInputs shared(64, int64_t{1} << 30);
  for (const CaseSpec& spec : specs) {
    if (spec.kind == VariantKind::kBase) base.reset();
    Result<BuiltCase> built = InvalidInput("not built");
    if (spec.kind == VariantKind::kSeed) {
      built = BuildCase(spec, &shared);
    } else {
      if (!base) {
        CaseSpec plain = spec;
        plain.kind = VariantKind::kBase;
        AV_ASSIGN_OR_RETURN(BuiltCase b, BuildCase(plain, &shared));
        base = std::move(b);
      }
      built = *base;
      AV_RETURN_IF_ERROR(ApplyInputVariant(spec, &*built));
    }
    if (!built.ok()) return built.status().WithContext("case " + spec.id);
    CaseWriteOptions options;
    options.relative_paths = true;  // the export may be copied to a GPU box and run there
    AV_ASSIGN_OR_RETURN(WrittenCase wc, WriteCase(dir, spec, *built, options));
    written.push_back(std::move(wc));
  }
  AV_ASSIGN_OR_RETURN(std::string index, WriteCasesIndex(dir, written, specs, &stamp));
  const auto drawn = std::count_if(specs.begin(), specs.end(), [](const CaseSpec& s) { return s.drawn; });
  std::printf("%zu cases written (salt %s, %lld drawn): %s\n", written.size(), SaltHex(stamp.salt).c_str(),
              static_cast<long long>(drawn), index.c_str());
  return Status::Ok();
}

bool IsCaseId(const std::string& id) {
  if (id.empty() || id == "." || id == "..") return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '=' &&
        c != '+' && c != '-')
      return false;
  }
  return true;
}

// The candidate of `attnverify judge`: outputs a test already wrote, copied into place.
// Only regular files are copied; a case without outputs is left without (it fails as
// a missing output, which is what it is).
Status ImportOutputs(const std::string& from, const std::string& cases_json) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(cases_json));
  nlohmann::json index = nlohmann::json::parse(text, nullptr, false);
  if (index.is_discarded() || !index.contains("cases") || !index["cases"].is_array())
    return InvalidInput(cases_json + ": not a cases.json (no \"cases\" array)");
  int copied = 0, missing = 0;
  for (const nlohmann::json& c : index["cases"]) {
    if (!c.is_object() || !c.value("id", nlohmann::json()).is_string() ||
        !c.value("out_dir", nlohmann::json()).is_string())
      return InvalidInput(cases_json + ": a case without \"id\" and \"out_dir\"");
    const std::string id = c["id"];
    if (!IsCaseId(id)) return InvalidInput(cases_json + ": \"" + id + "\" is not a case id");
    const fs::path src = fs::path(from) / "cases" / id / "out";
    std::error_code ec;
    bool any = false;
    for (const auto& e : fs::directory_iterator(src, ec)) {
      if (!e.is_regular_file(ec) || e.is_symlink(ec)) continue;
      // out_dir is absolute, or relative to cases.json's folder (a work folder whose path
      // is not UTF-8: doc/formats/candidate-protocol.md).
      const fs::path out_dir = fs::path(cases_json).parent_path() / c["out_dir"].get<std::string>();
      fs::copy_file(e.path(), out_dir / e.path().filename(),
                    fs::copy_options::overwrite_existing, ec);
      if (ec) return IoError(e.path().string() + ": cannot copy: " + ec.message());
      any = true;
    }
    any ? ++copied : ++missing;
    if (!any) std::fprintf(stderr, "%s: no outputs in %s\n", id.c_str(), src.c_str());
  }
  std::printf("outputs of %d cases copied, %d without outputs\n", copied, missing);
  return Status::Ok();
}

// The plan `numerics --shard i/N` follows, one line per shard, for sizing a job array.
void PrintShardPlan(const std::vector<CaseSpec>& all, int shards) {
  const ShardPlan plan = PlanShards(all, shards);
  std::vector<int64_t> groups(static_cast<size_t>(shards), 0);
  for (int s : plan.shard_of_group) ++groups[static_cast<size_t>(s)];
  double total = 0, most = 0;
  for (double f : plan.flops) {
    total += f;
    most = std::max(most, f);
  }
  std::printf("shard  groups  cases  est. GFLOP  share\n");
  for (int s = 0; s < shards; ++s) {
    const size_t i = static_cast<size_t>(s);
    std::printf("%d/%d  %6lld  %5lld  %10.1f  %4.1f%%\n", s, shards,
                static_cast<long long>(groups[i]), static_cast<long long>(plan.cases[i]),
                plan.flops[i] / 1e9, total > 0 ? 100 * plan.flops[i] / total : 0.0);
  }
  std::printf("total  %6zu  %5zu  %10.1f  (the largest shard is %.2fx the mean)\n",
              plan.shard_of_group.size(), all.size(), total / 1e9,
              total > 0 ? most / (total / shards) : 1.0);
}

}  // namespace

int RunCases(std::vector<std::string> args) {
  CLI::App app(kCasesHelp, "attnverify cases");
  CaseSourceFlags flags;
  std::string filter, export_dir, salt_hex;
  std::vector<std::string> ids, import;
  bool list = false;
  int shard_plan = 0;
  app.add_option("--config", flags.config, "attnverify.toml ([numerics] shapes, tolerances)");
  app.add_option("--shapes", flags.shapes, "shapes.json (instead of the toml's)");
  app.add_option("--tolerances", flags.tolerances, "tolerances.json (instead of the toml's)");
  app.add_option("--filter", filter, "only cases whose id matches this regular expression");
  app.add_option("--case", ids, "only this case id (repeatable)");
  app.add_option("--export", export_dir, "write the case folders and cases.json here");
  app.add_option("--salt", salt_hex,
                 "HEX: the export's salt (default: a fresh random one, so no two exports hand "
                 "a test the same inputs)");
  app.add_flag("--list", list, "print the case ids");
  app.add_option("--shard-plan", shard_plan, "N: print how --shard i/N shares the sweep out")
      ->check(CLI::Range(1, 100000));
  app.add_option("--import-outputs", import, "FROM CASES_JSON: copy outputs into out/")
      ->expected(2);
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if (!import.empty()) {
    Status st = ImportOutputs(import[0], import[1]);
    return st.ok() ? kExitOk : ReportError(st);
  }
  if (export_dir.empty() && !list && shard_plan == 0) {
    return ReportError(InvalidInput(
        "cases: give --export DIR, --list or --shard-plan N (attnverify help cases)"));
  }
  if (!ids.empty()) {
    if (!filter.empty()) return ReportError(InvalidInput("cases: --filter or --case, not both"));
    Result<std::string> re = ExactIdFilter(ids);
    if (!re.ok()) return ReportError(re.status());
    filter = *re;
  }
  Result<NumericsConfig> config = ResolveCaseSource(flags);
  if (!config.ok()) return ReportError(config.status());
  Result<ShapesConfig> shapes = LoadShapesConfig(config->shapes);
  if (!shapes.ok()) return ReportError(shapes.status());
  Result<std::vector<CaseSpec>> all = ExpandCases(*shapes);
  if (!all.ok()) return ReportError(all.status());
  // An export is a run's worth of cases: its own salt keys every input (a test cannot be
  // answered from outputs cached by an earlier export) and draws the run's extra cases,
  // as `numerics` does. --list and --shard-plan show the published sweep only.
  ExportStamp stamp;
  if (!export_dir.empty()) {
    uint64_t salt = FreshSalt();
    if (!salt_hex.empty()) {
      Result<uint64_t> parsed = ParseSalt(salt_hex);
      if (!parsed.ok()) return ReportError(parsed.status().WithContext("--salt"));
      salt = *parsed;
    }
    for (CaseSpec& c : DrawCases(*shapes, *all, salt, config->drawn_cases))
      all->push_back(std::move(c));
    for (CaseSpec& c : *all) c.salt = salt;
    stamp = ExportStamp{salt, config->drawn_cases};
  } else if (!salt_hex.empty()) {
    return ReportError(InvalidInput("cases: --salt applies to --export only"));
  }
  // The tolerances must cover every case, as for `numerics`: an export for pytest
  // whose judge would refuse the sweep helps nobody.
  Result<TolerancesConfig> tol = LoadTolerancesConfig(config->tolerances);
  if (!tol.ok()) return ReportError(tol.status());
  if (Status st = CheckTolerancesCover(*tol, *all); !st.ok()) return ReportError(st);
  if (shard_plan > 0) {
    // The plan is over the whole expansion, as numerics computes it (a filter then keeps
    // a subset of each shard).
    PrintShardPlan(*all, shard_plan);
    if (export_dir.empty() && !list) return kExitOk;
  }
  Result<std::vector<CaseSpec>> specs = SelectCases(*all, filter);
  if (!specs.ok()) return ReportError(specs.status());
  if (list) {
    for (const CaseSpec& s : *specs) std::printf("%s\n", s.id.c_str());
  }
  if (!export_dir.empty()) {
    Status st = ExportCases(fs::absolute(export_dir).lexically_normal().string(), *specs, stamp);
    if (!st.ok()) return ReportError(st);
  }
  return kExitOk;
}

}  // namespace av::cli
