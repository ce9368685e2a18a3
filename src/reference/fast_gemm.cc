#include "reference/fast_gemm.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "reference/f64_array.h"
#include "reference/fast_fp8_dot.h"
#include "reference/fast_fp8_tiles.h"
#include "reference/fast_kernels.h"
#include "reference/fast_source.h"
#include "reference/fp8_gemm_layout.h"
#include "reference/fp8_quant.h"
#include "reference/line_vector.h"
#include "reference/tile_registers.h"

namespace av {
namespace {

// Rows of D per unit: a 512 x 64 float D tile (128 KiB) and the packed B panel
// (k x 64 floats, 512 KiB at k = 2048) stay in L2 while A streams through.
constexpr int64_t kUnitRows = 512;

// x [rows, k] dequantised into T: x[r][c] * scale(r, c / 128) (scale 1 when `scales` is
// null). `block_rows` 1 = per-token scales [rows, kb]; 128 = per-block [ceil(rows/128), kb].
template <typename T>
Result<std::vector<T>> Dequantize(const Tensor& x, const F64Array* scales, int64_t block_rows,
                                  int threads) {
  AV_ASSIGN_OR_RETURN(RowSource src, RowSource::Make(x, "operand"));
  const int64_t rows = x.dim(0), k = x.dim(1);
  std::vector<T> out(static_cast<size_t>(rows * k));
  ParallelFor(rows, threads, [&](int64_t r, int) {
    T* row = &out[static_cast<size_t>(r * k)];
    src.Read<T>(0, r, k, T(1), row);
    if (scales == nullptr) return;
    for (int64_t c = 0; c < k; ++c) {
      // The kernels multiply the fp8 value by its float32 scale in float32.
      row[c] = static_cast<T>(row[c] * static_cast<T>((*scales)(r / block_rows, c / kFp8Group)));
    }
  });
  return out;
}

// D [m, n] (float, or double when T is) in units of `cols` columns x up to kUnitRows rows,
// run column-block-major so a worker usually reuses its packed panel: pack(j0, nb, panel)
// fills a worker's panel (elements of P) for columns [j0, j0 + nb) when its column block
// changes, compute(panel, r0, rows, tile) writes the unit's rows x cols tile (zeroed
// first), and the tile's first nb columns go to D. Units are fixed by the shape, so every
// element is computed the same way for any thread count.
template <typename T, typename P, typename Pack, typename Compute>
Tensor MultiplyByUnits(int64_t m, int64_t n, int64_t cols, int threads, Pack&& pack,
                       Compute&& compute) {
  Tensor d = Tensor::Zeros(sizeof(T) == 4 ? DType::kF32 : DType::kF64, {m, n});
  T* dp = reinterpret_cast<T*>(d.mutable_data());
  const int64_t col_blocks = (n + cols - 1) / cols, row_blocks = (m + kUnitRows - 1) / kUnitRows;
  struct Scratch {
    LineVector<P> panel;  // on a cache line: the tile kernels load it by rows of 64 bytes
    std::vector<T> tile;
    int64_t packed = -1;  // column block currently packed in panel
  };
  const int workers = ResolveThreadCount(threads);
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  ParallelFor(col_blocks * row_blocks, workers, [&](int64_t unit, int worker) {
    Scratch& sc = scratch[static_cast<size_t>(worker)];
    const int64_t cb = unit / row_blocks, rb = unit % row_blocks;
    const int64_t j0 = cb * cols, nb = std::min(cols, n - j0);
    const int64_t r0 = rb * kUnitRows, rows = std::min(kUnitRows, m - r0);
    if (sc.packed != cb) {
      pack(j0, nb, sc.panel);
      sc.packed = cb;
    }
    sc.tile.assign(static_cast<size_t>(rows * cols), T(0));
    compute(sc.panel.data(), r0, rows, j0, sc.tile.data());
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(dp + (r0 + r) * n + j0, &sc.tile[static_cast<size_t>(r * cols)],
                  static_cast<size_t>(nb) * sizeof(T));
  });
  return d;
}

template <typename T>
Tensor Multiply(const std::vector<T>& a, const std::vector<T>& b, int64_t m, int64_t n, int64_t k,
                const FastOptions& options) {
  constexpr int64_t NB = kKeyBlock<T>;
  const BlockKernels<T>& kern = GetBlockKernels<T>(options.allow_avx512);
  return MultiplyByUnits<T, T>(
      m, n, NB, options.threads,
      [&](int64_t j0, int64_t nb, LineVector<T>& bt) {
        bt.assign(static_cast<size_t>(k * NB), T(0));
        for (int64_t j = 0; j < nb; ++j)
          for (int64_t c = 0; c < k; ++c)
            bt[PackedIndex(kern.group, k, c, j)] = b[(j0 + j) * k + c];
      },
      [&](const T* bt, int64_t r0, int64_t rows, int64_t, T* tile) {
        kern.scores(&a[r0 * k], k, rows, k, bt, tile);
      });
}

// An fp8 operand as the bf16 dot-product kernel reads it: each row's values as bf16 pairs
// (fast_fp8_dot.h), kblocks * 64 pairs a row with the channels past k zero, and its scales
// rounded to float32 as the FMA path multiplies them.
struct DotOperand {
  int64_t rows = 0, kblocks = 0;
  LineVector<uint32_t> pairs;  // [rows][kblocks * 64]
  std::vector<float> scales;    // [scale rows][kblocks]
  int64_t lda() const { return kblocks * kFp8DotBlockPairs; }
};

Result<DotOperand> ToDotOperand(const Tensor& x, const F64Array& scales, int threads) {
  AV_ASSIGN_OR_RETURN(RowSource src, RowSource::Make(x, "operand"));
  DotOperand op;
  op.rows = x.dim(0);
  const int64_t k = x.dim(1);
  op.kblocks = (k + kFp8Group - 1) / kFp8Group;
  const int64_t lda = op.lda();
  op.pairs.assign(static_cast<size_t>(op.rows * lda), 0);
  std::vector<std::vector<float>> rows(static_cast<size_t>(ResolveThreadCount(threads)));
  ParallelFor(op.rows, threads, [&](int64_t r, int worker) {
    std::vector<float>& row = rows[static_cast<size_t>(worker)];
    row.resize(static_cast<size_t>(k));
    src.Read<float>(0, r, k, 1.0f, row.data());
    uint32_t* out = &op.pairs[static_cast<size_t>(r * lda)];
    // An fp8 value's float32 has 16 zero low bits (at most 3 mantissa bits), so its top
    // half is exactly its bf16.
    for (int64_t c = 0; c < k; ++c)
      out[c / 2] |= (std::bit_cast<uint32_t>(row[static_cast<size_t>(c)]) >> 16) << (16 * (c & 1));
  });
  op.scales.resize(scales.data.size());
  for (size_t i = 0; i < scales.data.size(); ++i) op.scales[i] = static_cast<float>(scales.data[i]);
  return op;
}

using PanelFn = void (*)(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                         int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb,
                         float* d);

// The FP8 forms' kernel on bf16 pairs (float32 results only; the float64 option and the
// portable-kernel tests keep the FMA path): the AMX tiles where the CPU has them (on a
// 2-core Xeon 4096 x 7168 x 2048 ran at 0.41 of the FP32 FMA peak on VDPBF16PS, below its
// FMA path's 0.50), else the AVX512-BF16 dot product; their emulation when asked. Null:
// the FMA path.
PanelFn PickPanel(const FastOptions& options) {
  if (options.accumulate_f64) return nullptr;
  if (options.tiles == TilePath::kEmulated) return &Fp8TilePanelEmulated;
  if (!options.allow_avx512 || !options.allow_bf16_dot) return nullptr;
  if (options.tiles == TilePath::kAuto && CpuHasAmxBf16()) return &Fp8TilePanelAmx;
  return CpuHasAvx512Bf16() ? &Fp8DotPanel : nullptr;
}

// D [m, n] float32 = A Bᵀ by a panel kernel: units of 64 columns x up to 512 rows, as
// Multiply's, each packing its B panel pair-major ([kblocks * 64 pairs][64 columns]).
Tensor MultiplyDot(const DotOperand& a, const DotOperand& b, const FastOptions& options) {
  const PanelFn panel = PickPanel(options);
  const int64_t kblocks = a.kblocks, lda = a.lda();
  constexpr int64_t NB = kFp8DotPanel;
  return MultiplyByUnits<float, uint32_t>(
      a.rows, b.rows, NB, options.threads,
      [&](int64_t j0, int64_t nb, LineVector<uint32_t>& bt) {
        bt.assign(static_cast<size_t>(lda * NB), 0);
        for (int64_t j = 0; j < nb; ++j) {
          const uint32_t* src = &b.pairs[static_cast<size_t>((j0 + j) * lda)];
          for (int64_t q = 0; q < lda; ++q) bt[static_cast<size_t>(q * NB + j)] = src[q];
        }
      },
      [&](const uint32_t* bt, int64_t r0, int64_t rows, int64_t j0, float* tile) {
        // A 64-column panel lies inside one 128-column scale block of B.
        panel(&a.pairs[static_cast<size_t>(r0 * lda)], lda,
              &a.scales[static_cast<size_t>(r0 * kblocks)], kblocks, rows, kblocks, bt,
              &b.scales[static_cast<size_t>(j0 / kFp8Group * kblocks)], tile);
      });
}

bool UseDot(const FastOptions& options) { return PickPanel(options) != nullptr; }

template <typename T>
Result<Tensor> GemmT(const Tensor& a, const Tensor& b, const F64Array* sa, const F64Array* sb,
                     const FastOptions& options) {
  const int threads = ResolveThreadCount(options.threads);
  AV_ASSIGN_OR_RETURN(std::vector<T> ad, Dequantize<T>(a, sa, 1, threads));
  AV_ASSIGN_OR_RETURN(std::vector<T> bd, Dequantize<T>(b, sb, kFp8Group, threads));
  return Multiply<T>(ad, bd, a.dim(0), b.dim(0), a.dim(1), options);
}

// The grouped forms: A converted once; per group, its rows gathered into a contiguous
// block, that group's B converted, and the plain path's multiply run on them; rows of no
// group stay 0. Every row's sums are those of the plain path, so a group's rows are
// bitwise what fp8_gemm_nt gives for them alone, for any thread count.
// ForEachGroup: D [out_shape] of T; for each group with rows, run(g, rows) returns the
// group's [rows.size(), n] result, copied into D's rows (an unused expert's B is never read).
template <typename T, typename Run>
Result<Tensor> ForEachGroup(const Fp8GemmProblem& p, Run&& run) {
  Tensor d = Tensor::Zeros(sizeof(T) == 4 ? DType::kF32 : DType::kF64, p.out_shape);
  T* dp = reinterpret_cast<T*>(d.mutable_data());
  std::vector<int64_t> rows;
  for (size_t g = 0; g < p.b.size(); ++g) {
    rows.clear();
    for (int64_t r = 0; r < p.rows; ++r)
      if (p.group_of[static_cast<size_t>(r)] == static_cast<int64_t>(g)) rows.push_back(r);
    if (rows.empty()) continue;
    AV_ASSIGN_OR_RETURN(Tensor dg, run(g, rows));
    const T* src = reinterpret_cast<const T*>(dg.data());
    for (size_t i = 0; i < rows.size(); ++i)
      std::memcpy(dp + rows[i] * p.n, src + static_cast<int64_t>(i) * p.n, p.n * sizeof(T));
  }
  return d;
}

// The bf16 dot-product kernel's grouped form.
Result<Tensor> GroupedDot(const Fp8GemmProblem& p, const FastOptions& options) {
  const int threads = ResolveThreadCount(options.threads);
  AV_ASSIGN_OR_RETURN(DotOperand ad, ToDotOperand(p.a, LoadF64(p.sa), threads));
  const int64_t lda = ad.lda(), kblocks = ad.kblocks;
  DotOperand ag;
  ag.kblocks = kblocks;
  return ForEachGroup<float>(p, [&](size_t g, const std::vector<int64_t>& rows) -> Result<Tensor> {
    ag.rows = static_cast<int64_t>(rows.size());
    ag.pairs.resize(static_cast<size_t>(ag.rows * lda));
    ag.scales.resize(static_cast<size_t>(ag.rows * kblocks));
    for (int64_t i = 0; i < ag.rows; ++i) {
      std::memcpy(&ag.pairs[i * lda], &ad.pairs[rows[i] * lda], lda * sizeof(uint32_t));
      std::memcpy(&ag.scales[i * kblocks], &ad.scales[rows[i] * kblocks],
                  kblocks * sizeof(float));
    }
    AV_ASSIGN_OR_RETURN(DotOperand bd, ToDotOperand(p.b[g], LoadF64(p.sb[g]), threads));
    return MultiplyDot(ag, bd, options);
  });
}

// The FMA path's grouped form.
template <typename T>
Result<Tensor> GroupedT(const Fp8GemmProblem& p, const FastOptions& options) {
  const int threads = ResolveThreadCount(options.threads);
  const int64_t k = p.k;
  const F64Array fsa = LoadF64(p.sa);
  AV_ASSIGN_OR_RETURN(std::vector<T> ad, Dequantize<T>(p.a, &fsa, 1, threads));
  std::vector<T> ag;
  return ForEachGroup<T>(p, [&](size_t g, const std::vector<int64_t>& rows) -> Result<Tensor> {
    const int64_t m = static_cast<int64_t>(rows.size());
    ag.resize(static_cast<size_t>(m * k));
    for (int64_t i = 0; i < m; ++i) std::memcpy(&ag[i * k], &ad[rows[i] * k], k * sizeof(T));
    const F64Array fsb = LoadF64(p.sb[g]);
    AV_ASSIGN_OR_RETURN(std::vector<T> bd, Dequantize<T>(p.b[g], &fsb, kFp8Group, threads));
    return Multiply<T>(ag, bd, m, p.n, k, options);
  });
}

Status CheckScales(const Tensor& s, int64_t rows, int64_t k, const std::string& what) {
  AV_RETURN_IF_ERROR(ExpectRank(s, 2, what, "[rows or row blocks, ceil(k/128)]"));
  AV_RETURN_IF_ERROR(ExpectDim(s, 0, rows, what, "rows"));
  return ExpectDim(s, 1, (k + kFp8Group - 1) / kFp8Group, what, "ceil(k/128)");
}

}  // namespace

Result<Tensor> ComputeGemmNtFast(const Tensor& a, const Tensor& b, const FastOptions& options) {
  AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", "[m, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(b, 2, "b", "[n, k]"));
  AV_RETURN_IF_ERROR(ExpectFloating(a, "a"));
  AV_RETURN_IF_ERROR(ExpectFloating(b, "b"));
  AV_RETURN_IF_ERROR(ExpectDim(b, 1, a.dim(1), "b", "k"));
  if (options.accumulate_f64) return GemmT<double>(a, b, nullptr, nullptr, options);
  return GemmT<float>(a, b, nullptr, nullptr, options);
}

Result<Tensor> ComputeFp8GemmNtFast(const Tensor& a, const Tensor& sa, const Tensor& b,
                                    const Tensor& sb, const FastOptions& options) {
  AV_RETURN_IF_ERROR(ExpectRank(a, 2, "a", "[m, k]"));
  AV_RETURN_IF_ERROR(ExpectRank(b, 2, "b", "[n, k]"));
  for (const auto& [t, what] : {std::pair{&a, "a"}, std::pair{&b, "b"}}) {
    if (t->dtype() != DType::kF8E4M3FN && t->dtype() != DType::kF8E5M2) {
      return InvalidInput(std::string(what) + ": expected f8_e4m3fn (or f8_e5m2), got " +
                          std::string(DTypeName(t->dtype())) + "; use gemm for unscaled operands");
    }
  }
  AV_RETURN_IF_ERROR(ExpectDim(b, 1, a.dim(1), "b", "k"));
  const int64_t k = a.dim(1);
  AV_RETURN_IF_ERROR(CheckScales(sa, a.dim(0), k, "sa"));
  AV_RETURN_IF_ERROR(CheckScales(sb, (b.dim(0) + kFp8Group - 1) / kFp8Group, k, "sb"));
  const F64Array fsa = LoadF64(sa), fsb = LoadF64(sb);
  if (UseDot(options)) {
    const int threads = ResolveThreadCount(options.threads);
    AV_ASSIGN_OR_RETURN(DotOperand ad, ToDotOperand(a, fsa, threads));
    AV_ASSIGN_OR_RETURN(DotOperand bd, ToDotOperand(b, fsb, threads));
    return MultiplyDot(ad, bd, options);
  }
  if (options.accumulate_f64) return GemmT<double>(a, b, &fsa, &fsb, options);
  return GemmT<float>(a, b, &fsa, &fsb, options);
}

Result<Tensor> ComputeFp8GemmNtGroupedFast(const Tensor& a, const Tensor& sa, const Tensor& b,
                                           const Tensor& sb, const Tensor& m_indices,
                                           const Tensor& masked_m, const FastOptions& options) {
  AV_ASSIGN_OR_RETURN(Fp8GemmProblem p, ResolveFp8Gemm(a, sa, b, sb, m_indices, masked_m));
  if (UseDot(options)) return GroupedDot(p, options);
  if (options.accumulate_f64) return GroupedT<double>(p, options);
  return GroupedT<float>(p, options);
}

std::string DescribeFp8GemmKernel(const FastOptions& options) {
  const PanelFn panel = PickPanel(options);
  if (panel == &Fp8TilePanelAmx) return "amx-bf16-tiles";
  if (panel == &Fp8TilePanelEmulated) return "emulated-bf16-tiles";
  if (panel == &Fp8DotPanel) return "avx512bf16-dot";
  return std::string(options.accumulate_f64 ? GetBlockKernels<double>(options.allow_avx512).isa
                                            : GetBlockKernels<float>(options.allow_avx512).isa) +
         "-fma";
}

}  // namespace av
