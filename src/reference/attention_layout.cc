#include "reference/attention_layout.h"

#include <cmath>
#include <string>

namespace av {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// cu_seqlens: [b + 1], starts at 0, non-decreasing, ends at `total`.
Result<std::vector<int64_t>> LoadCuSeqlens(const Tensor& t, const std::string& what,
                                           int64_t total) {
  if (t.ndim() != 1 || t.dim(0) < 1) {
    return InvalidInput(what + ": expected shape [b + 1], got " + ShapeToString(t.shape()));
  }
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> cu, LoadIndices(t, what));
  if (cu[0] != 0) return InvalidInput(what + "[0] must be 0, got " + Str(cu[0]));
  for (size_t i = 1; i < cu.size(); ++i) {
    if (cu[i] < cu[i - 1]) {
      return InvalidInput(what + " must be non-decreasing: [" + Str(i - 1) +
                          "] = " + Str(cu[i - 1]) + " > [" + Str(i) + "] = " + Str(cu[i]));
    }
  }
  if (cu.back() != total) {
    return InvalidInput(what + "[b] = " + Str(cu.back()) + " but the packed tensor has " +
                        Str(total) + " rows");
  }
  return cu;
}

Status CheckHeads(int64_t h_q, int64_t h_kv) {
  if (h_kv <= 0 || h_q <= 0 || h_q % h_kv != 0) {
    return InvalidInput("query heads (" + Str(h_q) + ") must be a positive multiple of kv heads (" +
                        Str(h_kv) + ") for GQA/MQA");
  }
  return Status::Ok();
}

// Batched and paged q: [b, s_q, h_q, d] packed as [b * s_q, h_q, d].
Status LoadBatchedQ(const Tensor& q, AttentionProblem& p, bool load_q) {
  AV_RETURN_IF_ERROR(ExpectRank(q, 4, "q", "[b, s_q, h_q, d]"));
  p.batch = q.dim(0);
  p.h_q = q.dim(2);
  p.d = q.dim(3);
  p.total_q = q.dim(0) * q.dim(1);
  if (load_q) p.q = LoadF64(q).Reshaped({p.total_q, p.h_q, p.d});
  for (int64_t b = 0; b < p.batch; ++b) {
    p.q_begin.push_back(b * q.dim(1));
    p.s_q.push_back(q.dim(1));
  }
  return Status::Ok();
}

// Paged KV: q batched, keys gathered through block_table from k_cache/v_cache, seqlens_k
// required. Fills everything ResolveAttention's layout part sets.
Status ResolvePaged(const AttentionInputs& in, bool load_q, bool load_values, AttentionProblem& p) {
  p.layout = AttentionLayout::kPaged;
  if (!in.k_cache.defined() || !in.v_cache.defined() || !in.block_table.defined() ||
      !in.seqlens_k.defined()) {
    return InvalidInput("paged KV needs k_cache, v_cache, block_table and seqlens_k");
  }
  AV_RETURN_IF_ERROR(LoadBatchedQ(in.q, p, load_q));
  const Tensor& kc = in.k_cache;
  const Tensor& vc = in.v_cache;
  AV_RETURN_IF_ERROR(ExpectRank(kc, 4, "k_cache", "[blocks, page, h_kv, d]"));
  AV_RETURN_IF_ERROR(ExpectRank(vc, 4, "v_cache", "[blocks, page, h_kv, dv]"));
  AV_RETURN_IF_ERROR(ExpectFloating(kc, "k_cache"));
  AV_RETURN_IF_ERROR(ExpectFloating(vc, "v_cache"));
  AV_RETURN_IF_ERROR(ExpectDim(kc, 3, p.d, "k_cache", "d"));
  AV_RETURN_IF_ERROR(ExpectDim(vc, 0, kc.dim(0), "v_cache", "blocks"));
  AV_RETURN_IF_ERROR(ExpectDim(vc, 1, kc.dim(1), "v_cache", "page"));
  AV_RETURN_IF_ERROR(ExpectDim(vc, 2, kc.dim(2), "v_cache", "h_kv"));
  const int64_t blocks = kc.dim(0), page = kc.dim(1);
  if (page <= 0) return InvalidInput("k_cache: page size must be positive");
  p.h_kv = kc.dim(2);
  p.dv = vc.dim(3);
  if (load_values) {
    p.k = LoadF64(kc).Reshaped({blocks * page, p.h_kv, p.d});
    p.v = LoadF64(vc).Reshaped({blocks * page, p.h_kv, p.dv});
  }
  const Tensor& bt = in.block_table;
  AV_RETURN_IF_ERROR(ExpectRank(bt, 2, "block_table", "[b, max_blocks]"));
  AV_RETURN_IF_ERROR(ExpectDim(bt, 0, p.batch, "block_table", "b"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> table, LoadIndices(bt, "block_table"));
  const int64_t max_blocks = bt.dim(1);
  const int64_t layout_s_k = max_blocks * page;  // per batch, before seqlens_k narrows it
  AV_RETURN_IF_ERROR(CheckHeads(p.h_q, p.h_kv));
  // seqlens_k (required) and key rows.
  AV_RETURN_IF_ERROR(ExpectRank(in.seqlens_k, 1, "seqlens_k", "[b]"));
  AV_RETURN_IF_ERROR(ExpectDim(in.seqlens_k, 0, p.batch, "seqlens_k", "b"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> lens, LoadIndices(in.seqlens_k, "seqlens_k"));
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t len = lens[static_cast<size_t>(b)];
    if (len < 0 || len > layout_s_k) {
      return InvalidInput("seqlens_k[" + Str(b) + "] = " + Str(len) + " is outside [0, " +
                          Str(layout_s_k) + "] (max_blocks * page)");
    }
    // Only entries that cover used keys must name a block; the rest may hold anything
    // (frameworks pad block tables with -1 or stale ids).
    std::vector<int64_t> rows;
    for (int64_t j = 0; j < len; ++j) {
      const int64_t block = table[static_cast<size_t>(b * max_blocks + j / page)];
      if (block < 0 || block >= blocks) {
        return InvalidInput("block_table[" + Str(b) + ", " + Str(j / page) + "] = " + Str(block) +
                            " is not a block of k_cache (0.." + Str(blocks - 1) +
                            ") but covers key " + Str(j) + " < seqlens_k");
      }
      rows.push_back(block * page + j % page);
    }
    p.key_row.push_back(std::move(rows));
    p.s_k.push_back(len);
  }
  return Status::Ok();
}

// Where each batch's keys start in k/v and how many the layout holds, before seqlens_k.
struct DenseKeys {
  std::vector<int64_t> begin, layout_s_k;
};

// Varlen: q [total_q, h_q, d] and k/v [total_k, h_kv, d] packed by cu_seqlens_q/_k.
Result<DenseKeys> ResolveVarlenQ(const AttentionInputs& in, bool load_q, AttentionProblem& p) {
  p.layout = AttentionLayout::kVarlen;
  if (!in.cu_seqlens_q.defined() || !in.cu_seqlens_k.defined()) {
    return InvalidInput("varlen needs both cu_seqlens_q and cu_seqlens_k");
  }
  AV_RETURN_IF_ERROR(ExpectRank(in.q, 3, "q", "[total_q, h_q, d]"));
  AV_RETURN_IF_ERROR(ExpectRank(in.k, 3, "k", "[total_k, h_kv, d]"));
  AV_RETURN_IF_ERROR(ExpectRank(in.v, 3, "v", "[total_k, h_kv, dv]"));
  p.total_q = in.q.dim(0);
  p.h_q = in.q.dim(1);
  p.d = in.q.dim(2);
  if (load_q) p.q = LoadF64(in.q);
  AV_ASSIGN_OR_RETURN(auto cu_q, LoadCuSeqlens(in.cu_seqlens_q, "cu_seqlens_q", in.q.dim(0)));
  AV_ASSIGN_OR_RETURN(auto cu_k, LoadCuSeqlens(in.cu_seqlens_k, "cu_seqlens_k", in.k.dim(0)));
  if (cu_q.size() != cu_k.size()) {
    return InvalidInput("cu_seqlens_q has " + Str(cu_q.size()) + " entries but cu_seqlens_k " +
                        Str(cu_k.size()));
  }
  DenseKeys keys;
  p.batch = static_cast<int64_t>(cu_q.size()) - 1;
  for (int64_t b = 0; b < p.batch; ++b) {
    p.q_begin.push_back(cu_q[b]);
    p.s_q.push_back(cu_q[b + 1] - cu_q[b]);
    keys.begin.push_back(cu_k[b]);
    keys.layout_s_k.push_back(cu_k[b + 1] - cu_k[b]);
  }
  return keys;
}

// Batched: q [b, s_q, h_q, d], k/v [b, s_k, h_kv, d].
Result<DenseKeys> ResolveBatchedQ(const AttentionInputs& in, bool load_q, AttentionProblem& p) {
  p.layout = AttentionLayout::kBatched;
  AV_RETURN_IF_ERROR(LoadBatchedQ(in.q, p, load_q));
  AV_RETURN_IF_ERROR(ExpectRank(in.k, 4, "k", "[b, s_k, h_kv, d]"));
  AV_RETURN_IF_ERROR(ExpectRank(in.v, 4, "v", "[b, s_k, h_kv, dv]"));
  AV_RETURN_IF_ERROR(ExpectDim(in.k, 0, p.batch, "k", "b"));
  AV_RETURN_IF_ERROR(ExpectDim(in.v, 0, p.batch, "v", "b"));
  const int64_t s_k = in.k.dim(1);
  DenseKeys keys;
  for (int64_t b = 0; b < p.batch; ++b) {
    keys.begin.push_back(b * s_k);
    keys.layout_s_k.push_back(s_k);
  }
  return keys;
}

// Batched or varlen k/v (contiguous keys per batch): heads, values and seqlens_k.
Status ResolveDense(const AttentionInputs& in, bool varlen, bool load_q, bool load_values,
                    AttentionProblem& p) {
  if (!in.k.defined() || !in.v.defined()) return InvalidInput("k and v are required");
  AV_RETURN_IF_ERROR(ExpectFloating(in.k, "k"));
  AV_RETURN_IF_ERROR(ExpectFloating(in.v, "v"));
  AV_ASSIGN_OR_RETURN(DenseKeys keys,
                      varlen ? ResolveVarlenQ(in, load_q, p) : ResolveBatchedQ(in, load_q, p));
  const int kd = in.k.ndim() - 1;  // last dimension index
  AV_RETURN_IF_ERROR(ExpectDim(in.k, kd, p.d, "k", "d"));
  AV_RETURN_IF_ERROR(ExpectDim(in.v, kd - 1, in.k.dim(kd - 1), "v", "h_kv"));
  AV_RETURN_IF_ERROR(ExpectDim(in.v, kd - 2, in.k.dim(kd - 2), "v", "s_k"));
  p.h_kv = in.k.dim(kd - 1);
  p.dv = in.v.dim(kd);
  AV_RETURN_IF_ERROR(CheckHeads(p.h_q, p.h_kv));
  int64_t rows = 1;
  for (int i = 0; i < kd - 1; ++i) rows *= in.k.dim(i);
  if (load_values) {
    p.k = LoadF64(in.k).Reshaped({rows, p.h_kv, p.d});
    p.v = LoadF64(in.v).Reshaped({rows, p.h_kv, p.dv});
  }
  std::vector<int64_t> lens = keys.layout_s_k;
  if (in.seqlens_k.defined()) {
    AV_RETURN_IF_ERROR(ExpectRank(in.seqlens_k, 1, "seqlens_k", "[b]"));
    AV_RETURN_IF_ERROR(ExpectDim(in.seqlens_k, 0, p.batch, "seqlens_k", "b"));
    AV_ASSIGN_OR_RETURN(lens, LoadIndices(in.seqlens_k, "seqlens_k"));
  }
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t len = lens[static_cast<size_t>(b)];
    if (len < 0 || len > keys.layout_s_k[static_cast<size_t>(b)]) {
      return InvalidInput("seqlens_k[" + Str(b) + "] = " + Str(len) + " is outside [0, " +
                          Str(keys.layout_s_k[static_cast<size_t>(b)]) + "]");
    }
    p.s_k.push_back(len);
    std::vector<int64_t> rows_b;
    for (int64_t j = 0; j < len; ++j) rows_b.push_back(keys.begin[static_cast<size_t>(b)] + j);
    p.key_row.push_back(std::move(rows_b));
  }
  return Status::Ok();
}

// Options shared by every layout: ALiBi slopes, sink, softcap, window, scale.
Status ResolveOptions(const AttentionInputs& in, const AttentionParams& params,
                      AttentionProblem& p) {
  if (in.alibi_slopes.defined()) {
    const Tensor& a = in.alibi_slopes;
    AV_RETURN_IF_ERROR(ExpectFloating(a, "alibi_slopes"));
    F64Array slopes = LoadF64(a);
    p.alibi = F64Array::Zeros({p.batch, p.h_q});
    if (a.ndim() == 1 && a.dim(0) == p.h_q) {
      for (int64_t b = 0; b < p.batch; ++b)
        for (int64_t h = 0; h < p.h_q; ++h) p.alibi(b, h) = slopes(h);
    } else if (a.ndim() == 2 && a.dim(0) == p.batch && a.dim(1) == p.h_q) {
      p.alibi = slopes;
    } else {
      return InvalidInput("alibi_slopes: expected [h_q] or [b, h_q] = [" + Str(p.batch) + ", " +
                          Str(p.h_q) + "], got " + ShapeToString(a.shape()));
    }
  }
  if (in.sink.defined()) {
    AV_RETURN_IF_ERROR(ExpectFloating(in.sink, "sink"));
    if (in.sink.ndim() != 1 || in.sink.dim(0) != p.h_q) {
      return InvalidInput("sink: expected [h_q] = [" + Str(p.h_q) + "], got " +
                          ShapeToString(in.sink.shape()));
    }
    p.sink = LoadF64(in.sink).data;
  }
  if (params.softcap < 0 || !std::isfinite(params.softcap)) {
    return InvalidInput("softcap must be >= 0 (0 = off), got " + std::to_string(params.softcap));
  }
  if (params.mask.window_left < -1 || params.mask.window_right < -1) {
    return InvalidInput("window sizes must be >= -1 (-1 = unbounded)");
  }
  if (p.d <= 0) return InvalidInput("head dimension d must be positive");
  p.scale = params.scale.value_or(1.0 / std::sqrt(static_cast<double>(p.d)));
  if (!std::isfinite(p.scale)) return InvalidInput("scale must be finite");
  return Status::Ok();
}

}  // namespace

Result<AttentionProblem> ResolveAttention(const AttentionInputs& in, const AttentionParams& params,
                                          ResolveLoad load) {
  const bool load_values = load == ResolveLoad::kAll;
  const bool load_q = load != ResolveLoad::kNothing;
  AttentionProblem p;
  if (!in.q.defined()) return InvalidInput("q is required");
  AV_RETURN_IF_ERROR(ExpectFloating(in.q, "q"));
  const bool paged = in.k_cache.defined() || in.v_cache.defined() || in.block_table.defined();
  const bool varlen = in.cu_seqlens_q.defined() || in.cu_seqlens_k.defined();
  if (paged && varlen) return Unsupported("paged KV with varlen q is not supported");
  if (paged) {
    AV_RETURN_IF_ERROR(ResolvePaged(in, load_q, load_values, p));
  } else {
    AV_RETURN_IF_ERROR(ResolveDense(in, varlen, load_q, load_values, p));
  }
  AV_RETURN_IF_ERROR(ResolveOptions(in, params, p));
  return p;
}

Status CheckKeyRanges(const AttentionProblem& p, const std::vector<KeyRange>& ranges) {
  if (p.layout == AttentionLayout::kVarlen) {
    return Unsupported("split-k needs batched q [b, s_q, h_q, d]; varlen q is not supported");
  }
  for (const KeyRange& r : ranges) {
    if (r.batch < 0 || r.batch >= p.batch || r.begin < 0 || r.end < r.begin ||
        r.end > p.s_k[r.batch]) {
      return InvalidInput("key range (batch " + std::to_string(r.batch) + ", [" +
                          std::to_string(r.begin) + ", " + std::to_string(r.end) +
                          ")) is outside the batch's keys");
    }
  }
  return Status::Ok();
}

}  // namespace av
