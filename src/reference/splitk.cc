#include "reference/splitk.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/check.h"
#include "reference/f64_array.h"
#include "reference/softmax_row.h"

namespace av {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

Result<SplitPlan> MakeSplitPlan(std::vector<KeyRange> splits, const std::vector<int64_t>& s_k) {
  SplitPlan plan;
  plan.num_splits.push_back(0);
  size_t n = 0;
  for (int64_t b = 0; b < static_cast<int64_t>(s_k.size()); ++b) {
    int64_t next = 0;  // where the next range of this batch must begin
    const size_t first = n;
    while (n < splits.size() && splits[n].batch == b) {
      const KeyRange& r = splits[n];
      if (r.begin != next || r.end < r.begin) {
        return InvalidInput("split " + Str(static_cast<int64_t>(n)) + " of batch " + Str(b) +
                            " covers [" + Str(r.begin) + ", " + Str(r.end) +
                            ") but must begin at key " + Str(next) +
                            " (splits tile each batch's keys in order)");
      }
      next = r.end;
      ++n;
    }
    if (n == first) return InvalidInput("batch " + Str(b) + " has no split");
    if (next != s_k[static_cast<size_t>(b)]) {
      return InvalidInput("the splits of batch " + Str(b) + " end at key " + Str(next) +
                          " but the batch has " + Str(s_k[static_cast<size_t>(b)]) + " keys");
    }
    plan.num_splits.push_back(static_cast<int64_t>(n));
  }
  if (n != splits.size()) {
    return InvalidInput("split " + Str(static_cast<int64_t>(n)) + " names batch " +
                        Str(splits[n].batch) + " out of order or out of range");
  }
  plan.splits = std::move(splits);
  return plan;
}

int64_t FlashMlaNumSmParts(int64_t num_sms, int64_t s_q, int64_t h_q, int64_t h_kv) {
  const int64_t q_tiles = CeilDiv(s_q * h_q / h_kv, 64);
  return std::max<int64_t>(num_sms / h_kv / std::max<int64_t>(q_tiles, 1), 1);
}

Result<SplitPlan> FlashMlaSplitPlan(const std::vector<int64_t>& s_k, int64_t num_sm_parts,
                                    int64_t block_n, int64_t fixed_overhead_blocks) {
  if (num_sm_parts <= 0 || block_n <= 0 || fixed_overhead_blocks < 0) {
    return InvalidInput("FlashMLA plan needs num_sm_parts > 0 and block_n > 0");
  }
  const int64_t batch = static_cast<int64_t>(s_k.size());
  std::vector<int64_t> num_blocks;
  int64_t total = 0;
  for (int64_t len : s_k) {
    if (len < 0) return InvalidInput("negative key length " + Str(len));
    // FlashMLA's get_mla_metadata_kernel counts the blocks of tokens [0, max(s_k - 1, 0)],
    // so a zero-length batch costs one block (ceil(s_k / 64) elsewhere): that block enters
    // the total and the payload and moves every cut after the batch.
    num_blocks.push_back(std::max<int64_t>(len - 1, 0) / block_n + 1);
    total += num_blocks.back() + fixed_overhead_blocks;
  }
  const int64_t payload = CeilDiv(total, num_sm_parts) + fixed_overhead_blocks;
  // FlashMLA's greedy walk: each SM part takes whole requests while its payload lasts,
  // then the head of the next request; a request's pieces become its splits, in order.
  std::vector<KeyRange> ranges;
  int64_t now_req = 0, now_block = 0;
  auto key = [&](int64_t b, int64_t block) { return std::min(block * block_n, s_k[b]); };
  for (int64_t part = 0; part < num_sm_parts; ++part) {
    int64_t remain = payload;
    while (now_req < batch) {
      const int64_t remain_blocks = num_blocks[now_req] - now_block;
      if (remain >= remain_blocks + fixed_overhead_blocks) {
        ranges.push_back({now_req, key(now_req, now_block), s_k[now_req]});
        remain -= remain_blocks + fixed_overhead_blocks;
        ++now_req;
        now_block = 0;
      } else {
        if (remain - fixed_overhead_blocks > 0) {
          const int64_t end_block = now_block + remain - fixed_overhead_blocks;
          ranges.push_back({now_req, key(now_req, now_block), key(now_req, end_block)});
          now_block = end_block;
        }
        break;
      }
    }
  }
  if (now_req != batch) {
    return Internal("FlashMLA plan left batch " + Str(now_req) + " unassigned");
  }
  return MakeSplitPlan(std::move(ranges), s_k);
}

Result<SplitPartials> ComputeSplitPartials(const AttentionInputs& inputs,
                                           const AttentionParams& params, const SplitPlan& plan,
                                           bool round_to_f32) {
  AV_ASSIGN_OR_RETURN(RangeOutputs parts, ComputeAttentionOverRanges(inputs, params, plan.splits));
  const int64_t total = static_cast<int64_t>(plan.splits.size());
  const int64_t s_q = inputs.q.dim(1), h_q = inputs.q.dim(2);
  int64_t dv = 0;
  if (total > 0) dv = parts.per_range[0].first.dim(2);
  F64Array o = F64Array::Zeros({total, s_q, h_q, dv});
  F64Array lse = F64Array::Zeros({total, h_q, s_q});
  auto store = [&](double x) {
    return round_to_f32 ? static_cast<double>(static_cast<float>(x)) : x;
  };
  for (int64_t s = 0; s < total; ++s) {
    F64Array os = LoadF64(parts.per_range[static_cast<size_t>(s)].first);
    F64Array ls = LoadF64(parts.per_range[static_cast<size_t>(s)].second);
    for (int64_t i = 0; i < s_q; ++i)
      for (int64_t h = 0; h < h_q; ++h) {
        for (int64_t c = 0; c < dv; ++c) o(s, i, h, c) = store(os(i, h, c));
        lse(s, h, i) = store(ls(h, i));
      }
  }
  return SplitPartials{o.ToTensor(), lse.ToTensor()};
}

Result<SplitPartials> ComputeSplitPartialsFast(const AttentionInputs& inputs,
                                               const AttentionParams& params, const SplitPlan& plan,
                                               const FastOptions& options, bool round_to_f32) {
  AV_ASSIGN_OR_RETURN(RangeOutputs parts,
                      ComputeAttentionOverRangesFast(inputs, params, plan.splits, options));
  const int64_t total = static_cast<int64_t>(plan.splits.size());
  const int64_t s_q = inputs.q.dim(1), h_q = inputs.q.dim(2);
  const int64_t dv = total > 0 ? parts.per_range[0].first.dim(2) : 0;
  // Each range's o [s_q, h_q, dv] (float32, or float64 with accumulate_f64: rounded to
  // float32 here, as the kernels store o_accum) and lse [h_q, s_q] (float64) are whole
  // slabs of o_accum [total, s_q, h_q, dv] and lse_accum [total, h_q, s_q], in order.
  const int64_t o_per = s_q * h_q * dv, lse_per = h_q * s_q;
  Tensor o = Tensor::Zeros(DType::kF32, {total, s_q, h_q, dv});
  Tensor lse = Tensor::Zeros(round_to_f32 ? DType::kF32 : DType::kF64, {total, h_q, s_q});
  float* o_out = reinterpret_cast<float*>(o.mutable_data());
  for (int64_t s = 0; s < total; ++s) {
    const auto& [os, ls] = parts.per_range[static_cast<size_t>(s)];
    CHECK((os.dtype() == DType::kF32 || os.dtype() == DType::kF64) && ls.dtype() == DType::kF64);
    if (os.dtype() == DType::kF32) {
      std::memcpy(o_out + s * o_per, os.data(), static_cast<size_t>(o_per) * sizeof(float));
    } else {
      const double* od = reinterpret_cast<const double*>(os.data());
      for (int64_t n = 0; n < o_per; ++n) o_out[s * o_per + n] = static_cast<float>(od[n]);
    }
    const double* l = reinterpret_cast<const double*>(ls.data());
    if (round_to_f32) {
      float* lse_out = reinterpret_cast<float*>(lse.mutable_data()) + s * lse_per;
      for (int64_t n = 0; n < lse_per; ++n) lse_out[n] = static_cast<float>(l[n]);
    } else {
      double* lse_out = reinterpret_cast<double*>(lse.mutable_data()) + s * lse_per;
      std::copy_n(l, lse_per, lse_out);
    }
  }
  return SplitPartials{std::move(o), std::move(lse)};
}

Result<CombineShape> CheckCombineInputs(const Tensor& o_accum, const Tensor& lse_accum,
                                        const Tensor& num_splits, const Tensor& sink) {
  AV_RETURN_IF_ERROR(ExpectRank(o_accum, 4, "o_accum", "[total_splits, s_q, h_q, dv]"));
  AV_RETURN_IF_ERROR(ExpectRank(lse_accum, 3, "lse_accum", "[total_splits, h_q, s_q]"));
  AV_RETURN_IF_ERROR(ExpectFloating(o_accum, "o_accum"));
  AV_RETURN_IF_ERROR(ExpectFloating(lse_accum, "lse_accum"));
  const int64_t total = o_accum.dim(0), s_q = o_accum.dim(1), h_q = o_accum.dim(2),
                dv = o_accum.dim(3);
  AV_RETURN_IF_ERROR(ExpectDim(lse_accum, 0, total, "lse_accum", "total_splits"));
  AV_RETURN_IF_ERROR(ExpectDim(lse_accum, 1, h_q, "lse_accum", "h_q"));
  AV_RETURN_IF_ERROR(ExpectDim(lse_accum, 2, s_q, "lse_accum", "s_q"));
  AV_RETURN_IF_ERROR(ExpectRank(num_splits, 1, "num_splits", "[b + 1]"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> cum, LoadIndices(num_splits, "num_splits"));
  if (cum.empty() || cum[0] != 0 || cum.back() != total) {
    return InvalidInput("num_splits must run from 0 to total_splits (" + Str(total) + ")");
  }
  for (size_t b = 1; b < cum.size(); ++b) {
    if (cum[b] < cum[b - 1]) return InvalidInput("num_splits must be non-decreasing");
  }
  std::vector<double> sinks;
  if (sink.defined()) {
    if (sink.ndim() != 1 || sink.dim(0) != h_q) {
      return InvalidInput("sink: expected [h_q] = [" + Str(h_q) + "], got " +
                          ShapeToString(sink.shape()));
    }
    sinks = LoadF64(sink).data;
  }
  return CombineShape{total, s_q, h_q, dv, std::move(cum), std::move(sinks)};
}

Result<AttentionOutputs> CombineSplits(const Tensor& o_accum, const Tensor& lse_accum,
                                       const Tensor& num_splits, const Tensor& sink,
                                       const AttentionParams& params) {
  AV_ASSIGN_OR_RETURN(CombineShape shape, CheckCombineInputs(o_accum, lse_accum, num_splits, sink));
  const int64_t s_q = shape.s_q, h_q = shape.h_q, dv = shape.dv;
  const std::vector<int64_t>& cum = shape.cum;
  const std::vector<double>& sinks = shape.sinks;
  const int64_t batch = static_cast<int64_t>(cum.size()) - 1;
  const F64Array o_s = LoadF64(o_accum), lse_s = LoadF64(lse_accum);
  F64Array o = F64Array::Zeros({batch, s_q, h_q, dv});
  F64Array lse = F64Array::Zeros({batch, h_q, s_q});
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < s_q; ++i) {
      for (int64_t h = 0; h < h_q; ++h) {
        double m = kNegInf;
        for (int64_t s = cum[b]; s < cum[b + 1]; ++s) m = std::max(m, lse_s(s, h, i));
        if (m == kNegInf) m = 0;  // every split empty: keeps exp() finite below
        double sum = 0;
        for (int64_t s = cum[b]; s < cum[b + 1]; ++s) sum += std::exp(lse_s(s, h, i) - m);
        const double l = m + std::log(sum);
        if (l != kNegInf) {
          for (int64_t s = cum[b]; s < cum[b + 1]; ++s) {
            if (lse_s(s, h, i) == kNegInf) continue;  // an empty split contributes nothing
            const double w = std::exp(lse_s(s, h, i) - l);
            for (int64_t c = 0; c < dv; ++c) o(b, i, h, c) += w * o_s(s, i, h, c);
          }
          if (!sinks.empty()) ApplySink(sinks[h], l, {o.MutableRow(b, i, h), size_t(dv)});
        }
        lse(b, h, i) = ReportedLse(l, params.lse_log2, params.empty_lse);
      }
    }
  }
  return AttentionOutputs{o.ToTensor(), lse.ToTensor()};
}

}  // namespace av
