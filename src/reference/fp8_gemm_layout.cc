#include "reference/fp8_gemm_layout.h"

#include <string>

#include "reference/f64_array.h"
#include "reference/fp8_quant.h"

namespace av {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Status ExpectFp8(const Tensor& t, const std::string& what) {
  if (t.dtype() == DType::kF8E4M3FN || t.dtype() == DType::kF8E5M2) return Status::Ok();
  return InvalidInput(what + ": expected f8_e4m3fn (or f8_e5m2), got " +
                      std::string(DTypeName(t.dtype())) + "; use gemm for unscaled operands");
}

Status ExpectScales(const Tensor& s, int64_t rows, int64_t k, const std::string& what,
                    const std::string& layout) {
  AV_RETURN_IF_ERROR(ExpectRank(s, 2, what, layout));
  AV_RETURN_IF_ERROR(ExpectFloating(s, what));
  AV_RETURN_IF_ERROR(ExpectDim(s, 0, rows, what, "rows or row blocks"));
  return ExpectDim(s, 1, CeilDiv(k, kFp8Group), what, "ceil(k/128)");
}

// Group g of a [groups, x, y] tensor as a contiguous [x, y].
Result<Tensor> Group(const Tensor& t, int64_t g) {
  AV_ASSIGN_OR_RETURN(Tensor s, t.Slice(0, g, g + 1));
  return s.Contiguous().Reshape({t.dim(1), t.dim(2)});
}

// b [groups, n, k], sb [groups, ceil(n/128), ceil(k/128)] into per-group pairs.
Status SplitGroupedB(const Tensor& b, const Tensor& sb, int64_t k, Fp8GemmProblem& p) {
  AV_RETURN_IF_ERROR(ExpectRank(b, 3, "b", "[groups, n, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(sb, 3, "sb", "[groups, ceil(n/128), ceil(k/128)]"));
  AV_RETURN_IF_ERROR(ExpectFp8(b, "b"));
  AV_RETURN_IF_ERROR(ExpectDim(b, 2, k, "b", "k"));
  AV_RETURN_IF_ERROR(ExpectDim(sb, 0, b.dim(0), "sb", "groups"));
  p.n = b.dim(1);
  for (int64_t g = 0; g < b.dim(0); ++g) {
    AV_ASSIGN_OR_RETURN(Tensor bg, Group(b, g));
    AV_ASSIGN_OR_RETURN(Tensor sbg, Group(sb, g));
    AV_RETURN_IF_ERROR(ExpectScales(sbg, CeilDiv(p.n, kFp8Group), k, "sb[" + Str(g) + "]",
                                    "[ceil(n/128), ceil(k/128)]"));
    p.b.push_back(bg);
    p.sb.push_back(sbg);
  }
  return Status::Ok();
}

}  // namespace

Result<Fp8GemmProblem> ResolveFp8Gemm(const Tensor& a, const Tensor& sa, const Tensor& b,
                                      const Tensor& sb, const Tensor& m_indices,
                                      const Tensor& masked_m) {
  if (!a.defined() || !sa.defined() || !b.defined() || !sb.defined()) {
    return InvalidInput("fp8_gemm needs a, sa, b and sb");
  }
  if (m_indices.defined() && masked_m.defined()) {
    return InvalidInput(
        "give m_indices (grouped contiguous) or masked_m (grouped masked), not both");
  }
  AV_RETURN_IF_ERROR(ExpectFp8(a, "a"));
  Fp8GemmProblem p;
  if (masked_m.defined()) {
    AV_RETURN_IF_ERROR(ExpectRank(a, 3, "a", "[groups, max_m, k]"));
    AV_RETURN_IF_ERROR(ExpectRank(sa, 3, "sa", "[groups, max_m, ceil(k/128)]"));
    const int64_t groups = a.dim(0), max_m = a.dim(1);
    p.k = a.dim(2);
    p.rows = groups * max_m;
    AV_RETURN_IF_ERROR(ExpectDim(sa, 0, groups, "sa", "groups"));
    AV_RETURN_IF_ERROR(ExpectDim(sa, 1, max_m, "sa", "max_m"));
    AV_RETURN_IF_ERROR(SplitGroupedB(b, sb, p.k, p));
    AV_RETURN_IF_ERROR(ExpectDim(b, 0, groups, "b", "groups"));
    AV_RETURN_IF_ERROR(ExpectRank(masked_m, 1, "masked_m", "[groups]"));
    AV_RETURN_IF_ERROR(ExpectDim(masked_m, 0, groups, "masked_m", "groups"));
    AV_ASSIGN_OR_RETURN(std::vector<int64_t> valid, LoadIndices(masked_m, "masked_m"));
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t rows = valid[static_cast<size_t>(g)];
      if (rows < 0 || rows > max_m) {
        return InvalidInput("masked_m[" + Str(g) + "] = " + Str(rows) + " is outside [0, " +
                            Str(max_m) + "]");
      }
      for (int64_t i = 0; i < max_m; ++i) p.group_of.push_back(i < rows ? g : -1);
    }
    AV_ASSIGN_OR_RETURN(p.a, a.Contiguous().Reshape({p.rows, p.k}));
    AV_ASSIGN_OR_RETURN(p.sa, sa.Contiguous().Reshape({p.rows, sa.dim(2)}));
    p.out_shape = {groups, max_m, p.n};
  } else {
    AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", m_indices.defined() ? "[m_sum, k]" : "[m, k]"));
    p.rows = a.dim(0);
    p.k = a.dim(1);
    p.a = a;
    p.sa = sa;
    if (m_indices.defined()) {
      AV_RETURN_IF_ERROR(SplitGroupedB(b, sb, p.k, p));
      AV_RETURN_IF_ERROR(ExpectRank(m_indices, 1, "m_indices", "[m_sum]"));
      AV_RETURN_IF_ERROR(ExpectDim(m_indices, 0, p.rows, "m_indices", "m_sum"));
      AV_ASSIGN_OR_RETURN(p.group_of, LoadIndices(m_indices, "m_indices"));
      const int64_t groups = b.dim(0);
      for (int64_t r = 0; r < p.rows; ++r) {
        const int64_t g = p.group_of[static_cast<size_t>(r)];
        if (g < -1 || g >= groups) {
          return InvalidInput("m_indices[" + Str(r) + "] = " + Str(g) +
                              " is neither -1 nor a group (0.." + Str(groups - 1) + ")");
        }
      }
    } else {
      AV_RETURN_IF_ERROR(ExpectRank(b, 2, "b", "[n, k]"));
      AV_RETURN_IF_ERROR(ExpectFp8(b, "b"));
      AV_RETURN_IF_ERROR(ExpectDim(b, 1, p.k, "b", "k"));
      p.n = b.dim(0);
      AV_RETURN_IF_ERROR(
          ExpectScales(sb, CeilDiv(p.n, kFp8Group), p.k, "sb", "[ceil(n/128), ceil(k/128)]"));
      p.b.push_back(b);
      p.sb.push_back(sb);
      p.group_of.assign(static_cast<size_t>(p.rows), 0);
    }
    p.out_shape = {p.rows, p.n};
  }
  AV_RETURN_IF_ERROR(ExpectScales(p.sa, p.rows, p.k, "sa", "[rows, ceil(k/128)]"));
  return p;
}

}  // namespace av
