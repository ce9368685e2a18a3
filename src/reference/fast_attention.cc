// The fast attention loops. One unit = (job, kv head, query tile); a job is a batch
// (attention) or a key range (split-k). Per unit:
//   rows r = (query row i, head h) for i in the tile and the g = h_q / h_kv heads of the
//   KV head, i-major; each query row i sees the key interval [lo_i, hi_i) (mask and key
//   range), and lo_i, hi_i never decrease with i, so the rows that see any key of a block
//   form one contiguous range — the only rows the block's GEMMs run on.
//   for each 64-key block in [min lo, max hi): gather K (transposed) and V into scratch,
//   S = (scale q) kᵀ, softcap / ALiBi / mask per row, online softmax, O = alpha O + P V.
#include "reference/fast_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/thread_pool.h"
#include "reference/attention_layout.h"
#include "reference/fast_attention_tiles.h"
#include "reference/fast_attention_units.h"
#include "reference/fast_kernels.h"
#include "reference/fast_source.h"
#include "reference/softmax_row.h"
#include "reference/tile_registers.h"

namespace av {
namespace {

using fast_attention::Context;
using fast_attention::Job;
using fast_attention::KeyIntervals;
using fast_attention::OddLineStride;
using fast_attention::PrepareScores;
using fast_attention::RowsSeeingBlock;
using fast_attention::Scratch;
using fast_attention::TileScratch;
using fast_attention::Unit;
using fast_attention::WriteRows;

// Rows per unit: as many as keep the unit's Q and O (rows x (d + dv) floats) near 1 MiB,
// half of this CPU's 2 MiB L2, beside one K/V block: 256 rows for MLA (d + dv = 1088; a
// unit is one or two query rows of 128 heads), capped at 512 — causal prefill at d = 128
// ran 4% faster with 512-row tiles than 256 (each key block converted for twice the rows),
// 128 was 8% slower, 1024 no faster and leaves fewer units to balance.
constexpr int64_t kTileFloats = 256 * 1088;
constexpr int64_t kMaxTileRows = 512;

int64_t TileRows(int64_t d, int64_t dv) {
  return std::clamp<int64_t>(kTileFloats / (d + dv), 1, kMaxTileRows);
}

template <typename T>
void RunUnit(const Context<T>& cx, const Unit& u, Scratch<T>& sc) {
  constexpr int64_t NB = kKeyBlock<T>;
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const AttentionProblem& p = *cx.p;
  const AttentionParams& params = *cx.params;
  const BlockKernels<T>& kern = *cx.kern;
  const Job& job = cx.jobs[static_cast<size_t>(u.job)];
  const int64_t b = job.batch, s_q = p.s_q[b], s_k = p.s_k[b];
  const int64_t g = p.h_q / p.h_kv, d = p.d, dv = p.dv, dvp = (dv + NB - 1) / NB * NB;
  const int64_t tq = u.i1 - u.i0, M = tq * g;

  int64_t jlo = 0, jhi = 0;
  KeyIntervals(params.mask, job, u, s_q, s_k, sc, &jlo, &jhi);

  // V rows: from the converted K rows when V is a prefix of K (MLA: halves the gather),
  // else gathered apart. Both row strides are padded to an odd number of cache lines: at
  // dvp = 512 floats (2 KiB) the 64 rows of a V slice all mapped to 8 of L1's 64 sets, and
  // at d = 576 doubles (72 lines) to 8 as well.
  const bool v_in_k = cx.v_in_k && dvp <= d;
  const int64_t ldk = OddLineStride<T>(d);
  const int64_t ldv = v_in_k ? ldk : OddLineStride<T>(dvp);
  sc.q.resize(M * d);
  sc.kt.resize(d * NB);
  if (!v_in_k) sc.v.assign(NB * ldv, T(0));
  sc.s.resize(M * NB);
  sc.o.assign(M * dvp, T(0));
  sc.alpha.resize(M);
  sc.m.assign(M, kNegInf);
  sc.l.assign(M, T(0));
  sc.row.resize(NB * ldk);
  const T scale = static_cast<T>(p.scale);
  for (int64_t r = 0; r < M; ++r) {
    cx.q.template Read<T>(p.q_begin[b] + u.i0 + r / g, u.kv_head * g + r % g, d, scale,
                          &sc.q[r * d]);
  }

  for (int64_t j0 = jlo; j0 < jhi; j0 += NB) {
    const int64_t nb = std::min(NB, jhi - j0);
    // Query rows (tile-relative) whose interval meets [j0, j0 + nb).
    int64_t ta = 0, tb = 0;
    if (!RowsSeeingBlock(sc, tq, j0, nb, &ta, &tb)) continue;
    // Gather the block: K row-major into scratch (converted to T), then packed to [d][NB]
    // by 16 x 16 tiles (kern.pack_kt); V rows as described above. Padding is zero. The
    // next block's rows are prefetched meanwhile.
    for (int64_t n = 0; n < NB; ++n) {
      if (n < nb) {
        const int64_t row = p.key_row[b][j0 + n];
        cx.k.template Read<T>(row, u.kv_head, d, T(1), &sc.row[n * ldk]);
        if (!v_in_k) cx.v.template Read<T>(row, u.kv_head, dv, T(1), &sc.v[n * ldv]);
        if (j0 + NB + n < jhi) {
          const int64_t next = p.key_row[b][j0 + NB + n];
          cx.k.Prefetch(next, u.kv_head, d);
          if (!v_in_k) cx.v.Prefetch(next, u.kv_head, dv);
        }
      } else {
        std::fill_n(&sc.row[n * ldk], d, T(0));
        if (!v_in_k) std::fill_n(&sc.v[n * ldv], dv, T(0));
      }
      // Pack each 16 keys as soon as they are converted, while their rows (36 KiB at
      // d = 576) are still in L1; packing the whole block afterwards re-read 147 KiB from L2.
      if (n % 16 == 15) kern.pack_kt(&sc.row[(n - 15) * ldk], ldk, d, 16, sc.kt.data(), n - 15);
    }
    const int64_t ra = ta * g, rb = tb * g;
    kern.scores(&sc.q[ra * d], d, rb - ra, d, sc.kt.data(), &sc.s[ra * NB]);
    // Row by row, i-major: t and the head advance without a division per row.
    for (int64_t t = ta; t < tb; ++t) {
      for (int64_t hh = 0; hh < g; ++hh) {
        const int64_t r = t * g + hh;
        T* srow = &sc.s[r * NB];
        PrepareScores(params, p, b, u.kv_head * g + hh, u.i0 + t, s_q, s_k, j0, nb, NB, sc.lo[t],
                      sc.hi[t], srow);
        sc.alpha[r] = kern.softmax_step(srow, NB, &sc.m[r], &sc.l[r]);
      }
    }
    kern.accumulate(&sc.s[ra * NB], &sc.alpha[ra], rb - ra, v_in_k ? sc.row.data() : sc.v.data(),
                    ldv, dvp, &sc.o[ra * dvp], dvp);
  }

  WriteRows(cx, u, sc, dvp);
}

// Units of one job: every KV head, query tiles of TileRows / g rows (at least one);
// tiles outermost and the last tiles (most keys under a causal mask) first, so the long
// units of every head are handed out before any short one, for load balance.
void AddUnits(int64_t job, int64_t s_q, int64_t h_kv, int64_t g, int64_t tile_rows,
              std::vector<Unit>& units) {
  const int64_t tq = std::max<int64_t>(1, tile_rows / g);
  for (int64_t i1 = s_q; i1 > 0; i1 -= tq)
    for (int64_t hk = 0; hk < h_kv; ++hk)
      units.push_back({job, hk, std::max<int64_t>(0, i1 - tq), i1});
}

template <typename T>
Tensor ToTensorOf(const std::vector<T>& data, Shape shape) {
  Tensor t = Tensor::Zeros(sizeof(T) == 4 ? DType::kF32 : DType::kF64, std::move(shape));
  std::memcpy(t.mutable_data(), data.data(), data.size() * sizeof(T));
  return t;
}

using TileRunner = bool (*)(const Context<double>&, const Unit&, TileScratch&);

// The tile kernels' runner the options pick for bf16 data on this CPU, or null.
TileRunner TileRunnerFor(const FastOptions& options) {
  if (!options.accumulate_f64 || options.tiles == TilePath::kOff) return nullptr;
  if (options.tiles == TilePath::kEmulated) return &fast_attention::RunTileUnitEmulated;
  return CpuHasAmxBf16() ? &fast_attention::RunTileUnitAmx : nullptr;
}

// The tile kernels' unit runner when options and data call for them: float64
// accumulation, bf16 Q, K and V with contiguous channels, and AMX on this CPU (or the
// emulation asked for); else null, and every unit runs on the FMA kernels.
template <typename T>
TileRunner PickTiles(const Context<T>& cx, const FastOptions& options) {
  if (!std::is_same_v<T, double>) return nullptr;
  for (const RowSource* src : {&cx.q, &cx.k, &cx.v})
    if (src->dtype() != DType::kBF16 || !src->contiguous_channels()) return nullptr;
  return TileRunnerFor(options);
}

// Runs every unit; returns o [out_rows, h_q, dv] and raw lse [h_q, out_rows].
template <typename T>
Status RunJobs(const AttentionInputs& in, const AttentionProblem& p, const AttentionParams& params,
               std::vector<Job> jobs, int64_t out_rows, const FastOptions& options, T* o,
               std::vector<double>& lse) {
  Context<T> cx;
  cx.p = &p;
  cx.params = &params;
  cx.kern = &GetBlockKernels<T>(options.allow_avx512);
  const bool paged = p.layout == AttentionLayout::kPaged;
  AV_ASSIGN_OR_RETURN(cx.q, RowSource::Make(in.q, "q"));
  AV_ASSIGN_OR_RETURN(cx.k, RowSource::Make(paged ? in.k_cache : in.k, "k"));
  AV_ASSIGN_OR_RETURN(cx.v, RowSource::Make(paged ? in.v_cache : in.v, "v"));
  cx.v_in_k = cx.v.IsPrefixOf(cx.k);
  const TileRunner tiles = PickTiles<T>(cx, options);
  const int64_t g = p.h_q / p.h_kv;
  // The tile path's unit holds three bf16 pieces of Q beside a float64 O: half the rows
  // keep it in L2 (MLA: 128 rows).
  const int64_t tile_rows = TileRows(p.d, p.dv) / (tiles != nullptr ? 2 : 1);
  for (size_t j = 0; j < jobs.size(); ++j)
    AddUnits(int64_t(j), p.s_q[jobs[j].batch], p.h_kv, g, tile_rows, cx.units);
  cx.jobs = std::move(jobs);
  cx.out_rows = out_rows;
  lse.assign(p.h_q * out_rows, -std::numeric_limits<double>::infinity());
  cx.o = o;
  cx.lse = &lse;
  const int workers = ResolveThreadCount(options.threads);
  std::vector<Scratch<T>> scratch(static_cast<size_t>(workers));
  std::vector<TileScratch> tile_scratch(tiles != nullptr ? static_cast<size_t>(workers) : 0);
  ParallelFor(static_cast<int64_t>(cx.units.size()), workers, [&](int64_t unit, int worker) {
    const Unit& u = cx.units[static_cast<size_t>(unit)];
    if constexpr (std::is_same_v<T, double>) {
      if (tiles != nullptr && tiles(cx, u, tile_scratch[static_cast<size_t>(worker)])) return;
    }
    RunUnit(cx, u, scratch[static_cast<size_t>(worker)]);
  });
  return Status::Ok();
}

template <typename T>
Result<AttentionOutputs> AttentionFastT(const AttentionInputs& in, const AttentionParams& params,
                                        const FastOptions& options) {
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(in, params, ResolveLoad::kNothing));
  std::vector<Job> jobs;
  for (int64_t b = 0; b < p.batch; ++b) jobs.push_back({b, 0, p.s_k[b], p.q_begin[b], true});
  // O is written where it is returned: a copy had cost a second 64 MiB of fresh pages
  // on a causal prefill.
  const bool varlen = p.layout == AttentionLayout::kVarlen;
  AttentionOutputs out;
  out.o = Tensor::Zeros(sizeof(T) == 4 ? DType::kF32 : DType::kF64,
                        varlen ? Shape{p.total_q, p.h_q, p.dv}
                               : Shape{p.batch, in.q.dim(1), p.h_q, p.dv});
  std::vector<double> lse;
  AV_RETURN_IF_ERROR(RunJobs<T>(in, p, params, std::move(jobs), p.total_q, options,
                                reinterpret_cast<T*>(out.o.mutable_data()), lse));
  for (double& x : lse) x = ReportedLse(x, params.lse_log2, params.empty_lse);
  if (varlen) {
    out.lse = ToTensorOf(lse, {p.h_q, p.total_q});
    return out;
  }
  const int64_t s_q = in.q.dim(1);
  std::vector<double> lse_b(lse.size());
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.h_q; ++h)
      for (int64_t i = 0; i < s_q; ++i)
        lse_b[(b * p.h_q + h) * s_q + i] = lse[h * p.total_q + b * s_q + i];
  out.lse = ToTensorOf(lse_b, {p.batch, p.h_q, s_q});
  return out;
}

template <typename T>
Result<RangeOutputs> RangesFastT(const AttentionInputs& in, const AttentionParams& params,
                                 const std::vector<KeyRange>& ranges, const FastOptions& options) {
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(in, params, ResolveLoad::kNothing));
  AV_RETURN_IF_ERROR(CheckKeyRanges(p, ranges));
  const int64_t s_q = in.q.dim(1);
  std::vector<Job> jobs;
  for (size_t n = 0; n < ranges.size(); ++n) {
    const KeyRange& r = ranges[n];
    jobs.push_back({r.batch, r.begin, r.end, int64_t(n) * s_q, false});
  }
  const int64_t rows = int64_t(ranges.size()) * s_q;
  std::vector<T> o(static_cast<size_t>(rows * p.h_q * p.dv));
  std::vector<double> lse;
  AV_RETURN_IF_ERROR(RunJobs<T>(in, p, params, std::move(jobs), rows, options, o.data(), lse));
  RangeOutputs out;
  const int64_t per = s_q * p.h_q * p.dv;
  for (size_t n = 0; n < ranges.size(); ++n) {
    std::vector<T> on(o.begin() + int64_t(n) * per, o.begin() + int64_t(n + 1) * per);
    std::vector<double> ln(p.h_q * s_q);
    for (int64_t h = 0; h < p.h_q; ++h)
      for (int64_t i = 0; i < s_q; ++i) ln[h * s_q + i] = lse[h * rows + int64_t(n) * s_q + i];
    out.per_range.emplace_back(ToTensorOf(on, {s_q, p.h_q, p.dv}), ToTensorOf(ln, {p.h_q, s_q}));
  }
  return out;
}

}  // namespace

std::string DescribeAttentionKernel(const FastOptions& options) {
  const TileRunner tiles = TileRunnerFor(options);
  if (tiles == &fast_attention::RunTileUnitAmx) return "amx-bf16-tiles";
  if (tiles != nullptr) return "emulated-bf16-tiles";
  const char* isa = options.accumulate_f64 ? GetBlockKernels<double>(options.allow_avx512).isa
                                           : GetBlockKernels<float>(options.allow_avx512).isa;
  return std::string(isa) + (options.accumulate_f64 ? "-fma" : "-fma-f32");
}

Result<AttentionOutputs> ComputeAttentionFast(const AttentionInputs& inputs,
                                              const AttentionParams& params,
                                              const FastOptions& options) {
  if (options.accumulate_f64) return AttentionFastT<double>(inputs, params, options);
  return AttentionFastT<float>(inputs, params, options);
}

Result<RangeOutputs> ComputeAttentionOverRangesFast(const AttentionInputs& inputs,
                                                    const AttentionParams& params,
                                                    const std::vector<KeyRange>& ranges,
                                                    const FastOptions& options) {
  if (options.accumulate_f64) return RangesFastT<double>(inputs, params, ranges, options);
  return RangesFastT<float>(inputs, params, ranges, options);
}

Result<AttentionOutputs> ComputeMlaDecodeFast(const MlaDecodeInputs& inputs,
                                              const MlaDecodeParams& params,
                                              const FastOptions& options) {
  AttentionParams ap;
  AV_ASSIGN_OR_RETURN(AttentionInputs a, MlaDecodeAsAttention(inputs, params, &ap));
  return ComputeAttentionFast(a, ap, options);
}

}  // namespace av
