// The pieces of the fast attention path that its kernels share (fast_attention.cc, the
// FMA block kernels; fast_attention_tiles_impl.h, the bf16 tile kernels): the work units,
// a unit's key intervals, its scratch and the write-out of its rows. Internal to the fast
// path; every function is pure or writes only the rows of the unit it is given.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "reference/attention_layout.h"
#include "reference/attention_mask.h"
#include "reference/fast_kernels.h"
#include "reference/fast_source.h"

namespace av::fast_attention {

// A row stride of at least n elements that is an odd number of 64-byte lines, so the rows
// of a block spread over all of L1's sets.
template <typename T>
int64_t OddLineStride(int64_t n) {
  constexpr int64_t kLine = 64 / int64_t(sizeof(T));
  const int64_t lines = (n + kLine - 1) / kLine;
  return (lines % 2 == 0 ? lines + 1 : lines) * kLine;
}

struct Job {
  int64_t batch = 0, key_begin = 0, key_end = 0;
  int64_t out_row0 = 0;  // first output row of the job
  bool apply_sink = true;
};

struct Unit {
  int64_t job = 0, kv_head = 0, i0 = 0, i1 = 0;
};

template <typename T>
struct Scratch {
  std::vector<T> q, kt, v, s, o, alpha, m, l, row;
  std::vector<int64_t> lo, hi;
};

template <typename T>
struct Context {
  const AttentionProblem* p;
  const AttentionParams* params;
  const BlockKernels<T>* kern;
  RowSource q, k, v;
  bool v_in_k = false;  // v.IsPrefixOf(k)
  std::vector<Job> jobs;
  std::vector<Unit> units;
  int64_t out_rows = 0;
  T* o;                      // [out_rows, h_q, dv]
  std::vector<double>* lse;  // [h_q, out_rows], natural log
};

// The visible key interval [lo, hi) of each query row of the unit (clipped so that
// hi >= lo) into sc.lo / sc.hi, and the union of the non-empty ones as [*jlo, *jhi).
template <typename T>
void KeyIntervals(const MaskSpec& mask, const Job& job, const Unit& u, int64_t s_q, int64_t s_k,
                  Scratch<T>& sc, int64_t* jlo, int64_t* jhi) {
  const int64_t tq = u.i1 - u.i0;
  sc.lo.resize(tq);
  sc.hi.resize(tq);
  const int64_t right = mask.causal ? 0 : mask.window_right;
  const int64_t left = mask.window_left;
  *jlo = job.key_end;
  *jhi = job.key_begin;
  for (int64_t t = 0; t < tq; ++t) {
    const int64_t pos = AlignedPosition(u.i0 + t, s_q, s_k);
    int64_t lo = job.key_begin, hi = job.key_end;
    if (left >= 0) lo = std::max(lo, pos - left);
    if (right >= 0) hi = std::min(hi, pos + right + 1);
    hi = std::max(hi, lo);
    sc.lo[t] = lo;
    sc.hi[t] = hi;
    if (hi > lo) *jlo = std::min(*jlo, lo), *jhi = std::max(*jhi, hi);
  }
}

// The unit's tile-relative rows [*ta, *tb) whose key interval meets [j0, j0 + nb) (one
// contiguous range: the intervals' ends never decrease); false when no row does.
template <typename T>
bool RowsSeeingBlock(const Scratch<T>& sc, int64_t tq, int64_t j0, int64_t nb, int64_t* ta,
                     int64_t* tb) {
  *ta = 0;
  *tb = tq;
  while (*ta < tq && sc.hi[*ta] <= j0) ++*ta;
  while (*tb > *ta && sc.lo[*tb - 1] >= j0 + nb) --*tb;
  return *ta < *tb;
}

// Row i's (head h's) scores against the block of keys j0 .. j0 + width - 1 (the first nb
// real) as the oracle takes them to the softmax: softcap, then ALiBi, then -inf for the
// keys outside the row's interval [lo, hi).
template <typename T>
void PrepareScores(const AttentionParams& params, const AttentionProblem& p, int64_t b,
                   int64_t h, int64_t i, int64_t s_q, int64_t s_k, int64_t j0, int64_t nb,
                   int64_t width, int64_t lo, int64_t hi, T* srow) {
  if (params.softcap > 0) {
    const T cap = static_cast<T>(params.softcap);
    for (int64_t n = 0; n < nb; ++n) srow[n] = cap * std::tanh(srow[n] / cap);
  }
  if (!p.alibi.data.empty()) {
    const double slope = p.alibi(b, h);
    for (int64_t n = 0; n < nb; ++n)
      srow[n] += static_cast<T>(AlibiBias(slope, i, j0 + n, s_q, s_k));
  }
  if (lo > j0 || hi < j0 + width) {
    for (int64_t n = 0; n < width; ++n)
      if (j0 + n < lo || j0 + n >= hi) srow[n] = -std::numeric_limits<T>::infinity();
  }
}

// Normalises the unit's rows, applies the sink and writes o and the natural-log lse.
template <typename T>
void WriteRows(const Context<T>& cx, const Unit& u, const Scratch<T>& sc, int64_t dvp) {
  const AttentionProblem& p = *cx.p;
  const Job& job = cx.jobs[static_cast<size_t>(u.job)];
  const int64_t g = p.h_q / p.h_kv, dv = p.dv, M = (u.i1 - u.i0) * g;
  for (int64_t r = 0; r < M; ++r) {
    const int64_t out_row = job.out_row0 + u.i0 + r / g, h = u.kv_head * g + r % g;
    T* out = cx.o + (out_row * p.h_q + h) * dv;
    double lse = -std::numeric_limits<double>::infinity();
    if (sc.l[r] > 0) {
      lse = static_cast<double>(sc.m[r]) + std::log(static_cast<double>(sc.l[r]));
      T factor = T(1) / sc.l[r];
      if (job.apply_sink && !p.sink.empty()) {
        factor *= static_cast<T>(1.0 / (1.0 + std::exp(p.sink[h] - lse)));
      }
      for (int64_t c = 0; c < dv; ++c) out[c] = sc.o[r * dvp + c] * factor;
    } else {
      std::fill_n(out, dv, T(0));
    }
    (*cx.lse)[h * cx.out_rows + out_row] = lse;
  }
}

}  // namespace av::fast_attention
