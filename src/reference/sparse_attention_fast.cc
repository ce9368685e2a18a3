// One unit = (query row i, KV head hk): rows r = the g = h_q / h_kv query heads of hk, all
// reading the same index list indices[i, hk, :]. The valid entries (0 <= j < s_kv, within
// topk_length; duplicates kept) are visited in blocks of 64: K rows converted into scratch
// and packed channel-major, V rows gathered with a padded stride, then the attention
// kernels: S = (scale q) kᵀ, online softmax, O = alpha O + P V.
#include "reference/sparse_attention_fast.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/thread_pool.h"
#include "reference/fast_kernels.h"
#include "reference/fast_source.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

constexpr int64_t NB = kKeyBlock<float>;

struct Scratch {
  std::vector<float> q, kt, v, s, o, alpha, m, l, row, max_s;
  std::vector<int64_t> keys;
};

Tensor F32Tensor(const std::vector<float>& data, Shape shape) {
  Tensor t = Tensor::Zeros(DType::kF32, std::move(shape));
  std::memcpy(t.mutable_data(), data.data(), data.size() * sizeof(float));
  return t;
}

Tensor F64Tensor(const std::vector<double>& data, Shape shape) {
  Tensor t = Tensor::Zeros(DType::kF64, std::move(shape));
  std::memcpy(t.mutable_data(), data.data(), data.size() * sizeof(double));
  return t;
}

}  // namespace

Result<SparseAttentionOutputs> ComputeSparseAttentionFast(const SparseAttentionInputs& in,
                                                          const SparseAttentionParams& params,
                                                          const FastOptions& options) {
  if (options.accumulate_f64) {
    return Unsupported("sparse_attention's fast path accumulates in float32 only");
  }
  AV_ASSIGN_OR_RETURN(SparseProblem p, ResolveSparseAttention(in, params));
  AV_ASSIGN_OR_RETURN(RowSource qs, RowSource::Make(in.q, "q"));
  AV_ASSIGN_OR_RETURN(RowSource kvs, RowSource::Make(in.kv, "kv"));
  const BlockKernels<float>& kern = GetBlockKernels<float>(options.allow_avx512);
  const int64_t g = p.h_q / p.h_kv, d = p.d, dv = p.dv, dvp = (dv + NB - 1) / NB * NB;
  // V rows padded by one cache line, as in fast_attention.cc (2 KiB rows share L1 sets).
  const int64_t ldv = dvp + 16;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> o(size_t(p.s_q * p.h_q * dv), 0.0f);
  std::vector<double> lse(size_t(p.s_q * p.h_q)), max_logits(size_t(p.s_q * p.h_q));
  const int workers = ResolveThreadCount(options.threads);
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  ParallelFor(p.s_q * p.h_kv, workers, [&](int64_t unit, int worker) {
    Scratch& sc = scratch[static_cast<size_t>(worker)];
    const int64_t i = unit / p.h_kv, hk = unit % p.h_kv;
    sc.keys.clear();
    const int64_t* list = &p.indices[size_t((i * p.h_kv + hk) * p.topk)];
    for (int64_t t = 0; t < p.listed[size_t(i)]; ++t)
      if (list[t] >= 0 && list[t] < p.s_kv) sc.keys.push_back(list[t]);
    const int64_t n_keys = int64_t(sc.keys.size());
    sc.q.resize(g * d);
    sc.kt.resize(d * NB);
    sc.v.assign(NB * ldv, 0.0f);
    sc.s.resize(g * NB);
    sc.o.assign(g * dvp, 0.0f);
    sc.alpha.resize(g);
    sc.m.assign(g, kNegInf);
    sc.l.assign(g, 0.0f);
    sc.max_s.assign(g, kNegInf);
    sc.row.resize(NB * d);
    for (int64_t r = 0; r < g; ++r) {
      qs.Read<float>(i, hk * g + r, d, static_cast<float>(p.scale), &sc.q[r * d]);
    }
    for (int64_t j0 = 0; j0 < n_keys; j0 += NB) {
      const int64_t nb = std::min(NB, n_keys - j0);
      for (int64_t n = 0; n < NB; ++n) {
        if (n < nb) {
          kvs.Read<float>(sc.keys[size_t(j0 + n)], hk, d, 1.0f, &sc.row[n * d]);
          std::copy_n(&sc.row[n * d], dv, &sc.v[n * ldv]);  // V = the first dv channels of K
        } else {
          std::fill_n(&sc.row[n * d], d, 0.0f);
          std::fill_n(&sc.v[n * ldv], dv, 0.0f);
        }
        if (n % 16 == 15) kern.pack_kt(&sc.row[(n - 15) * d], d, d, 16, sc.kt.data(), n - 15);
      }
      kern.scores(sc.q.data(), d, g, d, sc.kt.data(), sc.s.data());
      for (int64_t r = 0; r < g; ++r) {
        float* srow = &sc.s[r * NB];
        for (int64_t n = 0; n < nb; ++n) sc.max_s[r] = std::max(sc.max_s[r], srow[n]);
        for (int64_t n = nb; n < NB; ++n) srow[n] = kNegInf;
        sc.alpha[r] = kern.softmax_step(srow, NB, &sc.m[r], &sc.l[r]);
      }
      kern.accumulate(sc.s.data(), sc.alpha.data(), g, sc.v.data(), ldv, dvp, sc.o.data(), dvp);
    }
    for (int64_t r = 0; r < g; ++r) {
      const int64_t h = hk * g + r;
      float* out = &o[size_t((i * p.h_q + h) * dv)];
      double row_lse = -std::numeric_limits<double>::infinity();
      if (sc.l[r] > 0) {  // else no valid index: o stays 0
        row_lse = double(sc.m[r]) + std::log(double(sc.l[r]));
        float factor = 1.0f / sc.l[r];
        if (!p.sink.empty())
          factor *= static_cast<float>(1.0 / (1.0 + std::exp(p.sink[size_t(h)] - row_lse)));
        for (int64_t c = 0; c < dv; ++c) out[c] = sc.o[r * dvp + c] * factor;
      }
      lse[size_t(i * p.h_q + h)] = ReportedLse(row_lse, params.lse_log2, params.empty_lse);
      max_logits[size_t(i * p.h_q + h)] = sc.max_s[r];
    }
  });
  return SparseAttentionOutputs{F32Tensor(o, {p.s_q, p.h_q, dv}), F64Tensor(lse, {p.s_q, p.h_q}),
                                F64Tensor(max_logits, {p.s_q, p.h_q})};
}

}  // namespace av
