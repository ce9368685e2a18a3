// Evidence bound to its run (doc/report.md, "Evidence bound to its run"): before any check
// is judged, each evidence file is matched against evidence/run.json's entry for the stage
// that writes it. A file whose stage is recorded error or skipped, whose run id differs
// from the entry's, whose sha256 is not the one the entry recorded, or that has no run
// binding at all is refused: the checklist judges as if it were absent, and every check
// that needed it is MISSING with the reason. Never PASS, never FAIL on such a file.
#include <algorithm>
#include <set>

#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

// The stage whose run.json entry a file is checked against: the one its provenance names
// (e.g. "merge" for merged shards), else the one that writes that file; numerics.json may
// also be merge's, when merge's entry recorded it (the later of the two when both did).
std::string StageOf(const Evidence& ev, const EvidenceFile& f, const char* writer) {
  if (!f.stage.empty()) return f.stage;
  if (std::string(writer) == "numerics" && ev.run) {
    const StageEntry* merge = ev.run->Stage("merge");
    const StageEntry* numerics = ev.run->Stage("numerics");
    if (merge != nullptr && merge->Output(f.path) != nullptr &&
        (numerics == nullptr || numerics->Output(f.path) == nullptr ||
         merge->finished > numerics->finished)) {
      return "merge";
    }
  }
  return writer;
}

std::string Short(const std::string& sha) { return sha.substr(0, 12); }

// Why `f` may not be judged; empty when it is bound to its stage's latest entry. The
// binding is the ledger's: the entry recorded this file's sha256 among what the stage
// wrote, under the entry's run id. A file that names its run (provenance.run_id) must
// name that one; a file that names none is bound only by the ledger.
// Why `f` was not written for the package being judged: its provenance names another
// config file, or this config with other bytes (evidence replayed from another package or
// candidate). Empty when it matches, or when the report has no trust facts (tests).
std::string ConfigMismatch(const Evidence& ev, const EvidenceFile& f) {
  if (!ev.run || !ev.run->trust || !f.has_provenance || f.provenance.config.empty()) return "";
  const RunTrust& t = *ev.run->trust;
  if (f.provenance.config != t.config) {
    return "it was written under the config " + f.provenance.config + ", and this report judges " +
           t.config;
  }
  for (const InputDigest& in : f.provenance.inputs) {
    if (in.path != f.provenance.config || t.config_sha256.empty()) continue;
    if (in.sha256 != t.config_sha256) {
      return "it was written under another " + t.config + " (sha256 " + Short(in.sha256) +
             ", the package's is " + Short(t.config_sha256) + " now)";
    }
  }
  return "";
}

std::string Refusal(const Evidence& ev, const EvidenceFile& f, const std::string& stage,
                    const std::string& rerun) {
  const std::string again = "; re-run `" + rerun + "`";
  const std::string unbound = f.run_id.empty() ? "not bound to a run: " : "";
  // A ledger edited after attnverify sealed it binds nothing.
  if (ev.run && ev.run->trust && ev.run->trust->seal == SealState::kBroken) {
    return ev.run->trust->note + again;
  }
  if (!ev.run) {
    return f.run_id.empty()
               ? "not bound to a run: there is no evidence/run.json to say which run wrote it" +
                     again
               : "evidence/run.json is missing, so nothing records what the " + stage +
                     " stage of run " + f.run_id + " wrote" + again;
  }
  const StageEntry* e = ev.run->Stage(stage);
  if (e == nullptr) return unbound + "evidence/run.json has no " + stage + " stage" + again;
  const std::string latest = "the latest " + stage + " stage (run " +
                             (e->run_id.empty() ? std::string("unknown") : e->run_id) + ")";
  const std::string earlier =
      f.run_id.empty() ? "an earlier run" : "an earlier run (" + f.run_id + ")";
  if (e->status == StageStatus::kSkipped) {
    return latest + " was skipped (" + e->reason + "); this file is from " + earlier + again;
  }
  if (e->status == StageStatus::kError) {
    return latest + " failed: " + e->reason + (e->log.empty() ? "" : " (log " + e->log + ")") +
           "; this file is not its output" + again;
  }
  if (e->run_id.empty()) {
    return "not bound to a run: evidence/run.json records no run ids (written by an older "
           "attnverify)" +
           again;
  }
  if (!f.run_id.empty() && e->run_id != f.run_id) {
    return "it comes from run " + f.run_id + ", but " + latest + " wrote none of it" + again;
  }
  const OutputDigest* out = e->Output(f.path);
  if (out == nullptr) {
    return unbound + latest + " did not write " + f.path +
           " (it is not among the stage's outputs in evidence/run.json)" + again;
  }
  if (out->sha256 != f.sha256) {
    return "changed after " + latest + " wrote it: sha256 " + Short(f.sha256) +
           ", evidence/run.json recorded " + Short(out->sha256) + again;
  }
  // Bound to its run, but was the run judging this package's config?
  if (std::string other = ConfigMismatch(ev, f); !other.empty()) return other + again;
  return "";
}

}  // namespace

Evidence BindEvidence(const Evidence& given, const Context& commands,
                      std::vector<EvidenceBinding>* bindings) {
  Evidence ev = given;
  std::set<std::string> refused_paths;
  auto bind = [&](auto& slot, EvidenceFile& f, const char* writer, const std::string& rerun) {
    EvidenceBinding b{f.path, StageOf(given, f, writer), f.run_id, f.head_commit, true, "", rerun};
    // The run it came from is the entry's (the file may not name it).
    if (given.run) {
      if (const StageEntry* e = given.run->Stage(b.stage); e != nullptr && b.run_id.empty())
        b.run_id = e->run_id;
    }
    b.refused = Refusal(given, f, b.stage, rerun);
    b.used = b.refused.empty();
    if (given.run && b.used) {
      if (const StageEntry* e = given.run->Stage(b.stage)) {
        f.command = StageCommand(*e, commands.cfg, commands.cfg.path);
      }
    }
    if (!b.used) {
      f.command = rerun;
      refused_paths.insert(f.path);
      slot.reset();
    }
    bindings->push_back(std::move(b));
  };
  if (ev.numerics) bind(ev.numerics, ev.numerics->file, "numerics", commands.numerics_cmd);
  if (ev.resources) bind(ev.resources, ev.resources->file, "build", commands.build_cmd);
  if (ev.review) bind(ev.review, ev.review->file, "review", commands.review_cmd);
  if (ev.slice) bind(ev.slice, *ev.slice, "slice", commands.slice_cmd);
  if (!ev.slice) ev.slice_components.clear();
  // perf.json: no stage of `attnverify run` writes it (profiler exports are made on a GPU
  // host and imported), so no ledger entry binds it and it is judged as imported. A /2
  // file's provenance must still name the config this report judges, with its bytes now
  // (rule 5); a /1 file, which has none, is judged as before. A refused one stays listed
  // with the reason, and its record is dropped (4.perf and 3.bank_conflicts MISSING).
  if (ev.perf) {
    if (std::string other = ConfigMismatch(given, *ev.perf); !other.empty()) {
      ev.perf->refused = other + "; import the profiles again under this config";
      ev.perf->command = commands.profile_cmd;
      ev.perf_doc.reset();
    }
  }
  // What a refused file cites is not checked for it either (8.files), nor shown.
  auto cited_by_refused = [&](const std::string& cited_by) {
    return std::any_of(refused_paths.begin(), refused_paths.end(), [&](const std::string& p) {
      return cited_by.compare(0, p.size() + 1, p + " ") == 0;
    });
  };
  std::erase_if(ev.referenced,
                [&](const ReferencedFile& r) { return cited_by_refused(r.cited_by); });
  if (!given.numerics || refused_paths.count(given.numerics->file.path)) ev.heatmaps.clear();
  return ev;
}

const EvidenceBinding* BindingOf(const Context& ctx, const std::string& stage) {
  for (const EvidenceBinding& b : ctx.bindings) {
    if (b.stage == stage || (stage == "numerics" && b.stage == "merge")) return &b;
  }
  return nullptr;
}

std::string AbsentNote(const Context& ctx, const std::string& stage, const std::string& file) {
  if (const EvidenceBinding* b = BindingOf(ctx, stage); b != nullptr && !b->used) {
    return b->file + " is not used: " + b->refused;
  }
  std::string why = StageNote(ctx, stage);
  return "no " + file + " in the package" + (why.empty() ? "" : ": " + why);
}

}  // namespace av::checklist
