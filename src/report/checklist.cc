#include "report/checklist.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "report/checklist_internal.h"

namespace av {

namespace {

using checklist::Cite;
using checklist::MakeCheck;
using checklist::Missing;

constexpr const char* kItemTitles[8] = {
    "Numerical correctness",
    "Masks and boundaries",
    "Shared memory and registers",
    "GEMM tile scheduling",
    "Split-k",
    "Attention interface",
    "Fallback",
    "Evidence",
};

std::vector<Check> EvidenceChecks(const checklist::Context& ctx,
                                  const std::vector<EvidenceFile>& files) {
  std::vector<Check> out;
  const Evidence& ev = ctx.ev;
  {
    const char* title = "cited files exist and match their sha256";
    std::vector<std::string> bad;
    for (const ReferencedFile& r : ev.referenced) {
      if (!r.exists)
        bad.push_back(r.path + " (cited by " + r.cited_by + ") does not exist");
      else if (!r.expected_sha256.empty() && r.expected_sha256 != r.actual_sha256) {
        bad.push_back(r.path + " (cited by " + r.cited_by + ") has sha256 " +
                      r.actual_sha256.substr(0, 12) + ", the evidence recorded " +
                      r.expected_sha256.substr(0, 12));
      }
    }
    if (files.empty()) {
      out.push_back(
          Missing("8.files", title, "the package holds no evidence files", ctx.numerics_cmd));
    } else {
      Check c = MakeCheck(
          "8.files", title, bad.empty() ? CheckStatus::kPass : CheckStatus::kFail,
          bad.empty()
              ? std::to_string(files.size()) + " evidence files read; " +
                    std::to_string(ev.referenced.size()) + " files they cite exist and match"
              : std::to_string(bad.size()) +
                    " cited files are missing or changed since the evidence was written");
      c.details = bad;
      for (const EvidenceFile& f : files) c.citations.push_back(Cite(f));
      out.push_back(std::move(c));
    }
  }
  if (!ev.review) {
    std::string why = StageNote(ctx, "review");
    out.push_back(
        Missing("8.review", "the diff was reviewed",
                "no evidence/review.json in the package" + (why.empty() ? "" : ": " + why),
                ctx.review_cmd));
    return out;
  }
  const ReviewEvidence& r = *ev.review;
  Check reviewed = MakeCheck("8.review", "the diff was reviewed", CheckStatus::kPass,
                             "reviewer " + (r.reviewer.empty() ? std::string("?") : r.reviewer) +
                                 " over " + std::to_string(r.diffs.size()) +
                                 " diffs: " + std::to_string(r.findings.size()) + " findings");
  reviewed.citations.push_back(Cite(r.file));
  out.push_back(std::move(reviewed));
  std::vector<std::string> unverifiable;
  for (const Finding& f : r.findings) {
    if (!f.has_verify())
      unverifiable.push_back(f.id + " (" + f.rule + ", " + f.file + ":" + std::to_string(f.line) +
                             ")");
  }
  Check verifiable =
      MakeCheck("8.findings_verifiable", "every finding names the command that verifies it",
                unverifiable.empty() ? CheckStatus::kPass : CheckStatus::kFail,
                unverifiable.empty()
                    ? "all " + std::to_string(r.findings.size()) + " findings name a verify command"
                    : std::to_string(unverifiable.size()) +
                          (unverifiable.size() == 1 ? " finding names" : " findings name") +
                          " no verify command");
  verifiable.details = unverifiable;
  verifiable.citations.push_back(Cite(r.file));
  out.push_back(std::move(verifiable));
  return out;
}

// The config path commands in the report name (doc/report.md, "Commands"): as the user gave
// it to `attnverify report` when relative; else, when evidence/run.json records that
// `attnverify run` was given a relative --config for this same file, that one (the stages
// ran in the run's folder); else the absolute path, all we know.
std::string DisplayConfig(const Evidence& ev, const ReportConfig& cfg,
                          std::vector<std::string>* absolutes) {
  namespace fs = std::filesystem;
  auto norm = [](const std::string& p) { return fs::path(p).lexically_normal().string(); };
  if (fs::path(cfg.path).is_absolute()) absolutes->push_back(cfg.path);
  if (!cfg.package_dir.empty()) absolutes->push_back(norm(cfg.package_dir + "/attnverify.toml"));
  if (!cfg.path.empty() && !fs::path(cfg.path).is_absolute()) return cfg.path;
  if (ev.run && !ev.run->user_config.empty() && !fs::path(ev.run->user_config).is_absolute() &&
      fs::path(ev.run->config).is_absolute()) {
    const std::string recorded = norm(ev.run->config);
    for (const std::string& a : *absolutes) {
      if (norm(a) == recorded) {
        absolutes->push_back(ev.run->config);
        return ev.run->user_config;
      }
    }
  }
  return cfg.path;
}

void RewriteConfig(const std::vector<std::string>& absolutes, const std::string& display,
                   std::string* command) {
  for (const std::string& a : absolutes) {
    if (a == display) continue;
    for (const std::string& from : {"--config " + checklist::QuoteArg(a), "--config " + a}) {
      for (size_t at = command->find(from); at != std::string::npos;
           at = command->find(from, at + 1)) {
        const size_t end = at + from.size();
        if (end < command->size() && (*command)[end] != ' ' && (*command)[end] != '\n') continue;
        command->replace(at, from.size(), "--config " + checklist::QuoteArg(display));
      }
    }
  }
}

// The same on an argv: the argument after --config, when it names this config.
void RewriteConfigArgv(const std::vector<std::string>& absolutes, const std::string& display,
                       std::vector<std::string>* argv) {
  for (size_t i = 0; i + 1 < argv->size(); ++i) {
    if ((*argv)[i] != "--config") continue;
    for (const std::string& a : absolutes) {
      if (a != display && (*argv)[i + 1] == a) (*argv)[i + 1] = display;
    }
  }
}

void ApplyWaiver(const ReportConfig& cfg, Check* c) {
  auto it = cfg.waivers.find(c->id);
  if (it == cfg.waivers.end()) return;
  if (c->status == CheckStatus::kMissing) {
    c->required = false;
    c->waiver = it->second;
  } else if (c->status == CheckStatus::kFail) {
    c->details.push_back(
        "[policy] waive does not apply: the evidence says FAIL (waivers cover missing evidence "
        "only)");
  }
}

void JudgeItem(ItemResult* item) {
  const Check* fail = nullptr;
  const Check* missing = nullptr;
  int passed = 0, waived = 0;
  for (const Check& c : item->checks) {
    if (c.status == CheckStatus::kFail && fail == nullptr) fail = &c;
    if (c.status == CheckStatus::kMissing && c.required && missing == nullptr) missing = &c;
    passed += c.status == CheckStatus::kPass;
    waived += !c.waiver.empty();
  }
  if (fail != nullptr) {
    item->status = CheckStatus::kFail;
    item->reason = fail->title + ": " + fail->summary;
  } else if (missing != nullptr) {
    item->status = CheckStatus::kMissing;
    item->reason = missing->title + ": " + missing->summary;
  } else {
    item->status = CheckStatus::kPass;
    item->reason = std::to_string(passed) + (passed == 1 ? " check passes" : " checks pass");
    if (waived > 0) item->reason += ", " + std::to_string(waived) + " waived by [policy]";
  }
}

}  // namespace

ChecklistReport ComputeChecklist(const Evidence& given, const ReportConfig& given_cfg,
                                 const std::string& tool_version) {
  std::vector<std::string> absolutes;
  ReportConfig cfg = given_cfg;
  cfg.path = DisplayConfig(given, given_cfg, &absolutes);
  Evidence ev = given;
  for (std::string* cmd :
       {ev.numerics ? &ev.numerics->file.command : nullptr,
        ev.resources ? &ev.resources->file.command : nullptr,
        ev.review ? &ev.review->file.command : nullptr, ev.slice ? &ev.slice->command : nullptr,
        ev.perf ? &ev.perf->command : nullptr, ev.run ? &ev.run->file.command : nullptr}) {
    if (cmd != nullptr) RewriteConfig(absolutes, cfg.path, cmd);
  }
  if (ev.review) {
    for (Finding& f : ev.review->findings) {
      RewriteConfigArgv(absolutes, cfg.path, &f.verify);
      RewriteConfig(absolutes, cfg.path, &f.legacy_verify);
    }
  }
  checklist::Context ctx = checklist::MakeContext(ev, cfg);
  ChecklistReport report;
  report.title = cfg.title;
  report.tool_version = tool_version;
  report.config = cfg.path;
  report.required.assign(cfg.required.begin(), cfg.required.end());
  if (ev.numerics) report.evidence.push_back(ev.numerics->file);
  if (ev.resources) report.evidence.push_back(ev.resources->file);
  if (ev.review) report.evidence.push_back(ev.review->file);
  if (ev.slice) report.evidence.push_back(*ev.slice);
  if (ev.perf) report.evidence.push_back(*ev.perf);
  if (ev.run) report.evidence.push_back(ev.run->file);
  if (ev.review) {
    report.findings = ev.review->findings;
  }
  std::vector<std::vector<Check>> checks(8);
  checks[0] = checklist::NumericsChecks(ctx);
  checks[1] = checklist::MaskChecks(ctx, &report.coverage);
  checks[2] = checklist::ResourceChecks(ctx);
  checks[3] = checklist::GemmChecks(ctx);
  checks[4] = checklist::SplitKChecks(ctx);
  checks[5] = checklist::InterfaceChecks(ctx);
  checks[6] = checklist::FallbackChecks(ctx);
  // The check a failure is attributed to names the checks it explains; citations are
  // listed once.
  {
    std::map<std::string, std::vector<std::string>> explains;
    for (const auto& list : checks) {
      for (const Check& c : list) {
        for (const std::string& target : c.attributed_to) explains[target].push_back(c.id);
      }
    }
    for (auto& list : checks) {
      for (Check& c : list) {
        if (auto it = explains.find(c.id); it != explains.end() && c.status == CheckStatus::kFail) {
          std::string ids;
          for (const std::string& id : it->second) ids += (ids.empty() ? "" : ", ") + id;
          c.details.insert(c.details.begin(),
                           "explains the failures of " + ids + " (each is a case of this check)");
        }
        std::vector<Citation> unique;
        for (const Citation& x : c.citations) {
          bool seen = std::any_of(unique.begin(), unique.end(), [&](const Citation& u) {
            return u.file == x.file && u.sha256 == x.sha256 && u.command == x.command &&
                   u.subject == x.subject;
          });
          if (!seen) unique.push_back(x);
        }
        c.citations = std::move(unique);
      }
    }
  }
  // A conclusion without evidence does not appear: an uncited PASS/FAIL becomes MISSING.
  std::vector<std::string> uncited;
  for (auto& list : checks) {
    for (Check& c : list) {
      if (c.status != CheckStatus::kMissing && c.citations.empty()) {
        uncited.push_back(c.id);
        c.status = CheckStatus::kMissing;
        c.summary = "no evidence cited for: " + c.summary;
      }
    }
  }
  checks[7] = EvidenceChecks(ctx, report.evidence);
  {
    const char* title = "every conclusion cites evidence";
    if (report.evidence.empty()) {
      checks[7].push_back(
          Missing("8.conclusions_cited", title, "no evidence to cite", ctx.numerics_cmd));
    } else if (!uncited.empty()) {
      std::string ids;
      for (const std::string& id : uncited) ids += (ids.empty() ? "" : ", ") + id;
      checks[7].push_back(
          Missing("8.conclusions_cited", title, "left out as uncited: " + ids, ctx.numerics_cmd));
    } else {
      Check c = MakeCheck(
          "8.conclusions_cited", title, CheckStatus::kPass,
          "every PASS and FAIL above cites a file, its sha256 and the command that wrote it");
      for (const EvidenceFile& f : report.evidence) c.citations.push_back(Cite(f));
      checks[7].push_back(std::move(c));
    }
  }
  for (int i = 0; i < 8; ++i) {
    ItemResult item;
    item.number = i + 1;
    item.title = kItemTitles[i];
    item.required = cfg.required.count(i + 1) > 0;
    item.checks = std::move(checks[i]);
    for (Check& c : item.checks) ApplyWaiver(cfg, &c);
    for (const Finding& f : report.findings) {
      bool related =
          std::find(f.related_items.begin(), f.related_items.end(), i + 1) != f.related_items.end();
      if (f.checklist_item == i + 1 || related) item.findings.push_back(f);
    }
    JudgeItem(&item);
    report.items.push_back(std::move(item));
  }
  if (ev.resources) {
    for (const ResourcesKernelRow& k : ev.resources->kernels) {
      ResourceBar bar{k.kernel, k.arch};
      auto smem = [](const ResourcesKernelSide& s) {
        return s.ptxas_overflow ? s.overflow_bytes : s.total_smem_bytes;
      };
      if (k.base) bar.base_smem = smem(*k.base), bar.cap = k.base->smem_cap_bytes;
      if (k.head)
        bar.head_smem = smem(*k.head), bar.cap = k.head->smem_cap_bytes,
        bar.overflow = k.head->ptxas_overflow;
      report.resources.push_back(bar);
    }
  }
  report.heatmaps = ev.heatmaps;

  std::string failed, lacking;
  bool all_required_pass = true;
  for (const ItemResult& item : report.items) {
    if (item.status == CheckStatus::kFail)
      failed += (failed.empty() ? "" : ", ") + std::to_string(item.number);
    if (item.required && item.status != CheckStatus::kPass) {
      all_required_pass = false;
      if (item.status == CheckStatus::kMissing)
        lacking += (lacking.empty() ? "" : ", ") + std::to_string(item.number);
    }
  }
  if (!failed.empty()) {
    report.verdict = "rejected";
    report.verdict_reason = "evidence says no: item " + failed + " FAIL";
  } else if (all_required_pass) {
    report.verdict = "accepted";
    report.verdict_reason = "every required item passes, each with cited evidence";
  } else {
    report.verdict = "incomplete";
    report.verdict_reason = "required item " + lacking + " lack evidence (MISSING)";
  }
  return report;
}

int VerdictExitCode(const ChecklistReport& report) { return report.verdict == "accepted" ? 0 : 1; }

}  // namespace av
