#include "sweep/invariance.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "numerics/element_stream.h"
#include "sweep/op_schema.h"
#include "sweep/rng.h"

namespace av {
namespace {

CaseSpec Variant(const CaseSpec& base, VariantKind kind, const std::string& name, int64_t value) {
  CaseSpec v = base;
  v.kind = kind;
  v.variant = name;
  v.variant_value = value;
  v.group = base.id;
  v.id = base.id + "." + name;
  v.knobs.clear();
  return v;
}

// Inputs that hold one entry per batch element along axis 0.
std::vector<std::string> PerBatchInputs(const std::string& op) {
  if (op == "mla_decode") return {"q", "block_table", "cache_seqlens"};
  if (op == "attention") return {"q", "k", "v", "seqlens_k", "block_table"};
  if (op == "gemm") return {"a"};
  if (op == "fp8_gemm") return {"a", "sa"};
  return {};
}

Tensor* FindMutable(NamedTensors& ts, const std::string& name) {
  for (auto& [n, t] : ts) {
    if (n == name) return &t;
  }
  return nullptr;
}

// out[i] = in[perm[i]] along axis 0 (gather), or out[perm[i]] = in[i] (scatter).
Result<Tensor> PermuteAxis0(const Tensor& in, const std::vector<int64_t>& perm, bool scatter,
                            const std::string& name) {
  if (in.ndim() == 0 || in.dim(0) != static_cast<int64_t>(perm.size())) {
    return Internal(name + ": axis 0 has " +
                    (in.ndim() ? std::to_string(in.dim(0)) : std::string("no")) +
                    " entries, the permutation " + std::to_string(perm.size()));
  }
  Tensor src = in.Contiguous();
  Tensor out = Tensor::Zeros(src.dtype(), src.shape());
  const size_t row = perm.empty() ? 0 : src.nbytes() / perm.size();
  for (size_t i = 0; i < perm.size(); ++i) {
    size_t from = scatter ? i : static_cast<size_t>(perm[i]);
    size_t to = scatter ? static_cast<size_t>(perm[i]) : i;
    std::memcpy(out.mutable_data() + to * row, src.data() + from * row, row);
  }
  return out;
}

double Eps(DType dtype) {
  switch (dtype) {
    case DType::kBF16:
      return std::ldexp(1.0, -7);
    case DType::kF16:
      return std::ldexp(1.0, -10);
    case DType::kF8E4M3FN:
      return std::ldexp(1.0, -3);
    case DType::kF8E5M2:
      return std::ldexp(1.0, -2);
    default:
      return 0;
  }
}

constexpr int64_t kDiffChunk = 4096;

// Byte equality of two same-shape, same-dtype tensors whatever their strides.
bool BytesEqual(const Tensor& a, const Tensor& b) {
  if (a.is_contiguous() && b.is_contiguous())
    return std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
  const Tensor ca = a.Contiguous(), cb = b.Contiguous();
  return std::memcmp(ca.data(), cb.data(), ca.nbytes()) == 0;
}

}  // namespace

int64_t BatchEntries(const CaseSpec& spec) {
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return 0;
  CaseParams p(*op, spec.params);
  if (spec.op == "mla_decode") return p.Int("b");
  if (spec.op == "attention") return p.String("layout") == "varlen" ? 0 : p.Int("b");
  if (spec.op == "gemm" || spec.op == "fp8_gemm") return p.Int("m");
  return 0;
}

bool HasPageTable(const CaseSpec& spec) {
  if (spec.op == "mla_decode") return true;
  if (spec.op != "attention") return false;
  CaseParams p(*FindSweepOp(spec.op), spec.params);
  return p.String("layout") == "paged";
}

Result<std::vector<CaseSpec>> ExpandVariants(const SweepSpec& sweep, const CaseSpec& base) {
  const InvarianceSpec& inv = sweep.invariance;
  std::vector<CaseSpec> out;
  for (int64_t n : inv.num_splits) {
    CaseSpec v = Variant(base, VariantKind::kNumSplits, "num_splits=" + std::to_string(n), n);
    v.knobs["num_splits"] = n;
    out.push_back(std::move(v));
  }
  for (int64_t r = 1; r <= inv.reruns; ++r) {
    out.push_back(Variant(base, VariantKind::kRerun, "rerun=" + std::to_string(r), r));
  }
  if (inv.batch_permutation && BatchEntries(base) > 1) {
    out.push_back(Variant(base, VariantKind::kBatchPermutation, "batch_permutation", 0));
  }
  if (inv.page_table_permutation && HasPageTable(base)) {
    out.push_back(Variant(base, VariantKind::kPageTablePermutation, "page_table_permutation", 0));
  }
  for (int64_t s = 1; s < inv.seeds; ++s) {
    uint64_t seed = base.seed + static_cast<uint64_t>(s);
    CaseSpec v = Variant(base, VariantKind::kSeed, "seed=" + std::to_string(seed),
                         static_cast<int64_t>(seed));
    v.seed = seed;
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<int64_t> VariantPermutation(const CaseSpec& spec, const std::string& what, int64_t n) {
  std::vector<int64_t> perm(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::iota(perm.begin(), perm.end(), 0);
  Rng rng(StreamKey(spec.group_id(), what, spec.seed, spec.salt));
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.UniformInt(i + 1))]);
  }
  bool identity = true;
  for (int64_t i = 0; i < n; ++i) identity &= perm[static_cast<size_t>(i)] == i;
  if (identity && n > 1) std::rotate(perm.begin(), perm.begin() + 1, perm.end());
  return perm;
}

Status ApplyInputVariant(const CaseSpec& spec, BuiltCase* built) {
  if (spec.kind == VariantKind::kBatchPermutation) {
    const int64_t b = BatchEntries(spec);
    std::vector<int64_t> perm = VariantPermutation(spec, "batch_permutation", b);
    for (const std::string& name : PerBatchInputs(spec.op)) {
      Tensor* t = FindMutable(built->file_tensors, name);
      if (t == nullptr) continue;
      AV_ASSIGN_OR_RETURN(*t, PermuteAxis0(*t, perm, false, name));
    }
    std::optional<std::vector<int64_t>>& key_lengths = built->notes.key_lengths;
    if (key_lengths && key_lengths->size() == perm.size()) {
      std::vector<int64_t> lens;
      for (int64_t p : perm) lens.push_back((*key_lengths)[static_cast<size_t>(p)]);
      *key_lengths = std::move(lens);
    }
    built->notes.batch_permutation = perm;
    return Status::Ok();
  }
  if (spec.kind == VariantKind::kPageTablePermutation) {
    Tensor* table = FindMutable(built->file_tensors, "block_table");
    Tensor* k = FindMutable(built->file_tensors, "k_cache");
    if (table == nullptr || k == nullptr) return Internal(spec.id + ": no paged inputs to permute");
    const int64_t pages = k->dim(0);
    // New page perm[p] holds old page p: scatter the caches, rename the table's entries.
    std::vector<int64_t> perm = VariantPermutation(spec, "page_table_permutation", pages);
    for (const char* name : {"k_cache", "v_cache"}) {
      Tensor* t = FindMutable(built->file_tensors, name);
      if (t == nullptr) continue;
      AV_ASSIGN_OR_RETURN(*t, PermuteAxis0(*t, perm, true, name));
    }
    // A fresh table: the stored one may share its buffer with the base case's inputs.
    Tensor fresh = Tensor::Zeros(table->dtype(), table->shape());
    std::memcpy(fresh.mutable_data(), table->Contiguous().data(), fresh.nbytes());
    *table = std::move(fresh);
    for (int64_t i = 0; i < table->numel(); ++i) {
      int32_t v;
      std::memcpy(&v, table->data() + 4 * i, 4);
      if (v >= 0 && v < pages) {
        v = static_cast<int32_t>(perm[static_cast<size_t>(v)]);
        std::memcpy(table->mutable_data() + 4 * i, &v, 4);
      }
    }
    return Status::Ok();
  }
  return Status::Ok();
}

Result<NamedTensors> UnpermuteOutputs(const CaseSpec& spec, const NamedTensors& outputs) {
  if (spec.kind != VariantKind::kBatchPermutation) return outputs;
  std::vector<int64_t> perm = VariantPermutation(spec, "batch_permutation", BatchEntries(spec));
  NamedTensors out;
  for (const auto& [name, t] : outputs) {
    AV_ASSIGN_OR_RETURN(Tensor u, PermuteAxis0(t, perm, true, name));
    out.emplace_back(name, std::move(u));
  }
  return out;
}

double RoundingBound(DType dtype, double max_abs) {
  double eps = Eps(dtype);
  if (eps == 0) return std::ldexp(1.0, -17) * max_abs;
  return 4 * eps * max_abs;
}

bool SameOutputBytes(const NamedTensors& a, const NamedTensors& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& [name_a, ta] = a[i];
    const auto& [name_b, tb] = b[i];
    if (name_a != name_b || ta.dtype() != tb.dtype() || ta.shape() != tb.shape() ||
        !BytesEqual(ta, tb))
      return false;
  }
  return true;
}

Result<std::vector<OutputDiff>> DiffOutputs(const NamedTensors& base, const NamedTensors& variant) {
  std::vector<OutputDiff> diffs;
  for (const auto& [name, a] : base) {
    const Tensor* b = nullptr;
    for (const auto& [n, t] : variant) {
      if (n == name) b = &t;
    }
    if (b == nullptr) return InvalidInput("the variant has no output " + name);
    if (b->shape() != a.shape()) return InvalidInput("output " + name + " changed shape");
    OutputDiff d;
    d.name = name;
    d.bitwise_equal = a.dtype() == b->dtype() && BytesEqual(a, *b);
    ElementStream sa(a), sb(*b);
    std::vector<double> xs(kDiffChunk), ys(kDiffChunk);
    if (d.bitwise_equal) {
      // No difference anywhere (NaNs included): only max|x| is left, for the bound.
      for (int64_t n; (n = sa.Next(xs.data(), kDiffChunk)) > 0;) {
        for (int64_t i = 0; i < n; ++i) {
          const double x = xs[static_cast<size_t>(i)];
          if (std::isfinite(x))
            d.max_abs = std::max(d.max_abs, std::fabs(x));
          else
            ++d.nonfinite_shared;
        }
      }
      d.bound = RoundingBound(a.dtype(), d.max_abs);
      diffs.push_back(std::move(d));
      continue;
    }
    for (int64_t n; (n = sa.Fill(xs.data(), kDiffChunk)) > 0;) {
      sb.Fill(ys.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double x = xs[static_cast<size_t>(i)], y = ys[static_cast<size_t>(i)];
        if (std::isfinite(x) && std::isfinite(y)) {
          d.max_abs_diff = std::max(d.max_abs_diff, std::fabs(x - y));
          d.max_abs = std::max(d.max_abs, std::fabs(x));
        } else if (!(std::isnan(x) && std::isnan(y)) && !(x == y)) {
          ++d.nonfinite_mismatches;
        } else {
          ++d.nonfinite_shared;
        }
      }
    }
    d.bound = RoundingBound(a.dtype(), d.max_abs);
    diffs.push_back(std::move(d));
  }
  return diffs;
}

std::string DescribeNearZeroVariance(const NamedTensors& reference) {
  for (const auto& [name, t] : reference) {
    Tensor c = t.Contiguous();
    if (!IsFloatingPoint(c.dtype()) || c.numel() == 0) continue;
    const size_t es = c.element_size();
    double sum = 0, sq = 0, first = 0;
    int64_t n = 0;
    for (int64_t i = 0; i < c.numel(); ++i) {
      double x = LoadOneAsDouble(c.dtype(), c.data() + static_cast<size_t>(i) * es);
      if (!std::isfinite(x)) continue;
      if (n == 0) first = x;
      // Shifted by the first value: no cancellation when the mean is large.
      sum += x - first;
      sq += (x - first) * (x - first);
      ++n;
    }
    std::string count = std::to_string(c.numel()) + " elements";
    if (n == 0) return "reference " + name + " has no finite value over " + count;
    double mean = first + sum / static_cast<double>(n);
    double var = std::max(0.0, sq / static_cast<double>(n) - (sum / n) * (sum / n));
    if (std::sqrt(var) <= 1e-6 * std::fabs(mean)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", mean);
      return "reference " + name + " is constant (" + buf + ") over " + count +
             (n < c.numel() ? " (" + std::to_string(c.numel() - n) + " not finite)" : "");
    }
  }
  return "";
}

}  // namespace av
