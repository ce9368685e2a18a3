// The float64 fast attention's bf16 tile kernels: one work unit (fast_attention_units.h)
// computed with bf16 tile products (TDPBF16PS, tile_registers.h) whose float32
// accumulators are kept exact, with float64 statistics and output. Included by
// fast_attention_tiles_amx.cc (the AMX instructions) and fast_attention_tiles_emulated.cc
// (their portable emulation), which instantiate RunTileUnit with their tile policy.
//
// Why it is accurate (doc/numerics.md, "bf16 tiles on AMX"): a vector x of bf16 values, scaled
// by 2^-E so that its largest magnitude lies in [1, 2) (exact), is split into bf16 pieces
//   hi  = x rounded to a multiple of 2^-7    (|hi| <= 2: at most 8 significant bits)
//   mid = (x - hi) rounded to 2^-15         (|mid| <= 2^-8)
//   lo  = x - hi - mid                       (|lo| <= 2^-16)
//   low = x - hi = mid + lo,  all = x
// each exactly a bf16 when x is one. For a dot product x . y (x a Q or P row, y a key or
// a V column, both split so):
//   L0 = hi_x . hi_y                          multiples of 2^-14, each |term| <= 2^16 of them
//   L1 = hi_x . mid_y + mid_x . hi_y          multiples of 2^-22, each <= 2^15 of them
//   L2 = hi_x . lo_y + mid_x . low_y + lo_x . all_y     (|term| <= 2^-15)
// and L0 + L1 + L2 = x . y exactly. Over at most 256 channels every partial sum of L0 and
// of L1 is an integer number of quanta below 2^24, so their float32 accumulation is
// exact whatever the order; only L2, 2^-15 of the magnitude, is rounded. The three are
// summed in float64 and scaled back by 2^(E_x + E_y).
//
// P, the softmax weights, comes from float64: scaled by its row's largest weight in the
// block and split into four pieces (grids 2^-7, 2^-15, 2^-23, then the rest rounded to
// bf16), it carries 2^-33 of that largest weight.
//
// A unit whose Q, K or V holds a non-finite value, or a row or column whose largest
// magnitude is outside [2^-100, 2^100] (its scale would not be a normal float), is left to
// the float64 FMA kernels: RunTileUnit returns false before writing any output.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference/fast_attention_tile_programs.h"
#include "reference/fast_attention_tile_steps.h"
#include "reference/fast_attention_tiles.h"
#include "reference/tile_registers.h"
#include "reference/tile_split.h"

namespace av::fast_attention {
// Internal linkage: each build (one target per translation unit) has its own copy, so no
// inline function compiled for AMX and AVX-512 can stand in for the portable one.
namespace {

// One unit on the tiles: the same visible-key intervals, masks, online softmax and
// write-out as the FMA path's RunUnit (fast_attention.cc). Returns false, having written
// nothing, when the unit's data is not for the tiles (see the top of this file).
template <class X, class Steps = ScalarTileSteps>
bool RunTileUnit(const Context<double>& cx, const Unit& u, TileScratch& ts) {
  constexpr int64_t NB = kTileKeys;
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  const AttentionProblem& p = *cx.p;
  const AttentionParams& params = *cx.params;
  const BlockKernels<double>& kern = *cx.kern;
  const Job& job = cx.jobs[static_cast<size_t>(u.job)];
  Scratch<double>& sc = ts.sc;
  const int64_t b = job.batch, s_q = p.s_q[b], s_k = p.s_k[b];
  const int64_t g = p.h_q / p.h_kv, tq = u.i1 - u.i0;
  TileShape t;
  t.d = p.d;
  t.dq = tiles::RoundUp(t.d, kTileStep);
  t.steps = t.dq / kTileStep;
  t.dv = p.dv;
  t.dvq = tiles::RoundUp(t.dv, 2 * 16);
  t.rows = tq * g;
  t.mq = tiles::RoundUp(t.rows, 32);
  const int64_t M = t.rows;

  int64_t jlo = 0, jhi = 0;
  KeyIntervals(params.mask, job, u, s_q, s_k, sc, &jlo, &jhi);

  const bool v_in_k = cx.v_in_k && t.dv <= t.d;
  ts.keys.resize(static_cast<size_t>(std::max(kTileKeys, M)));
  for (int64_t r = 0; r < M; ++r) {
    ts.keys[r] = reinterpret_cast<const uint16_t*>(
        cx.q.ContiguousRow(p.q_begin[b] + u.i0 + r / g, u.kv_head * g + r % g));
  }
  ts.q.resize(kQueryPieces * t.mq * t.steps * 16);
  ts.q_factor.resize(t.mq);
  if (!Steps::SplitQueries(ts.keys.data(), p.scale, t, ts)) return false;
  ts.values.resize(kTileKeys);
  ts.k.resize(kTilePieces * kScoreKeys * t.dq);
  ts.k_factor.resize(NB);
  ts.v.resize(kTilePieces * 2 * kKeyHalves * 256);
  ts.v_factor.resize(t.dvq);
  ts.p.assign(kWeightPieces * t.mq * NB, 0);
  ts.p_factor.assign(t.mq, 0.0);
  ts.part.resize((2 * ((t.steps + kExactSteps - 1) / kExactSteps) + 1) * 512);
  sc.s.assign(t.mq * NB, 0.0);
  sc.o.assign(t.mq * t.dvq, 0.0);
  sc.alpha.assign(t.mq, 1.0);
  sc.m.assign(M, kNegInf);
  sc.l.assign(M, 0.0);

  X::Configure();
  bool ok = true;
  for (int64_t j0 = jlo; j0 < jhi && ok; j0 += NB) {
    const int64_t nb = std::min(NB, jhi - j0);
    int64_t ta = 0, tb = 0;
    if (!RowsSeeingBlock(sc, tq, j0, nb, &ta, &tb)) continue;
    for (int64_t n = 0; n < NB; ++n) {
      const uint16_t *k = nullptr, *v = nullptr;
      if (n < nb) {
        const int64_t row = p.key_row[b][j0 + n];
        k = reinterpret_cast<const uint16_t*>(cx.k.ContiguousRow(row, u.kv_head));
        v = v_in_k ? k : reinterpret_cast<const uint16_t*>(cx.v.ContiguousRow(row, u.kv_head));
        if (j0 + NB + n < jhi) {
          const int64_t next = p.key_row[b][j0 + NB + n];
          cx.k.Prefetch(next, u.kv_head, t.d);
          if (!v_in_k) cx.v.Prefetch(next, u.kv_head, t.dv);
        }
      }
      ts.keys[n] = k;
      ts.values[n] = v;
    }
    // Rows [ra, rb) see the block; the strips (of 16 rows) and strip pairs that hold them.
    const int64_t ra = ta * g, rb = tb * g;
    const int64_t sa = ra / 16 * 16, sb = tiles::RoundUp(rb, 16);
    // S = Q K^T by key groups of 16, each split just before the tiles read it (groups
    // past the block's keys are skipped: their score columns are masked below).
    for (int64_t n0 = 0; n0 < nb && ok; n0 += kScoreKeys) {
      if (!Steps::SplitKeys(ts.keys.data(), n0, t, ts)) {
        ok = false;
        break;
      }
      for (int64_t r0 = ra / 32 * 32; r0 < sb; r0 += 32) {
        const int parts = TilePrograms<X>::Scores(t, ts, r0 / 16, ts.part.data());
        Steps::FlushScores(ts.part.data(), parts, r0, n0, ts);
      }
    }
    if (!ok) break;
    for (int64_t r = sa; r < sb; ++r) sc.alpha[r] = 1.0;
    for (int64_t tt = ta; tt < tb; ++tt) {
      for (int64_t hh = 0; hh < g; ++hh) {
        const int64_t r = tt * g + hh;
        double* srow = &sc.s[r * NB];
        PrepareScores(params, p, b, u.kv_head * g + hh, u.i0 + tt, s_q, s_k, j0, nb, NB,
                      sc.lo[tt], sc.hi[tt], srow);
        sc.alpha[r] = Steps::SoftmaxSplit(kern, srow, &sc.m[r], &sc.l[r], r, t, ts);
      }
    }
    // Rows of the strips that do not see the block: no weight.
    for (int64_t r = sa; r < sb; ++r)
      if (r < ra || r >= rb) ZeroWeights(r, t, ts);
    // O = alpha O + P V by channel pairs, each split just before the tiles read it: a
    // pair's V pieces (40 KiB) stay in L1 while every strip passes over them.
    for (int64_t pair = 0; pair < t.dvq / 32 && ok; ++pair) {
      if (!Steps::SplitValues(ts.values.data(), pair, t, ts)) {
        ok = false;
        break;
      }
      for (int64_t r0 = sa; r0 < sb; r0 += 16) {
        TilePrograms<X>::Values(t, ts, r0, ts.part.data());
        Steps::UpdateOutput(ts.part.data(), r0, M, pair * 32, t.dvq, ts);
      }
    }
  }
  X::Release();
  if (!ok) return false;
  WriteRows(cx, u, sc, t.dvq);
  return true;
}

}  // namespace
}  // namespace av::fast_attention
