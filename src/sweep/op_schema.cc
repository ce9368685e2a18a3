#include "sweep/op_schema.h"

#include <nlohmann/json.hpp>

#include "core/check.h"

namespace av {
namespace {

using nlohmann::json;
constexpr int64_t kMaxDim = int64_t{1} << 24;

ParamSpec Int(std::string_view name, int64_t fallback, int64_t lo, int64_t hi,
              std::string_view help) {
  return ParamSpec{name, ParamType::kInt, ParamValue(fallback), lo, hi, {}, help};
}
ParamSpec Bool(std::string_view name, bool fallback, std::string_view help) {
  return ParamSpec{name, ParamType::kBool, ParamValue(fallback), 0, 0, {}, help};
}
ParamSpec Double(std::string_view name, double fallback, int64_t lo, std::string_view help) {
  return ParamSpec{name, ParamType::kDouble, ParamValue(fallback), lo, INT64_MAX, {}, help};
}
ParamSpec Choice(std::string_view name, std::string_view fallback,
                 std::vector<std::string_view> choices, std::string_view help) {
  return ParamSpec{
      name, ParamType::kString, ParamValue(std::string(fallback)), 0, 0, std::move(choices), help};
}

const std::vector<SweepOp>& Table() {
  static const std::vector<SweepOp> ops = [] {
    ParamSpec lengths =
        Choice("lengths", "full", {"full", "random", "edges", "half_empty"},
               "per-sequence key lengths: all s_k; ~N(s_k, s_k/2); 64m-1, 64m, 64m+1; "
               "about half 0");
    ParamSpec padded =
        Bool("padded", false, "store floating inputs with 8 NaN elements of row padding");
    std::vector<SweepOp> t;
    t.push_back(SweepOp{
        "attention",
        {Int("b", 1, 1, 4096, "batch"), Int("s_q", 1, 0, kMaxDim, "query rows per sequence"),
         Int("s_k", 1, 0, kMaxDim, "keys per sequence"), Int("h_q", 1, 1, 4096, "query heads"),
         Int("h_kv", 0, 0, 4096, "kv heads (0: h_q)"), Int("d", 64, 1, 4096, "q/k head dim"),
         Int("dv", 0, 0, 4096, "v head dim (0: d)"),
         Bool("causal", false, "bottom-right causal mask"),
         Int("window_left", -1, -1, kMaxDim, "sliding window, -1 unbounded"),
         Int("window_right", -1, -1, kMaxDim, "sliding window, -1 unbounded"),
         Double("softcap", 0, 0, "soft cap c (0 off)"),
         Choice("layout", "batched", {"batched", "varlen", "paged"}, "tensor layout"),
         Int("page_size", 64, 1, 4096, "paged: keys per page"), lengths, padded,
         Choice("generator", "randn", {"randn", "large_logits", "near_tie"}, "input values")},
        {DType::kBF16, DType::kF16, DType::kF32},
        {"o", "lse"}});
    t.push_back(SweepOp{
        "mla_decode",
        {Int("b", 1, 1, 4096, "batch"), Int("s_q", 1, 1, 64, "query rows (speculative decode)"),
         Int("s_k", 64, 0, kMaxDim, "mean cache length"), Int("h_q", 16, 1, 4096, "query heads"),
         Int("h_kv", 1, 1, 4096, "kv heads"), Int("d", 576, 1, 4096, "head dim of q and the cache"),
         Int("dv", 512, 1, 4096, "head_dim_v: V is the cache's first dv channels"),
         Int("page_size", 64, 1, 4096, "keys per page"),
         Bool("causal", false, "bottom-right causal"), lengths, padded,
         Choice("generator", "randn", {"randn", "large_logits", "near_tie"}, "input values")},
        {DType::kBF16, DType::kF16, DType::kF32},
        {"o", "lse"}});
    t.push_back(SweepOp{"fp8_gemm",
                        {Int("m", 1, 1, kMaxDim, "rows of a and d"),
                         Int("n", 128, 1, kMaxDim, "rows of b, columns of d"),
                         Int("k", 128, 1, kMaxDim, "reduction length"),
                         Bool("ue8m0", false, "scales rounded up to powers of two"),
                         Choice("generator", "randn", {"randn", "fp8_saturating"}, "input values")},
                        {DType::kF8E4M3FN},
                        {"d"}});
    t.push_back(
        SweepOp{"gemm",
                {Int("m", 1, 1, kMaxDim, "rows of a and d"), Int("n", 1, 1, kMaxDim, "rows of b"),
                 Int("k", 1, 1, kMaxDim, "reduction length"), padded,
                 Choice("generator", "randn", {"randn", "wide_range"}, "input values")},
                {DType::kBF16, DType::kF16, DType::kF32},
                {"d"}});
    t.push_back(SweepOp{
        "sparse_attention",
        {Int("s_q", 1, 1, kMaxDim, "query rows"), Int("s_kv", 64, 1, kMaxDim, "cached keys"),
         Int("h_q", 16, 1, 4096, "query heads"), Int("h_kv", 1, 1, 4096, "kv heads"),
         Int("d", 64, 1, 4096, "head dim"), Int("dv", 0, 0, 4096, "head_dim_v (0: d)"),
         Int("topk", 16, 1, 65536, "indices per query"),
         Choice("indices", "random", {"random", "all_invalid", "mixed"},
                "valid; all -1; valid mixed with -1, huge, negative and out-of-range"),
         Choice("generator", "randn", {"randn", "large_logits", "near_tie"}, "input values")},
        {DType::kBF16, DType::kF16, DType::kF32},
        {"o", "lse"}});
    return t;
  }();
  return ops;
}

std::string TypeWord(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::kInt:
      return "an integer";
    case ParamType::kBool:
      return "true or false";
    case ParamType::kDouble:
      return "a number";
    case ParamType::kString:
      return "a string";
  }
  return "?";
}

}  // namespace

std::span<const SweepOp> SweepOps() { return Table(); }

const SweepOp* FindSweepOp(std::string_view name) {
  for (const SweepOp& op : Table()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const ParamSpec* FindParam(const SweepOp& op, std::string_view name) {
  for (const ParamSpec& p : op.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string CheckParamValue(const ParamSpec& spec, const json& value) {
  std::string got = value.dump();
  switch (spec.type) {
    case ParamType::kInt: {
      if (!value.is_number_integer()) return "must be an integer, got " + got;
      int64_t v = value.get<int64_t>();
      if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}) {
        return "must be at most " + std::to_string(spec.max) + ", got " + got;
      }
      if (v < spec.min) return "must be an integer >= " + std::to_string(spec.min) + ", got " + got;
      if (v > spec.max) return "must be an integer <= " + std::to_string(spec.max) + ", got " + got;
      return "";
    }
    case ParamType::kBool:
      return value.is_boolean() ? "" : "must be " + TypeWord(spec) + ", got " + got;
    case ParamType::kDouble: {
      if (!value.is_number()) return "must be a number, got " + got;
      double v = value.get<double>();
      if (!(v >= static_cast<double>(spec.min)))
        return "must be >= " + std::to_string(spec.min) + ", got " + got;
      return "";
    }
    case ParamType::kString: {
      if (!value.is_string()) return "must be a string, got " + got;
      std::string s = value.get<std::string>();
      std::string list;
      for (std::string_view c : spec.choices) {
        if (c == s) return "";
        list += (list.empty() ? "" : ", ") + std::string(c);
      }
      return "must be one of " + list + ", got " + got;
    }
  }
  return "unknown type";
}

const ParamValue& CaseParams::Get(std::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it != values_.end()) return it->second;
  const ParamSpec* spec = FindParam(op_, name);
  CHECK(spec != nullptr) << "op " << op_.name << " has no parameter " << name;
  return spec->fallback;
}
int64_t CaseParams::Int(std::string_view name) const { return Get(name).AsInt(); }
bool CaseParams::Bool(std::string_view name) const { return Get(name).AsBool(); }
double CaseParams::Double(std::string_view name) const { return Get(name).AsDouble(); }
std::string CaseParams::String(std::string_view name) const { return Get(name).AsString(); }

}  // namespace av
