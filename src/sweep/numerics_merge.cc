#include "sweep/numerics_merge.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/shell_quote.h"

namespace av {
namespace {

// The candidate command as a shard recorded it (schema /1 kept it as text).
std::string CandidateCommand(const NumericsRecord& r) {
  return r.config.candidate_argv.empty() ? r.config.legacy_candidate_command
                                         : ShellJoin(r.config.candidate_argv);
}

// The checks that shards belong together; the first shard is the yardstick.
Status CheckSameRun(const NumericsShard& s, const NumericsShard& first,
                    std::vector<std::string>* warnings) {
  if (s.record.schema.empty())
    return InvalidInput(s.path + ": $.schema: missing (not a numerics.json?)");
  const NumericsConfigRecord& c = s.record.config;
  const NumericsConfigRecord& f = first.record.config;
  for (const auto& [mine, theirs, what] :
       {std::tuple{&c.shapes_sha256, &f.shapes_sha256, "shapes.json"},
        {&c.tolerances_sha256, &f.tolerances_sha256, "tolerances.json"}}) {
    if (*mine != *theirs) {
      return InvalidInput(s.path + ": was run with another " + what + " than " + first.path +
                          " (sha256 " + mine->substr(0, 12) + " vs " + theirs->substr(0, 12) +
                          "): shards must come from the same configuration");
    }
  }
  if (c.input_generator != f.input_generator) {
    return InvalidInput(s.path + ": inputs came from generator \"" + c.input_generator + "\", " +
                        first.path + "'s from \"" + f.input_generator +
                        "\" (run every shard with the same attnverify)");
  }
  const int64_t count = first.record.shard.count;
  if (s.record.shard.count != count) {
    return InvalidInput(s.path + ": is a shard of " + std::to_string(s.record.shard.count) + ", " +
                        first.path + " of " + std::to_string(count) +
                        " (--shard i/N must use the same N)");
  }
  if (s.record.filter != first.record.filter) {
    return InvalidInput(s.path + ": ran with --filter \"" + s.record.filter + "\", " + first.path +
                        " with \"" + first.record.filter + "\"");
  }
  if (CandidateCommand(s.record) != CandidateCommand(first.record)) {
    warnings->push_back(s.path + ": candidate command \"" + CandidateCommand(s.record) +
                        "\" differs from " + first.path + "'s \"" + CandidateCommand(first.record) +
                        "\"");
  }
  return Status::Ok();
}

// "sweep_id \"41\" vs \"57\", cases_sha256 1a2b3c4d5e6f vs ..." for the keys whose values
// differ (a key one side lacks counts as differing); "" when the identities agree.
std::string IdentityDifference(const RunIdentity& mine, const RunIdentity& theirs) {
  std::map<std::string, std::pair<std::string, std::string>> keys;
  for (const auto& [k, v] : mine) keys[k].first = v;
  for (const auto& [k, v] : theirs) keys[k].second = v;
  auto shown = [](const std::string& key, const std::string& v) {
    if (key.ends_with("_sha256")) return v.substr(0, 12);
    return "\"" + v + "\"";
  };
  std::string out;
  for (const auto& [k, v] : keys) {
    if (mine.count(k) == theirs.count(k) && v.first == v.second) continue;
    out += (out.empty() ? "" : ", ") + k + " " +
           (mine.count(k) ? shown(k, v.first) : std::string("(none)")) + " vs " +
           (theirs.count(k) ? shown(k, v.second) : std::string("(none)"));
  }
  return out;
}

// Every shard of one run carries the same run identity (schema/numerics_json.h): a shard
// left in evidence/ by an earlier run (another --sweep-id, another kernel's config, another
// case list) is refused, named beside the shard it was compared with: the one that
// started last, which is this run's. Files that predate the identity: a warning only,
// when none of the shards has one (nothing can tell them apart).
Status CheckOneRun(const std::vector<NumericsShard>& shards, std::vector<std::string>* warnings) {
  const NumericsShard* latest = &shards.front();
  for (const NumericsShard& s : shards) {
    if (s.record.provenance.started > latest->record.provenance.started) latest = &s;
  }
  const RunIdentity& want = latest->record.run_identity;
  const int64_t count = shards.front().record.shard.count;
  if (want.empty() && std::all_of(shards.begin(), shards.end(), [](const NumericsShard& s) {
        return s.record.run_identity.empty();
      })) {
    if (count > 1) {
      warnings->push_back(
          "the shards record no run identity (written by an older attnverify): a shard left "
          "by an earlier run cannot be told apart from this run's");
    }
    return Status::Ok();
  }
  for (const NumericsShard& s : shards) {
    if (&s == latest) continue;
    const RunIdentity& mine = s.record.run_identity;
    std::string diff = mine.empty() || want.empty()
                           ? (mine.empty() ? s.path : latest->path) +
                                 " records no run identity (written by an older attnverify)"
                           : IdentityDifference(mine, want);
    if (diff.empty()) continue;
    // The flags that make a re-run of the shard part of this run.
    std::string again;
    for (const char* key : {"sweep_id", "salt"}) {
      auto it = want.find(key);
      if (it == want.end() || it->second.empty()) continue;
      again += std::string(key == std::string("salt") ? " --salt " : " --sweep-id ") + it->second;
    }
    return InvalidInput(
        s.path + " comes from another run than " + latest->path + " (" + diff + "; started " +
        s.record.provenance.started + " vs " + latest->record.provenance.started +
        "): merge refuses shards of different runs. A shard left by an earlier run? Remove it, "
        "or run `attnverify numerics --shard " + std::to_string(s.record.shard.index) + "/" +
        std::to_string(count) + again + "` again and merge");
  }
  if (count > 1 && (!want.count("sweep_id") || want.at("sweep_id").empty())) {
    warnings->push_back(
        "the shards carry no --sweep-id: a shard left by an earlier run of the same "
        "configuration cannot be told apart from this run's (pass --sweep-id, e.g. the job "
        "array's id, to every shard)");
  }
  return Status::Ok();
}

}  // namespace

Result<MergedNumerics> MergeNumericsShards(const std::vector<NumericsShard>& shards,
                                           bool allow_missing, Provenance provenance) {
  if (shards.empty()) return InvalidInput("merge needs at least one shard file");
  MergedNumerics out;
  const NumericsShard& first = shards.front();
  const int64_t count = first.record.shard.count;
  std::map<int64_t, std::string> by_index;
  std::map<std::string, std::string> owner;  // case id -> shard path
  NumericsRecord& merged = out.record;
  merged.shard.merged = true;
  for (const NumericsShard& s : shards) {
    AV_RETURN_IF_ERROR(CheckSameRun(s, first, &out.warnings));
    const int64_t index = s.record.shard.index;
    auto [it, fresh] = by_index.emplace(index, s.path);
    if (!fresh) {
      return InvalidInput(s.path + " and " + it->second + " are both shard " +
                          std::to_string(index) + "/" + std::to_string(count));
    }
    merged.shard.merged_from.push_back({s.path, s.sha256, index, count});
    provenance.inputs.push_back({s.path, s.sha256});
    for (const NumericsCase& c : s.record.cases) {
      auto [o, added] = owner.emplace(c.id, s.path);
      if (!added)
        return InvalidInput("case " + c.id + " is in both " + o->second + " and " + s.path);
      merged.cases.push_back(c);
    }
    for (const InvarianceRecord& r : s.record.invariance) merged.invariance.push_back(r);
    // Cases the tests skipped stay skipped in the merged evidence (once each).
    for (const SkippedCaseRecord& k : s.record.skipped) {
      auto [o, added] = owner.emplace(k.id, s.path);
      if (!added)
        return InvalidInput("case " + k.id + " is in both " + o->second + " and " + s.path);
      merged.skipped.push_back(k);
    }
  }
  AV_RETURN_IF_ERROR(CheckOneRun(shards, &out.warnings));
  for (int64_t i = 0; i < count; ++i) {
    if (!by_index.count(i)) merged.shard.missing.push_back(i);
  }
  if (!merged.shard.missing.empty()) {
    std::string list;
    for (int64_t m : merged.shard.missing) {
      list += (list.empty() ? "" : ", ") + std::to_string(m) + "/" + std::to_string(count);
    }
    std::string what = "shard(s) " + list + " missing: run `attnverify numerics --shard I/" +
                       std::to_string(count) + "` for each and merge again";
    if (!allow_missing)
      return InvalidInput(what + " (or pass --allow-missing for a partial result)");
    out.warnings.push_back(what + "; the merged result is partial");
  }
  // Expansion order, as an unsharded run writes it.
  std::stable_sort(merged.cases.begin(), merged.cases.end(),
                   [](const NumericsCase& a, const NumericsCase& b) { return a.index < b.index; });
  std::map<std::string, int64_t> position;
  for (size_t i = 0; i < merged.cases.size(); ++i)
    position[merged.cases[i].id] = static_cast<int64_t>(i);
  std::stable_sort(merged.invariance.begin(), merged.invariance.end(),
                   [&](const InvarianceRecord& a, const InvarianceRecord& b) {
                     return position[a.group] < position[b.group];
                   });
  const int64_t total = first.record.summary.cases_total;
  if (merged.shard.missing.empty() && first.record.filter.empty() &&
      static_cast<int64_t>(merged.cases.size()) != total) {
    return InvalidInput("the shards hold " + std::to_string(merged.cases.size()) +
                        " cases, their configuration expands to " + std::to_string(total) +
                        ": were they run with the same attnverify version?");
  }
  NumericsSummary& sum = merged.summary;
  sum.cases_total = total;
  sum.cases_run = static_cast<int64_t>(merged.cases.size());
  for (const NumericsCase& c : merged.cases) sum.passed += c.passed();
  sum.failed = sum.cases_run - sum.passed;
  for (const InvarianceRecord& r : merged.invariance)
    ++sum.invariance[r.check][InvarianceVerdictName(r.verdict)];
  double wall_sum = 0;
  for (const NumericsShard& s : shards) {
    sum.wall_ms = std::max(sum.wall_ms, s.record.summary.wall_ms);
    wall_sum += s.record.summary.wall_ms;
  }
  sum.wall_ms_sum = wall_sum;
  sum.time_ms = SumCaseTimes(merged.cases);
  merged.verdict =
      sum.failed == 0 && merged.shard.missing.empty() ? CaseVerdict::kPass : CaseVerdict::kFail;
  merged.config = first.record.config;
  // Shards from machines with other kernels: each description once, in shard order (a
  // shard written before the field existed has none).
  std::vector<std::string> kernels;
  for (const NumericsShard& s : shards) {
    const std::string& k = s.record.config.fast_kernels;
    if (!k.empty() && std::find(kernels.begin(), kernels.end(), k) == kernels.end())
      kernels.push_back(k);
  }
  merged.config.fast_kernels.clear();
  for (const std::string& k : kernels)
    merged.config.fast_kernels += (merged.config.fast_kernels.empty() ? "" : " | ") + k;
  merged.filter = first.record.filter;
  merged.prepare = first.record.prepare;
  // Containment over all shards: the first's sandbox, every change, leftover and warning.
  for (const NumericsShard& s : shards) {
    if (!s.record.containment) continue;
    const ContainmentRecord& c = *s.record.containment;
    if (!merged.containment) {
      merged.containment = ContainmentRecord{c.sandbox, {}, 0, {}};
    } else if (merged.containment->sandbox != c.sandbox) {
      merged.containment->warnings.push_back(s.path + ": sandbox " + c.sandbox + ", not " +
                                             merged.containment->sandbox);
    }
    ContainmentRecord& m = *merged.containment;
    m.package_changes.insert(m.package_changes.end(), c.package_changes.begin(),
                             c.package_changes.end());
    m.leftover_processes += c.leftover_processes;
    m.warnings.insert(m.warnings.end(), c.warnings.begin(), c.warnings.end());
  }
  merged.tool_version = provenance.tool_version;
  provenance.config = first.record.provenance.config;
  provenance.finished = UtcNowRfc3339();
  merged.provenance = std::move(provenance);
  merged.has_provenance = true;
  return out;
}

}  // namespace av
