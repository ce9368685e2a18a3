#include "reference/gemm.h"

#include <algorithm>
#include <functional>
#include <string>

#include "core/thread_pool.h"
#include "reference/f64_array.h"
#include "reference/fp8_quant.h"

namespace av {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

bool IsFp8(DType t) { return t == DType::kF8E4M3FN || t == DType::kF8E5M2; }

Status ExpectFp8(const Tensor& t, const std::string& what) {
  if (IsFp8(t.dtype())) return Status::Ok();
  return InvalidInput(what + ": expected f8_e4m3fn (or f8_e5m2), got " +
                      std::string(DTypeName(t.dtype())) + "; use gemm for unscaled operands");
}

// Sums d[i0.., j0..] (an R x C tile, row stride n) += a[i, c] * b[j, c] for c in
// [c0, c1), each in c order: the running sums live in d between calls.
template <int R, int C>
void TileNt(const double* a, const double* b, double* d, int64_t k, int64_t n, int64_t c0,
            int64_t c1) {
  double s[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) s[i][j] = d[i * n + j];
  for (int64_t c = c0; c < c1; ++c)
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) s[i][j] += a[i * k + c] * b[j * k + c];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) d[i * n + j] = s[i][j];
}

// Rows [j0, j1) of B [n, k] in float64; j0 is a multiple of kBRowsUnit.
using BRows = std::function<Result<F64Array>(int64_t j0, int64_t j1)>;

// B is read this many rows at a time, or a multiple: an FP8 scale block's rows.
constexpr int64_t kBRowsUnit = 128;

// d[m, n] = sum_k a[m, k] * b[n, k] for rows [0, rows) of a, a: [m, k]. Every sum is the
// triple loop's: from 0, one product at a time in k order, each a float64 multiply then
// add (never fused; the build has no FMA), so the bits are the plain loop's
// (GemmOracleTest.BlockedLoopsEqualTheTripleLoopBitwise). A sum kept in d between k
// blocks is the same float64 the loop would carry. Blocks: B a block of rows at a time
// (about 16 MiB in float64; a whole dequantised B had been up to 940 MB beside the
// result), 64 rows of a a work unit (on every thread), 256 of k at a time (the unit's rows
// of a stay in L2), 4 x 4 outputs in registers. The result is written straight into its
// float64 tensor (no F64Array copy: a 4096 x 32768 result is 1 GiB).
Result<Tensor> MultiplyNt(const F64Array& a, int64_t rows, int64_t n, const BRows& b_rows) {
  const int64_t k = a.dim(1);
  Tensor d = Tensor::Zeros(DType::kF64, {a.dim(0), n});
  constexpr int64_t kRows = 64, kDepth = 256, kT = 4;
  const int64_t block = std::max<int64_t>(
      kBRowsUnit, (int64_t{16} << 20) / (8 * std::max<int64_t>(k, 1)) / kBRowsUnit * kBRowsUnit);
  const double* pa = a.data.data();
  double* pd = reinterpret_cast<double*>(d.mutable_data());
  for (int64_t j0 = 0; j0 < n; j0 += block) {
    const int64_t j1 = std::min(n, j0 + block);
    AV_ASSIGN_OR_RETURN(F64Array b, b_rows(j0, j1));
    const double* pb = b.data.data();  // row j of B at pb + (j - j0) * k
    ParallelFor((rows + kRows - 1) / kRows, ResolveThreadCount(0), [&](int64_t unit, int) {
      const int64_t r0 = unit * kRows, r1 = std::min(rows, r0 + kRows);
      for (int64_t c0 = 0; c0 < k; c0 += kDepth) {
        const int64_t c1 = std::min(k, c0 + kDepth);
        for (int64_t j = j0; j < j1; j += kT) {
          for (int64_t i = r0; i < r1; i += kT) {
            const double* ta = pa + i * k;
            const double* tb = pb + (j - j0) * k;
            double* td = pd + i * n + j;
            if (i + kT <= r1 && j + kT <= j1) {
              TileNt<kT, kT>(ta, tb, td, k, n, c0, c1);
            } else {
              for (int64_t ii = i; ii < std::min(r1, i + kT); ++ii)
                for (int64_t jj = j; jj < std::min(j1, j + kT); ++jj)
                  TileNt<1, 1>(pa + ii * k, pb + (jj - j0) * k, pd + ii * n + jj, k, n, c0, c1);
            }
          }
        }
      }
    });
  }
  return d;
}

// Rows of a plain B, loaded as float64 a block at a time.
BRows PlainRows(const Tensor& b) {
  return [&b](int64_t j0, int64_t j1) -> Result<F64Array> {
    AV_ASSIGN_OR_RETURN(Tensor rows, b.Slice(0, j0, j1));
    return LoadF64(rows);
  };
}

// The shapes of a per-block scaled FP8 B and its scales, checked whole (no row read), so a
// malformed tensor is refused before any block is multiplied.
Status CheckFp8Rows(const Tensor& b, const Tensor& sb, const std::string& what) {
  Result<F64Array> none = DequantizePerBlockRowsF64(b, sb, 0, 0);
  return none.ok() ? Status::Ok() : none.status().WithContext(what);
}

// Rows of a per-block scaled FP8 B, dequantised a block at a time.
BRows Fp8Rows(const Tensor& b, const Tensor& sb, const std::string& what) {
  return [&b, &sb, what](int64_t j0, int64_t j1) -> Result<F64Array> {
    Result<F64Array> rows = DequantizePerBlockRowsF64(b, sb, j0, j1);
    if (!rows.ok()) return rows.status().WithContext(what);
    return rows;
  };
}

// Group g of a [groups, x, y] tensor as [x, y].
Result<Tensor> Group(const Tensor& t, int64_t g) {
  AV_ASSIGN_OR_RETURN(Tensor s, t.Slice(0, g, g + 1));
  return s.Contiguous().Reshape({t.dim(1), t.dim(2)});
}

Status ExpectGroupedB(const Tensor& b, const Tensor& sb, int64_t k) {
  AV_RETURN_IF_ERROR(ExpectRank(b, 3, "b", "[groups, n, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(sb, 3, "sb", "[groups, ceil(n/128), ceil(k/128)]"));
  AV_RETURN_IF_ERROR(ExpectFp8(b, "b"));
  AV_RETURN_IF_ERROR(ExpectDim(b, 2, k, "b", "k"));
  AV_RETURN_IF_ERROR(ExpectDim(sb, 0, b.dim(0), "sb", "groups"));
  return Status::Ok();
}

}  // namespace

Result<Tensor> ComputeGemmNt(const Tensor& a, const Tensor& b) {
  AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", "[m, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(b, 2, "b", "[n, k]"));
  AV_RETURN_IF_ERROR(ExpectFloating(a, "a"));
  AV_RETURN_IF_ERROR(ExpectFloating(b, "b"));
  AV_RETURN_IF_ERROR(ExpectDim(b, 1, a.dim(1), "b", "k"));
  return MultiplyNt(LoadF64(a), a.dim(0), b.dim(0), PlainRows(b));
}

Result<Tensor> ComputeFp8GemmNt(const Tensor& a, const Tensor& sa, const Tensor& b,
                                const Tensor& sb) {
  AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", "[m, k]"));
  AV_RETURN_IF_ERROR(ExpectFp8(a, "a"));
  AV_RETURN_IF_ERROR(ExpectFp8(b, "b"));
  // Each dequantised operand exists once, as the float64 array the loops read (a refereed
  // 4096 x 32768 x 512 GEMM had held B's Tensor form too, beside its 1 GiB result).
  Result<F64Array> af = DequantizePerTokenF64(a, sa);
  if (!af.ok()) return af.status().WithContext("a/sa");
  AV_RETURN_IF_ERROR(ExpectRank(b, 2, "b", "[n, k]"));
  AV_RETURN_IF_ERROR(CheckFp8Rows(b, sb, "b/sb"));
  if (b.dim(1) != a.dim(1)) {
    return InvalidInput("b: k is " + Str(b.dim(1)) + " but a has k = " + Str(a.dim(1)));
  }
  return MultiplyNt(*af, a.dim(0), b.dim(0), Fp8Rows(b, sb, "b/sb"));
}

Result<Tensor> ComputeFp8GemmNtGroupedContiguous(const Tensor& a, const Tensor& sa, const Tensor& b,
                                                 const Tensor& sb, const Tensor& m_indices) {
  AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", "[m_sum, k]"));
  AV_RETURN_IF_ERROR(ExpectFp8(a, "a"));
  AV_RETURN_IF_ERROR(ExpectGroupedB(b, sb, a.dim(1)));
  AV_RETURN_IF_ERROR(ExpectRank(m_indices, 1, "m_indices", "[m_sum]"));
  AV_RETURN_IF_ERROR(ExpectDim(m_indices, 0, a.dim(0), "m_indices", "m_sum"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> group_of, LoadIndices(m_indices, "m_indices"));
  const int64_t groups = b.dim(0), m = a.dim(0), n = b.dim(1);
  for (int64_t r = 0; r < m; ++r) {
    const int64_t g = group_of[static_cast<size_t>(r)];
    if (g < -1 || g >= groups) {
      return InvalidInput("m_indices[" + Str(r) + "] = " + Str(g) +
                          " is neither -1 nor a group (0.." + Str(groups - 1) + ")");
    }
  }
  Result<F64Array> ad = DequantizePerTokenF64(a, sa);
  if (!ad.ok()) return ad.status().WithContext("a/sa");
  const F64Array& av = *ad;
  F64Array d = F64Array::Zeros({m, n});
  for (int64_t g = 0; g < groups; ++g) {
    AV_ASSIGN_OR_RETURN(Tensor bg, Group(b, g));
    AV_ASSIGN_OR_RETURN(Tensor sbg, Group(sb, g));
    Result<F64Array> bd = DequantizePerBlockF64(bg, sbg);
    if (!bd.ok()) return bd.status().WithContext("b/sb group " + Str(g));
    const F64Array& bv = *bd;
    for (int64_t r = 0; r < m; ++r) {
      if (group_of[static_cast<size_t>(r)] != g) continue;  // other group or -1 padding
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t c = 0; c < a.dim(1); ++c) sum += av(r, c) * bv(j, c);
        d(r, j) = sum;
      }
    }
  }
  return d.ToTensor();
}

Result<Tensor> ComputeFp8GemmNtGroupedMasked(const Tensor& a, const Tensor& sa, const Tensor& b,
                                             const Tensor& sb, const Tensor& masked_m) {
  AV_RETURN_IF_ERROR(ExpectRank(a, 3, "a", "[groups, max_m, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(sa, 3, "sa", "[groups, max_m, ceil(k/128)]"));
  AV_RETURN_IF_ERROR(ExpectFp8(a, "a"));
  AV_RETURN_IF_ERROR(ExpectGroupedB(b, sb, a.dim(2)));
  const int64_t groups = a.dim(0), max_m = a.dim(1), n = b.dim(1);
  AV_RETURN_IF_ERROR(ExpectDim(b, 0, groups, "b", "groups"));
  AV_RETURN_IF_ERROR(ExpectDim(sa, 0, groups, "sa", "groups"));
  AV_RETURN_IF_ERROR(ExpectRank(masked_m, 1, "masked_m", "[groups]"));
  AV_RETURN_IF_ERROR(ExpectDim(masked_m, 0, groups, "masked_m", "groups"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> valid, LoadIndices(masked_m, "masked_m"));
  F64Array d = F64Array::Zeros({groups, max_m, n});
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t rows = valid[static_cast<size_t>(g)];
    if (rows < 0 || rows > max_m) {
      return InvalidInput("masked_m[" + Str(g) + "] = " + Str(rows) + " is outside [0, " +
                          Str(max_m) + "]");
    }
    AV_ASSIGN_OR_RETURN(Tensor ag, Group(a, g));
    AV_ASSIGN_OR_RETURN(Tensor sag, Group(sa, g));
    AV_ASSIGN_OR_RETURN(Tensor bg, Group(b, g));
    AV_ASSIGN_OR_RETURN(Tensor sbg, Group(sb, g));
    Result<F64Array> ad = DequantizePerTokenF64(ag, sag);
    if (!ad.ok()) return ad.status().WithContext("a/sa group " + Str(g));
    AV_RETURN_IF_ERROR(CheckFp8Rows(bg, sbg, "b/sb group " + Str(g)));
    // rows >= masked_m stay 0
    AV_ASSIGN_OR_RETURN(const Tensor dg,
                        MultiplyNt(*ad, rows, n, Fp8Rows(bg, sbg, "b/sb group " + Str(g))));
    const double* pg = reinterpret_cast<const double*>(dg.data());
    for (int64_t i = 0; i < max_m; ++i)
      for (int64_t j = 0; j < n; ++j) d(g, i, j) = pg[i * n + j];
  }
  return d.ToTensor();
}

}  // namespace av
