// Resolves AttentionInputs (batched, varlen or paged) into one uniform problem: packed
// query rows, a table "key j of batch b lives in physical K/V row r", and per-batch
// lengths. Every shape, index and length is validated here, so the oracle loops that
// follow cannot go out of range. Internal to reference/; callable from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "reference/attention.h"
#include "reference/f64_array.h"

namespace av {

enum class AttentionLayout { kBatched, kVarlen, kPaged };

struct AttentionProblem {
  AttentionLayout layout = AttentionLayout::kBatched;
  int64_t batch = 0, h_q = 0, h_kv = 0, d = 0, dv = 0;
  int64_t total_q = 0;                        // packed query rows
  F64Array q;                                 // [total_q, h_q, d]
  F64Array k;                                 // [kv_rows, h_kv, d]   (paged: blocks * page rows)
  F64Array v;                                 // [kv_rows, h_kv, dv]
  std::vector<int64_t> q_begin;               // [b] first packed row of batch b
  std::vector<int64_t> s_q;                   // [b] query rows of batch b
  std::vector<int64_t> s_k;                   // [b] keys used by batch b (positions align to it)
  std::vector<std::vector<int64_t>> key_row;  // [b][j] physical row of key j, j < s_k[b]
  F64Array alibi;                             // [b, h_q] slopes, empty when ALiBi is off
  std::vector<double> sink;                   // [h_q], empty when there is no sink
  double scale = 0;

  // The query head's KV head under GQA/MQA: h / (h_q / h_kv).
  int64_t KvHead(int64_t h) const { return h / (h_q / h_kv); }
};

// Which tensors ResolveAttention copies into float64 arrays. Everything is validated and
// the index tables are filled whatever is loaded; what is not loaded stays empty and the
// caller reads the tensors itself (RowSource), so memory stays O(inputs): the fast path
// loads nothing, the oracle only q (a float64 K and V of a large paged cache took 2.3 GB
// per case), the low-precision references everything.
enum class ResolveLoad { kNothing, kQueries, kAll };
Result<AttentionProblem> ResolveAttention(const AttentionInputs& inputs,
                                          const AttentionParams& params,
                                          ResolveLoad load = ResolveLoad::kAll);

// What every ComputeAttentionOverRanges (oracle, fast, lowprec) requires: batched q, and
// each range within its batch's keys.
Status CheckKeyRanges(const AttentionProblem& p, const std::vector<KeyRange>& ranges);

}  // namespace av
