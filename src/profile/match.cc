// Matching base kernels to head kernels per shape.
#include <algorithm>
#include <regex>

#include "profile/gates.h"

namespace av::profile {
namespace {

using SideMap = std::map<std::pair<std::string, std::string>, PerfSide>;  // (shape, key)

void AddToSide(PerfSide* s, const KernelProfile& k) {
  if (s->name.key.empty()) {
    s->name = k.name;
    s->tool = k.tool;
    s->source_file = k.source_file;
    s->source_sha256 = k.source_sha256;
  }
  s->launches.insert(s->launches.end(), k.launches.begin(), k.launches.end());
  if (k.summary && !s->summary) s->summary = k.summary;
}

void ComputeStats(PerfSide* s) {
  std::vector<double> d;
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, int> limiters;
  for (const Launch& l : s->launches) {
    for (const auto& [name, f] : l.figures) values[name].push_back(f.value);
    if (!l.occupancy_limiter.empty()) ++limiters[l.occupancy_limiter];
  }
  if (auto it = values.find(fig::kDuration); it != values.end()) d = it->second;
  if (!d.empty()) {
    s->time = StatsOfSamples(d);
  } else if (s->summary && s->summary->med_ns >= 0) {
    const Summary& m = *s->summary;
    s->time = StatsOfSummary(m.instances, m.med_ns, m.min_ns, m.max_ns, m.stddev_ns);
  } else if (s->summary) {
    const Summary& m = *s->summary;  // gpukernsum: no median, the mean stands in
    s->time = StatsOfSummary(m.instances, m.avg_ns, m.min_ns, m.max_ns, m.stddev_ns);
  }
  for (auto& [name, v] : values) s->medians[name] = Median(v);
  int best = 0;
  for (const auto& [l, n] : limiters) {
    if (n > best) best = n, s->occupancy_limiter = l;
  }
}

bool RegexMatches(const std::string& re, const KernelName& n) {
  try {
    std::regex r(re, std::regex::ECMAScript);
    return std::regex_match(n.key, r) || std::regex_match(n.short_name, r);
  } catch (const std::exception&) {
    return false;  // ParseProfileConfig refuses bad patterns; a regex too complex fails closed
  }
}

}  // namespace

std::vector<PerfPair> MatchKernels(const PerfDoc& doc, const ProfileConfig& cfg) {
  SideMap base, head;
  for (const KernelProfile& k : doc.kernels) {
    SideMap& m = k.label == "base" ? base : head;
    AddToSide(&m[{k.shape, k.name.key}], k);
  }
  for (auto* m : {&base, &head}) {
    for (auto& [key, side] : *m) ComputeStats(&side);
  }
  std::vector<PerfPair> pairs;
  auto take = [&](SideMap::iterator b, SideMap::iterator h, const char* how) {
    PerfPair p;
    p.shape = b->first.first;
    p.kernel = b->first.second;
    p.how = how;
    p.base = std::move(b->second);
    p.head = std::move(h->second);
    pairs.push_back(std::move(p));
    base.erase(b);
    head.erase(h);
  };
  // 1. the same normalised name and shape
  for (auto b = base.begin(); b != base.end();) {
    auto h = head.find(b->first);
    auto next = std::next(b);
    if (h != head.end()) take(b, h, "name");
    b = next;
  }
  // 2. [profile] match rows, 3. a short name unique on both sides of the shape
  for (int pass = 0; pass < 2; ++pass) {
    for (auto b = base.begin(); b != base.end();) {
      auto next = std::next(b);
      std::vector<SideMap::iterator> found;
      for (auto h = head.begin(); h != head.end(); ++h) {
        if (h->first.first != b->first.first) continue;
        bool ok = false;
        if (pass == 0) {
          for (const auto& [bre, hre] : cfg.match) {
            ok |= RegexMatches(bre, b->second.name) && RegexMatches(hre, h->second.name);
          }
        } else {
          // The short name must also be unique among the base's kernels of the shape.
          int same = 0;
          for (const auto& [key, other] : base) {
            same +=
                key.first == b->first.first && other.name.short_name == b->second.name.short_name;
          }
          ok = same == 1 && h->second.name.short_name == b->second.name.short_name;
        }
        if (ok) found.push_back(h);
      }
      if (found.size() == 1) take(b, found[0], pass == 0 ? "match" : "short name");
      b = next;
    }
  }
  for (auto* m : {&base, &head}) {
    for (auto& [key, side] : *m) {
      PerfPair p;
      p.shape = key.first;
      p.kernel = key.second;
      (m == &base ? p.base : p.head) = std::move(side);
      pairs.push_back(std::move(p));
    }
  }
  for (PerfPair& p : pairs) {
    if (p.base && p.head && p.base->time.n > 0 && p.head->time.n > 0) {
      p.ratio = MedianRatioInterval(p.base->time, p.head->time);
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const PerfPair& a, const PerfPair& b) {
    return std::tie(a.shape, a.kernel) < std::tie(b.shape, b.kernel);
  });
  return pairs;
}

}  // namespace av::profile
