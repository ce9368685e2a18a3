// The attention oracle's loops. For each batch b, query row i and query head h:
//   1. visible keys: j < s_k[b] with KeyVisible (and inside the key range, for split-k);
//   2. score s_j = scale * <q, k_j>; softcap; ALiBi bias (flash-attention's attention_ref
//      order: scale, softcap, mask, bias);
//   3. softmax over the visible scores only; o = sum_j p_j v_j; sink rescales o.
// Keys that are not visible are never read, which is what makes NaN poison harmless.
//
// The loops run key-outer over a tile of query rows (all heads): each visible K (then V)
// row is converted to float64 once per tile and used by every row of the tile that sees
// it, instead of first copying the whole K and V caches to float64 (2.3 GB for a 64 x 4096
// MLA cache). Every dot product and every output sum still runs in the same order over
// the same values (channels for a score, keys in increasing j for an output), so results
// are bitwise those of the row-by-row loops. Tiles are independent and write disjoint
// rows, so they run on every hardware thread with results independent of the count.
#include "reference/attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/thread_pool.h"
#include "reference/attention_layout.h"
#include "reference/fast_source.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

// Scores kept per tile: at most about this many (query row, head, key) triples (32 MiB).
constexpr int64_t kTileScores = int64_t{4} << 20;

// A job: batch b's query rows over keys [key_begin, key_end), written to rows
// out_row0 + i of o [rows, h_q, dv] and of lse [h_q, rows] (natural log, no sink).
struct Job {
  int64_t b = 0, key_begin = 0, key_end = 0, out_row0 = 0;
  F64Array* o = nullptr;
  F64Array* lse = nullptr;
};

struct Tile {
  size_t job = 0;
  int64_t i0 = 0, i1 = 0;
};

struct Sources {
  RowSource k, v;
};

// Keys converted at a time: a block's K rows (16 x 576 doubles = 72 KiB at MLA's d) stay
// in L2 while every query row of the tile reads them, and an output row stays in L1
// across the block's keys.
constexpr int64_t kKeyBlockRows = 16;
// Heads whose scores are summed side by side (independent sums, so the compiler can use
// vector lanes; each sum keeps its own channel order).
constexpr int64_t kHeadLanes = 8;

// Rows r = (i - i0) * h_q + h of the tile [i0, i1) of job `jb`.
class TileRunner {
 public:
  TileRunner(const AttentionProblem& p, const AttentionParams& params, const Sources& src,
             const Job& jb, int64_t i0, int64_t i1)
      : p_(p), params_(params), src_(src), jb_(jb), i0_(i0), i1_(i1), b_(jb.b) {}

  void Run() {
    const int64_t s_k = p_.s_k[b_];
    const int64_t j_lo = std::max<int64_t>(jb_.key_begin, 0), j_hi = std::min(jb_.key_end, s_k);
    const int64_t rows = (i1_ - i0_) * p_.h_q;
    scores_.assign(static_cast<size_t>(rows), {});
    TransposeQueries();
    ForKeyBlocks(j_lo, j_hi, [&](const std::vector<int64_t>& keys) { Scores(keys); });
    sm_.resize(static_cast<size_t>(rows));
    for (int64_t t = 0; t < rows; ++t) {
      sm_[static_cast<size_t>(t)] = SoftmaxOfRow(scores_[static_cast<size_t>(t)]);
      const int64_t i = i0_ + t / p_.h_q, h = t % p_.h_q;
      double* o = jb_.o->MutableRow(jb_.out_row0 + i, h);
      for (int64_t c = 0; c < p_.dv; ++c) o[c] = 0;  // a row with no visible key stays 0
      (*jb_.lse)(h, jb_.out_row0 + i) = sm_[static_cast<size_t>(t)].lse;
    }
    next_.assign(static_cast<size_t>(rows), 0);
    ForKeyBlocks(j_lo, j_hi, [&](const std::vector<int64_t>& keys) { Outputs(keys); });
  }

 private:
  bool Sees(int64_t i, int64_t j) const {
    return KeyVisible(params_.mask, i, j, p_.s_q[b_], p_.s_k[b_]);
  }

  // Calls f(keys) for blocks of up to kKeyBlockRows keys of [j_lo, j_hi) that some row of
  // the tile sees, in increasing order.
  template <typename F>
  void ForKeyBlocks(int64_t j_lo, int64_t j_hi, F&& f) {
    std::vector<int64_t> keys;
    for (int64_t j = j_lo; j < j_hi; ++j) {
      bool any = false;
      for (int64_t i = i0_; i < i1_ && !any; ++i) any = Sees(i, j);
      if (!any) continue;
      keys.push_back(j);
      if (static_cast<int64_t>(keys.size()) == kKeyBlockRows) {
        f(keys);
        keys.clear();
      }
    }
    if (!keys.empty()) f(keys);
  }

  // qt_[((i - i0) * h_q + h0) * d + c * lanes + l] = q[i, h0 + l, c] for head blocks h0 of
  // up to kHeadLanes heads of one KV head.
  void TransposeQueries() {
    const int64_t d = p_.d, h_q = p_.h_q, g = h_q / p_.h_kv;
    qt_.assign(static_cast<size_t>((i1_ - i0_) * h_q * d), 0.0);
    for (int64_t i = i0_; i < i1_; ++i)
      for (int64_t h0 = 0, lanes = 0; h0 < h_q; h0 += lanes) {
        lanes = Lanes(h0, g);
        double* dst = &qt_[static_cast<size_t>(((i - i0_) * h_q + h0) * d)];
        for (int64_t l = 0; l < lanes; ++l) {
          const double* q = p_.q.Row(p_.q_begin[b_] + i, h0 + l);
          for (int64_t c = 0; c < d; ++c) dst[c * lanes + l] = q[c];
        }
      }
  }

  // Heads in the block starting at h0: up to kHeadLanes, never past h0's KV head group.
  static int64_t Lanes(int64_t h0, int64_t g) { return std::min(kHeadLanes, g - h0 % g); }

  void ReadRows(const RowSource& from, const std::vector<int64_t>& keys, int64_t n) {
    rows_.resize(keys.size() * static_cast<size_t>(p_.h_kv * n));
    for (size_t k = 0; k < keys.size(); ++k)
      for (int64_t hk = 0; hk < p_.h_kv; ++hk)
        from.Read<double>(p_.key_row[b_][keys[k]], hk, n, 1.0,
                          &rows_[(k * static_cast<size_t>(p_.h_kv) + hk) * n]);
  }

  // s = scale * <q, k>; softcap; ALiBi — per (row, key) in the oracle's order.
  void Scores(const std::vector<int64_t>& keys) {
    const int64_t d = p_.d, h_q = p_.h_q, g = h_q / p_.h_kv, s_q = p_.s_q[b_], s_k = p_.s_k[b_];
    ReadRows(src_.k, keys, d);
    for (int64_t i = i0_; i < i1_; ++i)
      for (int64_t h0 = 0, lanes = 0; h0 < h_q; h0 += lanes) {
        lanes = Lanes(h0, g);
        const int64_t hk = p_.KvHead(h0);
        const double* qt = &qt_[static_cast<size_t>(((i - i0_) * h_q + h0) * d)];
        for (size_t n = 0; n < keys.size(); ++n) {
          const int64_t j = keys[n];
          if (!Sees(i, j)) continue;
          const double* k = &rows_[(n * static_cast<size_t>(p_.h_kv) + hk) * d];
          double acc[kHeadLanes] = {};
          if (lanes == kHeadLanes) {
            for (int64_t c = 0; c < d; ++c)
              for (int64_t l = 0; l < kHeadLanes; ++l) acc[l] += qt[c * kHeadLanes + l] * k[c];
          } else {
            for (int64_t c = 0; c < d; ++c)
              for (int64_t l = 0; l < lanes; ++l) acc[l] += qt[c * lanes + l] * k[c];
          }
          for (int64_t l = 0; l < lanes; ++l) {
            const int64_t h = h0 + l;
            double s = acc[l] * p_.scale;
            if (params_.softcap > 0) s = params_.softcap * std::tanh(s / params_.softcap);
            if (!p_.alibi.data.empty()) s += AlibiBias(p_.alibi(b_, h), i, j, s_q, s_k);
            scores_[static_cast<size_t>((i - i0_) * h_q + h)].push_back(s);
          }
        }
      }
  }

  // o += p_j v_j for the block's keys, in increasing j: per 8 channels the partial output
  // stays in registers across the block's keys (the same additions in the same order as
  // one key at a time; reading and writing o per key made this 58% of the oracle's time).
  void Outputs(const std::vector<int64_t>& keys) {
    const int64_t dv = p_.dv, h_q = p_.h_q;
    ReadRows(src_.v, keys, dv);
    std::vector<double> w;
    std::vector<const double*> v;
    for (int64_t i = i0_; i < i1_; ++i)
      for (int64_t h = 0; h < h_q; ++h) {
        const size_t t = static_cast<size_t>((i - i0_) * h_q + h);
        const int64_t hk = p_.KvHead(h);
        w.clear();
        v.clear();
        for (size_t n = 0; n < keys.size(); ++n) {
          if (!Sees(i, keys[n])) continue;
          w.push_back(sm_[t].p[next_[t]++]);
          v.push_back(&rows_[(n * static_cast<size_t>(p_.h_kv) + hk) * dv]);
        }
        double* o = jb_.o->MutableRow(jb_.out_row0 + i, h);
        int64_t c0 = 0;
        for (; c0 + 8 <= dv; c0 += 8) {
          double acc[8];
          for (int l = 0; l < 8; ++l) acc[l] = o[c0 + l];
          for (size_t n = 0; n < w.size(); ++n)
            for (int l = 0; l < 8; ++l) acc[l] += w[n] * v[n][c0 + l];
          for (int l = 0; l < 8; ++l) o[c0 + l] = acc[l];
        }
        for (; c0 < dv; ++c0)
          for (size_t n = 0; n < w.size(); ++n) o[c0] += w[n] * v[n][c0];
      }
  }

  const AttentionProblem& p_;
  const AttentionParams& params_;
  const Sources& src_;
  const Job& jb_;
  const int64_t i0_, i1_, b_;
  std::vector<std::vector<double>> scores_;
  std::vector<RowSoftmax> sm_;
  std::vector<size_t> next_;
  std::vector<double> qt_, rows_;
};

// Runs every job in tiles of query rows that keep a tile's scores near kTileScores.
Status RunJobs(const AttentionInputs& in, const AttentionProblem& p, const AttentionParams& params,
               const std::vector<Job>& jobs) {
  const bool paged = p.layout == AttentionLayout::kPaged;
  Sources src;
  AV_ASSIGN_OR_RETURN(src.k, RowSource::Make(paged ? in.k_cache : in.k, "k"));
  AV_ASSIGN_OR_RETURN(src.v, RowSource::Make(paged ? in.v_cache : in.v, "v"));
  std::vector<Tile> tiles;
  for (size_t n = 0; n < jobs.size(); ++n) {
    const Job& jb = jobs[n];
    const int64_t keys = std::max<int64_t>(1, jb.key_end - jb.key_begin);
    const int64_t step = std::max<int64_t>(1, kTileScores / (keys * std::max<int64_t>(1, p.h_q)));
    for (int64_t i0 = 0; i0 < p.s_q[jb.b]; i0 += step)
      tiles.push_back({n, i0, std::min(p.s_q[jb.b], i0 + step)});
  }
  ParallelFor(static_cast<int64_t>(tiles.size()), ResolveThreadCount(0), [&](int64_t unit, int) {
    const Tile& t = tiles[static_cast<size_t>(unit)];
    TileRunner(p, params, src, jobs[t.job], t.i0, t.i1).Run();
  });
  return Status::Ok();
}

}  // namespace

Result<AttentionOutputs> ComputeAttention(const AttentionInputs& inputs,
                                          const AttentionParams& params) {
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(inputs, params, ResolveLoad::kQueries));
  F64Array o = F64Array::Zeros({p.total_q, p.h_q, p.dv});
  // lse in packed form [h_q, total_q]; batched layouts are rearranged below.
  F64Array lse = F64Array::Zeros({p.h_q, p.total_q});
  std::vector<Job> jobs;
  for (int64_t b = 0; b < p.batch; ++b) jobs.push_back({b, 0, p.s_k[b], p.q_begin[b], &o, &lse});
  AV_RETURN_IF_ERROR(RunJobs(inputs, p, params, jobs));
  for (int64_t row = 0; row < p.total_q; ++row) {
    for (int64_t h = 0; h < p.h_q; ++h) {
      const double l = lse(h, row);
      if (!p.sink.empty()) {
        ApplySink(p.sink[h], l, {o.MutableRow(row, h), static_cast<size_t>(p.dv)});
      }
      lse(h, row) = ReportedLse(l, params.lse_log2, params.empty_lse);
    }
  }
  AttentionOutputs out;
  if (p.layout == AttentionLayout::kVarlen) {
    out.o = o.ToTensor();
    out.lse = lse.ToTensor();
    return out;
  }
  const int64_t s_q = p.batch > 0 ? p.s_q[0] : inputs.q.dim(1);
  out.o = o.Reshaped({p.batch, s_q, p.h_q, p.dv}).ToTensor();
  F64Array lse_b = F64Array::Zeros({p.batch, p.h_q, s_q});
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.h_q; ++h)
      for (int64_t i = 0; i < s_q; ++i) lse_b(b, h, i) = lse(h, b * s_q + i);
  out.lse = lse_b.ToTensor();
  return out;
}

Result<RangeOutputs> ComputeAttentionOverRanges(const AttentionInputs& inputs,
                                                const AttentionParams& params,
                                                const std::vector<KeyRange>& ranges) {
  AV_ASSIGN_OR_RETURN(AttentionProblem p, ResolveAttention(inputs, params, ResolveLoad::kQueries));
  AV_RETURN_IF_ERROR(CheckKeyRanges(p, ranges));
  const int64_t s_q = inputs.q.dim(1);
  std::vector<F64Array> o(ranges.size()), lse(ranges.size());
  std::vector<Job> jobs;
  for (size_t n = 0; n < ranges.size(); ++n) {
    o[n] = F64Array::Zeros({s_q, p.h_q, p.dv});
    lse[n] = F64Array::Zeros({p.h_q, s_q});
    jobs.push_back({ranges[n].batch, ranges[n].begin, ranges[n].end, 0, &o[n], &lse[n]});
  }
  AV_RETURN_IF_ERROR(RunJobs(inputs, p, params, jobs));
  RangeOutputs out;
  for (size_t n = 0; n < ranges.size(); ++n)
    out.per_range.emplace_back(o[n].ToTensor(), lse[n].ToTensor());
  return out;
}

}  // namespace av
