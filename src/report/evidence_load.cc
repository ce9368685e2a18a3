// LoadEvidence: reads the package's evidence files that exist (parsers in evidence.cc, on
// the schemas of src/schema/), the files they cite (existence and sha256, for item 8;
// every recorded path resolved against the package folder) and failing cases' heatmaps.
#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "core/shell_quote.h"
#include "report/evidence.h"

namespace av {
namespace fs = std::filesystem;

namespace {

// Package-relative when inside the package, else the absolute path.
std::string Display(const fs::path& package, const std::string& p) {
  fs::path abs = fs::path(p).is_absolute() ? fs::path(p) : package / p;
  abs = abs.lexically_normal();
  fs::path rel = abs.lexically_relative(package);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return abs.string();
}

ReferencedFile Reference(const fs::path& package, const std::string& p, const std::string& cited_by,
                         const std::string& expected) {
  ReferencedFile r;
  r.path = Display(package, p);
  r.cited_by = cited_by;
  r.expected_sha256 = expected;
  fs::path abs = fs::path(p).is_absolute() ? fs::path(p) : package / p;
  std::error_code ec;
  if (fs::is_regular_file(abs, ec)) {
    r.exists = true;
    if (Result<std::string> sha = Sha256File(abs.string()); sha.ok()) r.actual_sha256 = *sha;
  }
  return r;
}

// Reads `rel` when it exists; nullopt when absent; an IoError when unreadable.
Result<std::optional<std::string>> ReadIfPresent(const fs::path& package, const std::string& rel) {
  fs::path abs = package / rel;
  std::error_code ec;
  if (!fs::exists(abs, ec)) return std::optional<std::string>();
  Result<std::string> text = ReadFileToString(abs.string());
  if (!text.ok()) return text.status();
  return std::optional<std::string>(std::move(*text));
}

// Each evidence file the report reads, when present: parsed strictly, its default command
// filled in, and the files it names added to the referenced list.
Status LoadNumerics(const fs::path& package, const std::string& config,
                    const EvidenceRequest& req, Evidence* e) {
  const std::string numerics_rel = Display(package, req.numerics_evidence);
  AV_ASSIGN_OR_RETURN(auto numerics_text, ReadIfPresent(package, req.numerics_evidence));
  if (numerics_text) {
    AV_ASSIGN_OR_RETURN(NumericsEvidence n, ParseNumericsEvidence(*numerics_text, numerics_rel));
    if (n.file.command.empty())
      n.file.command = "attnverify numerics --config " + ShellQuote(config);
    if (!n.config.shapes.empty()) {
      e->referenced.push_back(Reference(package, n.config.shapes, numerics_rel + " $.config.shapes",
                                       n.config.shapes_sha256));
    }
    if (!n.config.tolerances.empty()) {
      e->referenced.push_back(Reference(package, n.config.tolerances,
                                       numerics_rel + " $.config.tolerances",
                                       n.config.tolerances_sha256));
    }
    for (const NumericsCase& c : n.cases) {
      for (const std::string& h : c.heatmaps) {
        ReferencedFile ref = Reference(package, h, numerics_rel + " case " + c.id, "");
        if (ref.exists && !c.passed()) {
          fs::path abs = fs::path(h).is_absolute() ? fs::path(h) : package / h;
          if (Result<std::string> svg = ReadFileToString(abs.string()); svg.ok()) {
            e->heatmaps.push_back({ref.path, c.id, std::move(*svg)});
          }
        }
        e->referenced.push_back(std::move(ref));
      }
    }
    e->numerics = std::move(n);
  }
  return Status::Ok();
}

Status LoadResources(const fs::path& package, const std::string& config, Evidence* e) {
  AV_ASSIGN_OR_RETURN(auto resources_text, ReadIfPresent(package, "evidence/resources.json"));
  if (resources_text) {
    AV_ASSIGN_OR_RETURN(ResourcesEvidence r,
                        ParseResourcesEvidence(*resources_text, "evidence/resources.json"));
    if (r.file.command.empty()) {
      // resources.json names no command: the one that writes it, with the base it compared.
      std::vector<std::string> argv = {"attnverify", "build", "--config", config};
      if (r.head.ref == "imported") {
        argv.insert(argv.end(), {"--import", r.head.log});
        if (r.has_base() && r.base->ref == "imported")
          argv.insert(argv.end(), {"--import-base", r.base->log});
      } else if (r.has_base()) {
        argv.insert(argv.end(), {"--base", r.base->ref});
      }
      r.file.command = ShellJoin(argv);
    }
    for (const auto& [log, what] : {std::pair{r.head.log, "$.head.log"},
                                    {r.base ? r.base->log : std::string(), "$.base.log"}}) {
      if (!log.empty())
        e->referenced.push_back(
            Reference(package, log, std::string("evidence/resources.json ") + what, ""));
    }
    e->resources = std::move(r);
  }
  return Status::Ok();
}

Status LoadReview(const fs::path& package, const std::string& config, Evidence* e) {
  AV_ASSIGN_OR_RETURN(auto review_text, ReadIfPresent(package, "evidence/review.json"));
  if (review_text) {
    AV_ASSIGN_OR_RETURN(ReviewEvidence r,
                        ParseReviewEvidence(*review_text, "evidence/review.json"));
    if (r.file.command.empty()) r.file.command = "attnverify review --config " + ShellQuote(config);
    for (size_t i = 0; i < r.diffs.size(); ++i) {
      if (r.diffs[i].path.empty()) continue;
      e->referenced.push_back(Reference(package, r.diffs[i].path,
                                       "evidence/review.json $.diffs[" + std::to_string(i) + "]",
                                       r.diffs[i].sha256));
    }
    e->review = std::move(r);
  }
  return Status::Ok();
}

Status LoadRun(const fs::path& package, Evidence* e) {
  AV_ASSIGN_OR_RETURN(auto run_text, ReadIfPresent(package, "evidence/run.json"));
  if (run_text) {
    AV_ASSIGN_OR_RETURN(ReportRunEvidence r, ParseRunEvidence(*run_text, "evidence/run.json"));
    const std::vector<StageEntry>& stages = r.ledger.stages;
    for (size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].log.empty()) continue;
      e->referenced.push_back(Reference(package, stages[i].log,
                                       "evidence/run.json $.stages[" + std::to_string(i) + "]",
                                       stages[i].log_sha256));
    }
    e->run = std::move(r);
  }
  return Status::Ok();
}

Status LoadSliceAndPerf(const fs::path& package, const std::string& config, Evidence* e) {
  AV_ASSIGN_OR_RETURN(auto slice_text, ReadIfPresent(package, "evidence/slice.json"));
  if (slice_text) {
    AV_ASSIGN_OR_RETURN(EvidenceFile f, ParseSliceEvidence(*slice_text, "evidence/slice.json",
                                                             &e->slice_components));
    if (f.command.empty()) f.command = "attnverify slice --config " + ShellQuote(config);
    e->slice = std::move(f);
  }
  AV_ASSIGN_OR_RETURN(auto perf_text, ReadIfPresent(package, "evidence/perf.json"));
  if (perf_text) {
    AV_ASSIGN_OR_RETURN(PerfEvidence p, ParsePerfEvidence(*perf_text, "evidence/perf.json"));
    EvidenceFile f = std::move(p.file);
    e->perf_doc = std::move(p.record);
    if (f.command.empty())
      f.command = "attnverify profile --import ... --config " + ShellQuote(config);
    e->perf = std::move(f);
  }
  return Status::Ok();
}

// pytest's JUnit file, when --junit or [report] junit names one (never bound to a run).
Status LoadJUnit(const fs::path& package, const EvidenceRequest& req, Evidence* e) {
  if (req.junit.empty()) return Status::Ok();
  const std::string rel = Display(package, req.junit);
  const fs::path abs =
      fs::path(req.junit).is_absolute() ? fs::path(req.junit) : package / req.junit;
  std::error_code ec;
  if (!fs::is_regular_file(abs, ec)) {
    return NotFound(rel + ": no such JUnit file (named by --junit or [report] junit)");
  }
  if (fs::file_size(abs, ec) > kMaxJUnitBytes) {
    return InvalidInput(rel + ": larger than " + std::to_string(kMaxJUnitBytes >> 20) +
                        " MiB; not read");
  }
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(abs.string()));
  AV_ASSIGN_OR_RETURN(JUnitReport parsed, ParseJUnitXml(text, rel));
  JUnitEvidence j;
  static_cast<JUnitReport&>(j) = std::move(parsed);
  j.file.path = rel;
  j.file.sha256 = Sha256Hex(text);
  j.file.command = "python3 -m pytest --junitxml " + ShellQuote(rel) + " ... (pytest_attnverify)";
  e->junit = std::move(j);
  return Status::Ok();
}

}  // namespace

Result<Evidence> LoadEvidence(const EvidenceRequest& req) {
  const fs::path package = fs::path(req.package_dir).lexically_normal();
  Evidence e;
  const std::string config =
      req.config_path.empty() ? "attention-verify/attnverify.toml" : req.config_path;
  if (Result<std::string> sha = Sha256File((package / "attnverify.toml").string()); sha.ok())
    e.config_sha256 = *sha;
  AV_RETURN_IF_ERROR(LoadNumerics(package, config, req, &e));
  AV_RETURN_IF_ERROR(LoadResources(package, config, &e));
  AV_RETURN_IF_ERROR(LoadReview(package, config, &e));
  AV_RETURN_IF_ERROR(LoadRun(package, &e));
  AV_RETURN_IF_ERROR(LoadSliceAndPerf(package, config, &e));
  AV_RETURN_IF_ERROR(LoadJUnit(package, req, &e));
  return e;
}

}  // namespace av
