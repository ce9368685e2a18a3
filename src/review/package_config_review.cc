#include "review/package_config_review.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/toml_config.h"
#include "review/file_review.h"

namespace av {
namespace {

using nlohmann::json;

const json kNull;

ConfigChange Change(const std::string& file, const std::string& path, const json& old_value,
                    const json& new_value, const std::string& effect) {
  ConfigChange c;
  c.file = file;
  c.json_path = path;
  c.old_json = old_value.dump(-1, ' ', false, json::error_handler_t::replace);
  c.new_json = new_value.dump(-1, ' ', false, json::error_handler_t::replace);
  c.effect = effect;
  return c;
}

const json& Member(const json& j, const std::string& key) {
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::vector<std::string> Keys(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const json* j : {&a, &b}) {
    if (!j->is_object()) continue;
    for (auto it = j->begin(); it != j->end(); ++it) keys.insert(it.key());
  }
  return {keys.begin(), keys.end()};
}

// A JSONPath member: .name, or ["name"] when it is not a plain word.
std::string PathKey(const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '*';
  });
  return plain ? "." + key : "[" + json(key).dump() + "]";
}

// One rule object against another: the rule, its limits and its NaN switches.
void CompareRule(const json& b, const json& h, const std::string& path, const std::string& file,
                 std::vector<ConfigChange>* out) {
  if (Member(b, "rule") != Member(h, "rule")) {
    out->push_back(Change(file, path + ".rule", Member(b, "rule"), Member(h, "rule"), "changed"));
  }
  for (const char* key : {"atol", "rtol", "cos_tol", "k", "row_rel_l2"}) {
    const json& bv = Member(b, key);
    const json& hv = Member(h, key);
    if (bv == hv) continue;
    std::string effect = "changed";
    if (bv.is_number() && hv.is_number()) {
      effect = hv.get<double>() > bv.get<double>() ? "loosened" : "tightened";
    } else if (hv.is_null()) {
      effect = "loosened";  // a limit dropped can only accept more
    } else if (bv.is_null()) {
      effect = "added";
    }
    out->push_back(Change(file, path + "." + key, bv, hv, effect));
  }
  for (const char* key : {"allow_nan", "equal_nan"}) {
    const bool bv = Member(b, key).is_boolean() && Member(b, key).get<bool>();
    const bool hv = Member(h, key).is_boolean() && Member(h, key).get<bool>();
    if (bv == hv) continue;
    out->push_back(Change(file, path + "." + key, Member(b, key), Member(h, key),
                          hv ? "loosened" : "tightened"));
  }
}

// A list-valued setting: values the head no longer has are less coverage.
void CompareList(const json& b, const json& h, const std::string& path, const std::string& file,
                 std::vector<ConfigChange>* out) {
  if (b == h) return;
  auto items = [](const json& j) {
    std::multiset<std::string> s;
    if (j.is_array()) {
      for (const json& x : j) s.insert(x.dump());
    } else if (!j.is_null()) {
      s.insert(j.dump());
    }
    return s;
  };
  const std::multiset<std::string> bs = items(b), hs = items(h);
  bool removed = false, added = false;
  for (const std::string& x : bs) removed = removed || hs.count(x) < bs.count(x);
  for (const std::string& x : hs) added = added || bs.count(x) < hs.count(x);
  const std::string effect = removed ? "loosened" : added ? "added" : "changed";
  out->push_back(Change(file, path, b, h, effect));
}

void CompareSweep(const json& b, const json& h, const std::string& path, const std::string& file,
                  std::vector<ConfigChange>* out) {
  for (const std::string& key : Keys(b, h)) {
    if (key == "comment" || key == "name") continue;
    const json& bv = Member(b, key);
    const json& hv = Member(h, key);
    if (bv == hv) continue;
    const std::string p = path + PathKey(key);
    if (key == "grid") {
      for (const std::string& g : Keys(bv, hv)) {
        const json& bg = Member(bv, g);
        const json& hg = Member(hv, g);
        if (bg == hg) continue;
        if (hg.is_null()) {
          out->push_back(Change(file, p + PathKey(g), bg, hg, "loosened"));
        } else if (bg.is_null()) {
          out->push_back(Change(file, p + PathKey(g), bg, hg, "changed"));
        } else {
          CompareList(bg, hg, p + PathKey(g), file, out);
        }
      }
    } else if (key == "cases" || key == "dtypes" || key == "seeds") {
      CompareList(bv, hv, p, file, out);
    } else if (key == "invariance") {
      for (const std::string& v : Keys(bv, hv)) {
        const json& bi = Member(bv, v);
        const json& hi = Member(hv, v);
        if (bi == hi) continue;
        if (bi.is_number() && hi.is_number()) {
          out->push_back(Change(file, p + PathKey(v), bi, hi,
                                hi.get<double>() < bi.get<double>() ? "loosened" : "tightened"));
        } else if (hi.is_null()) {
          out->push_back(Change(file, p + PathKey(v), bi, hi, "loosened"));
        } else if (bi.is_null()) {
          out->push_back(Change(file, p + PathKey(v), bi, hi, "added"));
        } else {
          CompareList(bi, hi, p + PathKey(v), file, out);
        }
      }
    } else {
      out->push_back(Change(file, p, bv, hv, "changed"));
    }
  }
}

std::string SweepName(const json& sweep, size_t index) {
  const json& n = Member(sweep, "name");
  return n.is_string() ? n.get<std::string>() : "#" + std::to_string(index);
}

// The first changed line of `path` in the diffs, and its component.
bool PlaceInDiffs(const std::vector<ComponentDiff>& diffs, const std::string& path,
                  std::string* component, int64_t* line) {
  for (const ComponentDiff& d : diffs) {
    for (const FileDiff& f : d.diff->files) {
      if (f.path() != path) continue;
      *component = d.component;
      *line = 1;
      for (const Hunk& h : f.hunks) {
        for (const DiffLine& l : h.lines) {
          if (l.kind != DiffLineKind::kContext) {
            *line = l.anchor;
            return true;
          }
        }
      }
      return true;
    }
  }
  return false;
}

Finding ConfigFinding(const std::string& repo_path, const std::vector<ConfigChange>& changes,
                      const std::vector<ComponentDiff>& diffs, const ReviewOptions& options) {
  const RuleInfo* rule = FindRule(rule_id::kConfig);
  Finding f;
  f.rule = std::string(rule->id);
  f.title = std::string(rule->title);
  f.checklist_item = rule->checklist_item;
  f.related_items = rule->related_items;
  f.verify = VerifyCommand(*rule, options);
  f.file = repo_path;
  f.component = "unassigned";
  f.line = 1;
  PlaceInDiffs(diffs, repo_path, &f.component, &f.line);
  f.end_line = f.line;
  int loosened = 0;
  for (const ConfigChange& c : changes) loosened += c.effect == "loosened";
  f.severity = loosened > 0 ? Severity::kError : Severity::kWarning;
  std::string list;
  for (size_t i = 0; i < changes.size() && i < 6; ++i) {
    const ConfigChange& c = changes[i];
    list += (list.empty() ? "" : "; ") + c.json_path + " " + c.old_json + " -> " + c.new_json +
            " (" + c.effect + ")";
    if (i == 0) {
      f.old_text = c.json_path + ": " + c.old_json;
      f.new_text = c.json_path + ": " + c.new_json;
    }
  }
  if (changes.size() > 6) list += "; and " + std::to_string(changes.size() - 6) + " more";
  f.message = std::to_string(changes.size()) + (changes.size() == 1 ? " setting" : " settings") +
              " changed since the base revision" +
              (loosened > 0 ? ", " + std::to_string(loosened) + " loosened" : "") + ": " + list +
              ". The verdict is judged against these settings: a looser tolerance, a smaller "
              "sweep or a weaker policy accepts what the base revision's would reject. Justify "
              "each change in the PR, or restore the base's values.";
  return f;
}

// "pkg/config/x.json" for a path relative to the package; "" when it leaves the package's repo.
std::string RepoPath(const std::string& package_in_repo, const std::string& relative) {
  if (relative.empty() || relative[0] == '/') return "";
  std::filesystem::path p =
      std::filesystem::path(package_in_repo.empty() ? "." : package_in_repo) / relative;
  std::string s = p.lexically_normal().generic_string();
  if (s.empty() || s.rfind("..", 0) == 0 || s[0] == '/') return "";
  return s;
}

// [numerics] shapes / tolerances of an attnverify.toml text, with the defaults.
void NumericsPaths(const std::string& toml_text, std::string* shapes, std::string* tolerances) {
  *shapes = "config/shapes.json";
  *tolerances = "config/tolerances.json";
  Result<toml::table> doc = ParseTomlConfig(toml_text, "attnverify.toml");
  if (!doc.ok()) return;
  const toml::table* numerics = doc->get_as<toml::table>("numerics");
  if (numerics == nullptr) return;
  if (auto s = numerics->get_as<std::string>("shapes")) *shapes = s->get();
  if (auto t = numerics->get_as<std::string>("tolerances")) *tolerances = t->get();
}

json TomlToJson(const toml::node& n) {
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* d = n.as_floating_point()) return d->get();
  if (const auto* b = n.as_boolean()) return b->get();
  if (const auto* a = n.as_array()) {
    json out = json::array();
    for (const toml::node& x : *a) out.push_back(TomlToJson(x));
    return out;
  }
  if (const auto* t = n.as_table()) {
    json out = json::object();
    for (const auto& [k, v] : *t) out[std::string(k.str())] = TomlToJson(v);
    return out;
  }
  return nullptr;
}

}  // namespace

std::vector<ConfigChange> CompareTolerances(const json& base, const json& head,
                                            const std::string& file) {
  std::vector<ConfigChange> out;
  const json& bops = Member(base, "ops");
  const json& hops = Member(head, "ops");
  for (const std::string& op : Keys(bops, hops)) {
    const json& bo = Member(bops, op);
    const json& ho = Member(hops, op);
    const std::string op_path = "$.ops" + PathKey(op);
    if (bo == ho) continue;
    if (ho.is_null() || bo.is_null()) {
      out.push_back(Change(file, op_path, bo, ho, ho.is_null() ? "removed" : "added"));
      continue;
    }
    for (const std::string& output : Keys(bo, ho)) {
      const json& bout = Member(bo, output);
      const json& hout = Member(ho, output);
      const std::string out_path = op_path + PathKey(output);
      if (bout == hout) continue;
      if (hout.is_null() || bout.is_null()) {
        out.push_back(Change(file, out_path, bout, hout, hout.is_null() ? "removed" : "added"));
        continue;
      }
      // Each dtype's effective rule: its own entry, else "*".
      std::vector<std::string> dtypes = Keys(bout, hout);
      for (const std::string& d : dtypes) {
        const json& be = Member(bout, d).is_null() ? Member(bout, "*") : Member(bout, d);
        const json& he = Member(hout, d).is_null() ? Member(hout, "*") : Member(hout, d);
        if (be == he) continue;
        const std::string p = out_path + PathKey(d);
        if (he.is_null() || be.is_null()) {
          out.push_back(Change(file, p, be, he, he.is_null() ? "removed" : "added"));
          continue;
        }
        CompareRule(be, he, p, file, &out);
      }
    }
  }
  return out;
}

std::vector<ConfigChange> CompareShapes(const json& base, const json& head,
                                        const std::string& file) {
  std::vector<ConfigChange> out;
  std::map<std::string, const json*> bs, hs;
  std::vector<std::string> order;
  for (auto [doc, map] : {std::pair{&base, &bs}, std::pair{&head, &hs}}) {
    const json& sweeps = Member(*doc, "sweeps");
    if (!sweeps.is_array()) continue;
    for (size_t i = 0; i < sweeps.size(); ++i) {
      const std::string name = SweepName(sweeps[i], i);
      if (!bs.count(name) && !hs.count(name)) order.push_back(name);
      (*map)[name] = &sweeps[i];
    }
  }
  for (const std::string& name : order) {
    const json* b = bs.count(name) ? bs[name] : nullptr;
    const json* h = hs.count(name) ? hs[name] : nullptr;
    const std::string path = "$.sweeps[?(@.name==" + json(name).dump() + ")]";
    if (h == nullptr) {
      out.push_back(Change(file, path, *b, kNull, "loosened"));
    } else if (b == nullptr) {
      out.push_back(Change(file, path, kNull, *h, "added"));
    } else if (*b != *h) {
      CompareSweep(*b, *h, path, file, &out);
    }
  }
  return out;
}

std::vector<ConfigChange> ComparePolicy(const std::string& base_toml, const std::string& head_toml,
                                        const std::string& file) {
  std::vector<ConfigChange> out;
  Result<toml::table> b = ParseTomlConfig(base_toml, file);
  Result<toml::table> h = ParseTomlConfig(head_toml, file);
  if (!b.ok() || !h.ok()) {
    if (base_toml != head_toml) {
      out.push_back(Change(file, "$", kNull, kNull, "changed"));
      out.back().old_json = b.ok() ? "\"(parsed)\"" : json(b.status().message()).dump();
      out.back().new_json = h.ok() ? "\"(parsed)\"" : json(h.status().message()).dump();
    }
    return out;
  }
  auto table = [](const toml::table& doc, const char* name) {
    const toml::node* n = doc.get(name);
    return n != nullptr ? TomlToJson(*n) : json();
  };
  const json bp = table(*b, "policy"), hp = table(*h, "policy");
  // required: the default is every item.
  auto required = [](const json& p) {
    std::set<int64_t> items;
    const json& r = Member(p, "required");
    if (!r.is_array()) return std::set<int64_t>{1, 2, 3, 4, 5, 6, 7, 8};
    for (const json& x : r) {
      if (x.is_number_integer()) items.insert(x.get<int64_t>());
    }
    return items;
  };
  const std::set<int64_t> br = required(bp), hr = required(hp);
  if (br != hr) {
    const bool dropped = std::any_of(br.begin(), br.end(), [&](int64_t i) { return !hr.count(i); });
    out.push_back(
        Change(file, "$.policy.required", json(br), json(hr), dropped ? "loosened" : "tightened"));
  }
  const json& bw = Member(bp, "waive");
  const json& hw = Member(hp, "waive");
  for (const std::string& check : Keys(bw, hw)) {
    const json& o = Member(bw, check);
    const json& n = Member(hw, check);
    if (o == n) continue;
    const std::string effect = o.is_null() ? "loosened" : n.is_null() ? "tightened" : "changed";
    out.push_back(Change(file, "$.policy.waive" + PathKey(check), o, n, effect));
  }
  // Switches that demand evidence when true (gpu_evidence, require_agent_review; absent is
  // false): turning one off accepts more.
  auto on = [](const json& v) { return v.is_boolean() && v.get<bool>(); };
  for (const std::string& key : Keys(bp, hp)) {
    if (key == "required" || key == "waive" || Member(bp, key) == Member(hp, key)) continue;
    const json& o = Member(bp, key);
    const json& n = Member(hp, key);
    const bool is_switch = key == "gpu_evidence" || key == "require_agent_review";
    const std::string effect = !is_switch         ? "changed"
                               : on(o) && !on(n) ? "loosened"
                               : !on(o) && on(n) ? "tightened"
                                                 : "changed";
    out.push_back(Change(file, "$.policy" + PathKey(key), o, n, effect));
  }
  return out;
}

PackageConfigReview ReviewPackageConfigFiles(ReviewSources& sources,
                                             const std::string& package_in_repo,
                                             const std::string& toml_name,
                                             const std::vector<ComponentDiff>& diffs,
                                             const ReviewOptions& options) {
  PackageConfigReview r;
  const std::string toml_path = RepoPath(package_in_repo, toml_name);
  const std::string* base_toml = sources.Base(toml_path);
  const std::string* head_toml = sources.Head(toml_path);
  if (head_toml == nullptr) {
    r.not_reviewed = toml_path + " is not in the head revision " + sources.revisions().head +
                     " (the package is not committed): its config is not part of the reviewed "
                     "change";
    return r;
  }
  if (base_toml == nullptr) {
    r.not_reviewed = toml_path + " does not exist at the base revision " +
                     sources.revisions().base_commit +
                     ": the package is new in this range, so "
                     "its config has no base to compare with";
    return r;
  }
  r.reviewed = true;
  auto add = [&](const std::string& repo_path, std::vector<ConfigChange> changes) {
    if (changes.empty()) return;
    r.findings.push_back(ConfigFinding(repo_path, changes, diffs, options));
    for (ConfigChange& c : changes) {
      c.finding = std::to_string(r.findings.size() - 1);
      r.changes.push_back(std::move(c));
    }
  };
  std::string base_shapes, base_tol, head_shapes, head_tol;
  NumericsPaths(*base_toml, &base_shapes, &base_tol);
  NumericsPaths(*head_toml, &head_shapes, &head_tol);
  struct Pair {
    std::string base_rel, head_rel;
    bool tolerances;
  };
  // A package that points [numerics] at other files: the files it reads changed.
  std::vector<ConfigChange> paths;
  for (const auto& [key, b, h] : {std::tuple{"tolerances", base_tol, head_tol},
                                  std::tuple{"shapes", base_shapes, head_shapes}}) {
    if (b != h)
      paths.push_back(Change(toml_name, std::string("$.numerics.") + key, b, h, "changed"));
  }
  std::vector<ConfigChange> policy = ComparePolicy(*base_toml, *head_toml, toml_name);
  policy.insert(policy.end(), paths.begin(), paths.end());
  add(toml_path, std::move(policy));
  for (const Pair& p : {Pair{base_tol, head_tol, true}, Pair{base_shapes, head_shapes, false}}) {
    const std::string base_path = RepoPath(package_in_repo, p.base_rel);
    const std::string head_path = RepoPath(package_in_repo, p.head_rel);
    const std::string* bt = base_path.empty() ? nullptr : sources.Base(base_path);
    const std::string* ht = head_path.empty() ? nullptr : sources.Head(head_path);
    if (bt == nullptr && ht == nullptr) continue;  // the defaults compiled in, both sides
    if (bt != nullptr && ht != nullptr && *bt == *ht) continue;
    const json bj = bt == nullptr ? json() : json::parse(*bt, nullptr, false);
    const json hj = ht == nullptr ? json() : json::parse(*ht, nullptr, false);
    std::vector<ConfigChange> changes;
    if (bj.is_discarded() || hj.is_discarded()) {
      changes.push_back(Change(p.head_rel, "$", kNull, kNull, "changed"));
      changes.back().old_json = bj.is_discarded() ? "\"(not valid JSON)\"" : "\"(valid JSON)\"";
      changes.back().new_json = hj.is_discarded() ? "\"(not valid JSON)\"" : "\"(valid JSON)\"";
    } else if (bt == nullptr || ht == nullptr) {
      // One side uses the built-in defaults: the file itself appeared or went away.
      changes.push_back(Change(p.head_rel, "$", bj, hj, ht == nullptr ? "removed" : "added"));
    } else {
      changes =
          p.tolerances ? CompareTolerances(bj, hj, p.head_rel) : CompareShapes(bj, hj, p.head_rel);
    }
    add(head_path.empty() ? base_path : head_path, std::move(changes));
  }
  return r;
}

PackageConfigReview FlagPackageConfigInDiffs(const std::vector<ComponentDiff>& diffs,
                                             const ReviewOptions& options) {
  PackageConfigReview r;
  r.not_reviewed =
      "diff files given without a repository: the package's config was not compared "
      "with the base revision";
  const RuleInfo* rule = FindRule(rule_id::kConfig);
  for (const ComponentDiff& d : diffs) {
    for (const FileDiff& f : d.diff->files) {
      const std::string& p = f.path();
      const bool config =
          p.ends_with("config/tolerances.json") || p.ends_with("config/shapes.json");
      if (!config) continue;
      Finding x;
      x.rule = std::string(rule->id);
      x.title = std::string(rule->title);
      x.severity = Severity::kWarning;
      x.checklist_item = rule->checklist_item;
      x.related_items = rule->related_items;
      x.verify = VerifyCommand(*rule, options);
      x.component = d.component;
      x.file = p;
      PlaceInDiffs(diffs, p, &x.component, &x.line);
      x.end_line = x.line;
      x.message =
          "a package configuration file changes in this diff; without the repository "
          "the reviewer cannot tell what was loosened. Review the slice (attnverify "
          "slice, then review) to compare it with the base revision.";
      r.findings.push_back(std::move(x));
    }
  }
  return r;
}

}  // namespace av
