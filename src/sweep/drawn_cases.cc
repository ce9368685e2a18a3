#include "sweep/drawn_cases.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "sweep/case_constraints.h"
#include "sweep/op_schema.h"
#include "sweep/rng.h"

namespace av {
namespace {

// 64 tries: a sweep whose lattice holds a single unseen point is still found with
// probability 1 - (1 - 1/n)^64 for n points; a sweep with none gives up quickly.
constexpr int kTries = 64;

// The dimensions of a case, in DrawnShapeKeys order (a missing one: the op's default).
std::vector<int64_t> Dims(const CaseSpec& c, const std::vector<std::string>& keys) {
  CaseParams p(*FindSweepOp(c.op), c.params);
  std::vector<int64_t> dims;
  for (const std::string& k : keys) dims.push_back(p.Int(k));
  return dims;
}

// Every value the sweep lists for one key, as its lattice: least, greatest and step.
struct Lattice {
  int64_t lo = 0, hi = 0, step = 1;
  int64_t points() const { return (hi - lo) / step + 1; }
};

Lattice LatticeOf(const std::set<int64_t>& values) {
  Lattice l{*values.begin(), *values.rbegin(), 0};
  for (int64_t v : values) l.step = std::gcd(l.step, v < 0 ? -v : v);
  if (l.step == 0) l.step = 1;
  return l;
}

}  // namespace

const std::vector<std::string>& DrawnShapeKeys(const std::string& op) {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"attention", {"b", "s_q", "s_k", "h_q"}},
      {"mla_decode", {"b", "s_q", "s_k", "h_q"}},
      {"sparse_attention", {"s_q", "s_kv"}},
      {"gemm", {"m", "n", "k"}},
      {"fp8_gemm", {"m", "n", "k"}},
  };
  static const std::vector<std::string> none;
  auto it = keys.find(op);
  return it == keys.end() ? none : it->second;
}

std::vector<CaseSpec> DrawCases(const ShapesConfig& config, const std::vector<CaseSpec>& expanded,
                                uint64_t salt, int per_sweep) {
  std::vector<CaseSpec> out;
  if (per_sweep <= 0) return out;
  int64_t group_index = 0;
  for (const CaseSpec& c : expanded) group_index = std::max(group_index, c.group_index + 1);
  std::set<std::string> ids;
  for (const CaseSpec& c : expanded) ids.insert(c.id);
  for (const SweepSpec& sweep : config.sweeps) {
    const std::vector<std::string>& keys = DrawnShapeKeys(sweep.op);
    std::vector<const CaseSpec*> bases;
    for (const CaseSpec& c : expanded) {
      if (c.sweep == sweep.name && c.kind == VariantKind::kBase) bases.push_back(&c);
    }
    if (bases.empty() || keys.empty()) continue;
    std::set<std::vector<int64_t>> seen;
    std::vector<std::set<int64_t>> values(keys.size());
    for (const CaseSpec* c : bases) {
      std::vector<int64_t> d = Dims(*c, keys);
      for (size_t k = 0; k < keys.size(); ++k) values[k].insert(d[k]);
      seen.insert(std::move(d));
    }
    std::vector<Lattice> lattice;
    int64_t points = 1;
    for (const std::set<int64_t>& v : values) {
      lattice.push_back(LatticeOf(v));
      points = std::min<int64_t>(points * lattice.back().points(), int64_t{1} << 40);
    }
    if (points <= static_cast<int64_t>(seen.size())) continue;  // nothing unseen to draw
    Rng rng(StreamKey("drawn." + sweep.name, "cases", 0, salt));
    for (int k = 0; k < per_sweep; ++k) {
      for (int attempt = 0; attempt < kTries; ++attempt) {
        CaseSpec c = *bases[static_cast<size_t>(rng.UniformInt(static_cast<int64_t>(bases.size())))];
        // A drawn case asks about its shape, on normal inputs. The listed cases keep the
        // value generators that stress a kernel (large_logits, near_tie, fp8_saturating,
        // wide_range) at the sizes the anchors' tolerances were set for; drawn on a larger
        // shape, large_logits put a correct bf16 kernel's rarest element past FlashMLA's
        // element bound (1 element in 1.25 million, at 1.6 times the bound): a false reject.
        if (auto g = c.params.find("generator"); g != c.params.end()) g->second = std::string("randn");
        std::vector<int64_t> dims;
        for (size_t i = 0; i < keys.size(); ++i) {
          const Lattice& l = lattice[i];
          dims.push_back(l.lo + l.step * rng.UniformInt(l.points()));
          c.params[keys[i]] = dims.back();
        }
        if (seen.count(dims) != 0 || !CheckCaseConstraints(c).ok()) continue;
        std::vector<std::string> varied;
        for (const auto& [key, value] : c.params) varied.push_back(key);
        c.id = CaseId(sweep.name + ".drawn" + std::to_string(k), c.params, varied, c.dtype, c.seed);
        if (!ids.insert(c.id).second) continue;
        c.drawn = true;
        c.salt = salt;
        c.kind = VariantKind::kBase;
        c.variant = "base";
        c.variant_value = 0;
        c.group.clear();
        c.knobs.clear();
        c.index = static_cast<int64_t>(expanded.size() + out.size());
        c.group_index = group_index++;
        seen.insert(std::move(dims));
        out.push_back(std::move(c));
        break;
      }
    }
  }
  return out;
}

}  // namespace av
