#include "reference/ref_ops.h"

#include <string>

#include "reference/attention.h"
#include "reference/f64_array.h"
#include "reference/fast_attention.h"
#include "reference/fast_gemm.h"
#include "reference/fp8_quant.h"
#include "reference/fp8_quant_fast.h"
#include "reference/gemm.h"
#include "reference/lowprec_attention.h"
#include "reference/lowprec_gemm.h"
#include "reference/lowprec_splitk.h"
#include "reference/mla_decode.h"
#include "reference/sparse_attention.h"
#include "reference/sparse_attention_fast.h"
#include "reference/sparse_attention_lowprec.h"
#include "reference/splitk.h"

namespace av {
namespace {

// The named input, or an undefined Tensor when absent.
Tensor Get(const NamedTensors& in, const std::string& name) {
  for (const auto& [n, t] : in)
    if (n == name) return t;
  return Tensor();
}

Result<Tensor> Require(const NamedTensors& in, const std::string& name) {
  Tensor t = Get(in, name);
  if (!t.defined()) return NotFound("input tensor \"" + name + "\" is required");
  return t;
}

Result<EmptyLse> ParseEmptyLse(const OpParams& p, EmptyLse fallback) {
  if (!p.Has("empty_lse")) return fallback;
  std::string v = p.String("empty_lse", "");
  if (v == "-inf") return EmptyLse::kNegInf;
  if (v == "+inf" || v == "inf") return EmptyLse::kPosInf;
  return InvalidInput("parameter empty_lse: expected -inf or +inf, got \"" + v + "\"");
}

Result<AttentionParams> ParseAttentionParams(const OpParams& p) {
  AttentionParams a;
  AV_ASSIGN_OR_RETURN(a.scale, p.OptionalDouble("scale"));
  AV_ASSIGN_OR_RETURN(a.mask.causal, p.Bool("causal", false));
  AV_ASSIGN_OR_RETURN(a.mask.window_left, p.Int("window_left", -1));
  AV_ASSIGN_OR_RETURN(a.mask.window_right, p.Int("window_right", -1));
  AV_ASSIGN_OR_RETURN(a.softcap, p.Double("softcap", 0));
  AV_ASSIGN_OR_RETURN(a.lse_log2, p.Bool("lse_log2", false));
  AV_ASSIGN_OR_RETURN(a.empty_lse, ParseEmptyLse(p, EmptyLse::kNegInf));
  return a;
}

AttentionInputs AttentionInputsFrom(const NamedTensors& in) {
  AttentionInputs a;
  a.q = Get(in, "q");
  a.k = Get(in, "k");
  a.v = Get(in, "v");
  a.k_cache = Get(in, "k_cache");
  a.v_cache = Get(in, "v_cache");
  a.block_table = Get(in, "block_table");
  a.cu_seqlens_q = Get(in, "cu_seqlens_q");
  a.cu_seqlens_k = Get(in, "cu_seqlens_k");
  a.seqlens_k = Get(in, "seqlens_k");
  a.alibi_slopes = Get(in, "alibi_slopes");
  a.sink = Get(in, "sink");
  return a;
}

Result<MlaDecodeParams> ParseMlaParams(const OpParams& p) {
  MlaDecodeParams m;
  AV_ASSIGN_OR_RETURN(m.head_dim_v, p.Int("head_dim_v", 512));
  AV_ASSIGN_OR_RETURN(m.softmax_scale, p.OptionalDouble("scale"));
  AV_ASSIGN_OR_RETURN(m.causal, p.Bool("causal", false));
  AV_ASSIGN_OR_RETURN(m.lse_log2, p.Bool("lse_log2", false));
  AV_ASSIGN_OR_RETURN(m.empty_lse, ParseEmptyLse(p, EmptyLse::kPosInf));
  return m;
}

Result<NamedTensors> RunAttention(const NamedTensors& in, const OpParams& p) {
  AV_ASSIGN_OR_RETURN(AttentionParams params, ParseAttentionParams(p));
  AV_ASSIGN_OR_RETURN(AttentionOutputs out, ComputeAttention(AttentionInputsFrom(in), params));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

FastOptions FastFrom(const RefImpl& impl) {
  FastOptions f;
  f.threads = impl.threads;
  f.tiles = impl.fast_tiles ? TilePath::kAuto : TilePath::kOff;
  return f;
}

// The attention family's fast path: float64 accumulation unless impl.fast_f32.
FastOptions FastAttentionFrom(const RefImpl& impl) {
  FastOptions f = FastFrom(impl);
  f.accumulate_f64 = !impl.fast_f32;
  return f;
}

Result<NamedTensors> RunAttentionFast(const NamedTensors& in, const OpParams& p,
                                      const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(AttentionParams params, ParseAttentionParams(p));
  AV_ASSIGN_OR_RETURN(AttentionOutputs out, ComputeAttentionFast(AttentionInputsFrom(in), params,
                                                                 FastAttentionFrom(impl)));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

Result<NamedTensors> RunAttentionLowprec(const NamedTensors& in, const OpParams& p,
                                         const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(AttentionParams params, ParseAttentionParams(p));
  AV_ASSIGN_OR_RETURN(
      AttentionOutputs out,
      ComputeAttentionLowprec(AttentionInputsFrom(in), params, {impl.lowprec_dtype, impl.threads}));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

Result<NamedTensors> RunMlaDecodeFast(const NamedTensors& in, const OpParams& p,
                                      const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(MlaDecodeParams params, ParseMlaParams(p));
  MlaDecodeInputs m{Get(in, "q"), Get(in, "k_cache"), Get(in, "block_table"),
                    Get(in, "cache_seqlens")};
  AV_ASSIGN_OR_RETURN(AttentionOutputs out,
                      ComputeMlaDecodeFast(m, params, FastAttentionFrom(impl)));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

Result<NamedTensors> RunMlaDecodeLowprec(const NamedTensors& in, const OpParams& p,
                                         const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(MlaDecodeParams params, ParseMlaParams(p));
  MlaDecodeInputs m{Get(in, "q"), Get(in, "k_cache"), Get(in, "block_table"),
                    Get(in, "cache_seqlens")};
  AV_ASSIGN_OR_RETURN(AttentionOutputs out,
                      ComputeMlaDecodeLowprec(m, params, {impl.lowprec_dtype, impl.threads}));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

Result<NamedTensors> RunGemmFast(const NamedTensors& in, const OpParams&, const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(Tensor a, Require(in, "a"));
  AV_ASSIGN_OR_RETURN(Tensor b, Require(in, "b"));
  AV_ASSIGN_OR_RETURN(Tensor d, ComputeGemmNtFast(a, b, FastFrom(impl)));
  return NamedTensors{{"d", d}};
}

Result<NamedTensors> RunFp8GemmFast(const NamedTensors& in, const OpParams&, const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(Tensor a, Require(in, "a"));
  AV_ASSIGN_OR_RETURN(Tensor sa, Require(in, "sa"));
  AV_ASSIGN_OR_RETURN(Tensor b, Require(in, "b"));
  AV_ASSIGN_OR_RETURN(Tensor sb, Require(in, "sb"));
  Tensor m_indices = Get(in, "m_indices"), masked_m = Get(in, "masked_m");
  Result<Tensor> d =
      m_indices.defined() || masked_m.defined()
          ? ComputeFp8GemmNtGroupedFast(a, sa, b, sb, m_indices, masked_m, FastFrom(impl))
          : ComputeFp8GemmNtFast(a, sa, b, sb, FastFrom(impl));
  if (!d.ok()) return d.status();
  return NamedTensors{{"d", *d}};
}

LowprecOptions LowprecFrom(const RefImpl& impl) { return {impl.lowprec_dtype, impl.threads}; }

Result<NamedTensors> RunGemmLowprec(const NamedTensors& in, const OpParams&, const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(Tensor a, Require(in, "a"));
  AV_ASSIGN_OR_RETURN(Tensor b, Require(in, "b"));
  AV_ASSIGN_OR_RETURN(Tensor d, ComputeGemmNtLowprec(a, b, LowprecFrom(impl)));
  return NamedTensors{{"d", d}};
}

Result<NamedTensors> RunFp8GemmLowprec(const NamedTensors& in, const OpParams&,
                                       const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(Tensor a, Require(in, "a"));
  AV_ASSIGN_OR_RETURN(Tensor sa, Require(in, "sa"));
  AV_ASSIGN_OR_RETURN(Tensor b, Require(in, "b"));
  AV_ASSIGN_OR_RETURN(Tensor sb, Require(in, "sb"));
  AV_ASSIGN_OR_RETURN(Tensor d, ComputeFp8GemmNtLowprec(a, sa, b, sb, Get(in, "m_indices"),
                                                        Get(in, "masked_m"), LowprecFrom(impl)));
  return NamedTensors{{"d", d}};
}

Result<NamedTensors> RunMlaDecode(const NamedTensors& in, const OpParams& p) {
  AV_ASSIGN_OR_RETURN(MlaDecodeParams params, ParseMlaParams(p));
  MlaDecodeInputs m{Get(in, "q"), Get(in, "k_cache"), Get(in, "block_table"),
                    Get(in, "cache_seqlens")};
  AV_ASSIGN_OR_RETURN(AttentionOutputs out, ComputeMlaDecode(m, params));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

// The plan: explicit split_ranges [total, 2] with num_splits [b + 1], or FlashMLA's rule.
Result<SplitPlan> PlanFrom(const NamedTensors& in, const OpParams& p, const AttentionInputs& a,
                           const std::vector<int64_t>& s_k) {
  Tensor ranges = Get(in, "split_ranges"), counts = Get(in, "num_splits");
  AV_ASSIGN_OR_RETURN(std::optional<int64_t> num_sms, p.OptionalInt("num_sms"));
  if (num_sms.has_value() == (ranges.defined() || counts.defined())) {
    return InvalidInput(
        "attention_splitk needs either num_sms (FlashMLA's scheduler) or the "
        "tensors split_ranges and num_splits, not both");
  }
  if (num_sms) {
    const Tensor& kv = a.k_cache.defined() ? a.k_cache : a.k;
    if (!kv.defined() || kv.ndim() != 4) {
      return InvalidInput("num_sms needs k [b, s_k, h_kv, d] or k_cache [blocks, page, h_kv, d]");
    }
    const int64_t h_kv = kv.dim(2);
    if (*num_sms <= 0 || h_kv <= 0) return InvalidInput("num_sms must be positive");
    int64_t parts = FlashMlaNumSmParts(*num_sms, a.q.dim(1), a.q.dim(2), h_kv);
    return FlashMlaSplitPlan(s_k, parts);
  }
  if (!ranges.defined() || !counts.defined()) {
    return InvalidInput("split_ranges and num_splits go together");
  }
  AV_RETURN_IF_ERROR(ExpectRank(ranges, 2, "split_ranges", "[total_splits, 2]"));
  AV_RETURN_IF_ERROR(ExpectDim(ranges, 1, 2, "split_ranges", "begin, end"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> r, LoadIndices(ranges, "split_ranges"));
  AV_ASSIGN_OR_RETURN(std::vector<int64_t> cum, LoadIndices(counts, "num_splits"));
  if (cum.size() != s_k.size() + 1 || cum[0] != 0 || cum.back() != ranges.dim(0)) {
    return InvalidInput("num_splits must be [b + 1] cumulative counts from 0 to total_splits");
  }
  std::vector<KeyRange> splits;
  for (size_t b = 0; b + 1 < cum.size(); ++b)
    for (int64_t s = cum[b]; s < cum[b + 1]; ++s)
      splits.push_back({static_cast<int64_t>(b), r[s * 2], r[s * 2 + 1]});
  return MakeSplitPlan(std::move(splits), s_k);
}

// Partials by the oracle, the fast path or the lowprec reference; the combine is the float64
// oracle's for the first two (see RunCombineFast) and the float32 one of lowprec_splitk.h
// for lowprec.
Result<NamedTensors> RunSplitKWith(const NamedTensors& in, const OpParams& p, const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(AttentionParams params, ParseAttentionParams(p));
  AttentionInputs a = AttentionInputsFrom(in);
  if (Get(in, "cache_seqlens").defined()) {  // MLA layout: V inside k_cache
    AV_ASSIGN_OR_RETURN(MlaDecodeParams mp, ParseMlaParams(p));
    mp.empty_lse = params.empty_lse;
    MlaDecodeInputs m{a.q, a.k_cache, a.block_table, Get(in, "cache_seqlens")};
    Tensor sink = a.sink;
    AV_ASSIGN_OR_RETURN(a, MlaDecodeAsAttention(m, mp, &params));
    a.sink = sink;
  }
  if (!a.q.defined() || a.q.ndim() != 4) {
    return InvalidInput("attention_splitk needs batched q [b, s_q, h_q, d]");
  }
  // Key lengths per batch, as the attention oracle resolves them.
  std::vector<int64_t> s_k;
  const int64_t batch = a.q.dim(0);
  if (a.seqlens_k.defined()) {
    AV_ASSIGN_OR_RETURN(s_k, LoadIndices(a.seqlens_k, "seqlens_k"));
  } else if (a.k.defined() && a.k.ndim() == 4) {
    s_k.assign(static_cast<size_t>(batch), a.k.dim(1));
  } else {
    return InvalidInput("attention_splitk needs k [b, s_k, h_kv, d] or seqlens_k");
  }
  AV_ASSIGN_OR_RETURN(SplitPlan plan, PlanFrom(in, p, a, s_k));
  AV_ASSIGN_OR_RETURN(bool f32, p.Bool("partials_f32", true));
  const LowprecSplitOptions lowprec{LowprecFrom(impl), impl.lowprec_partials};
  // lowprec stores partials in impl.lowprec_partials (--lowprec-partials); partials_f32
  // (oracle and fast) does not apply to it.
  Result<SplitPartials> computed =
      impl.kind == ImplKind::kFast
          ? ComputeSplitPartialsFast(a, params, plan, FastAttentionFrom(impl), f32)
      : impl.kind == ImplKind::kLowprec ? ComputeSplitPartialsLowprec(a, params, plan, lowprec)
                                        : ComputeSplitPartials(a, params, plan, f32);
  if (!computed.ok()) return computed.status();
  SplitPartials parts = std::move(*computed);
  Tensor counts = Tensor::Zeros(DType::kI32, {static_cast<int64_t>(plan.num_splits.size())});
  for (size_t b = 0; b < plan.num_splits.size(); ++b)
    counts.SetDouble(std::vector<int64_t>{int64_t(b)}, double(plan.num_splits[b]));
  Tensor ranges = Tensor::Zeros(DType::kI32, {static_cast<int64_t>(plan.splits.size()), 2});
  for (size_t s = 0; s < plan.splits.size(); ++s) {
    ranges.SetDouble(std::vector<int64_t>{int64_t(s), 0}, double(plan.splits[s].begin));
    ranges.SetDouble(std::vector<int64_t>{int64_t(s), 1}, double(plan.splits[s].end));
  }
  AV_ASSIGN_OR_RETURN(
      AttentionOutputs out,
      impl.kind == ImplKind::kLowprec
          ? CombineSplitsLowprec(parts.o_accum, parts.lse_accum, counts, a.sink, params, lowprec)
          : CombineSplits(parts.o_accum, parts.lse_accum, counts, a.sink, params));
  return NamedTensors{{"o", out.o},
                      {"lse", out.lse},
                      {"o_accum", parts.o_accum},
                      {"lse_accum", parts.lse_accum},
                      {"num_splits", counts},
                      {"split_ranges", ranges}};
}

Result<NamedTensors> RunSplitK(const NamedTensors& in, const OpParams& p) {
  return RunSplitKWith(in, p, RefImpl{});
}

// Fast and lowprec: impl.kind picks the path.
Result<NamedTensors> RunSplitKImpl(const NamedTensors& in, const OpParams& p, const RefImpl& impl) {
  return RunSplitKWith(in, p, impl);
}

Result<NamedTensors> RunCombineWith(const NamedTensors& in, const OpParams& p,
                                    const RefImpl* lowprec) {
  AttentionParams params;
  AV_ASSIGN_OR_RETURN(params.lse_log2, p.Bool("lse_log2", false));
  AV_ASSIGN_OR_RETURN(params.empty_lse, ParseEmptyLse(p, EmptyLse::kNegInf));
  AV_ASSIGN_OR_RETURN(Tensor o, Require(in, "o_accum"));
  AV_ASSIGN_OR_RETURN(Tensor lse, Require(in, "lse_accum"));
  AV_ASSIGN_OR_RETURN(Tensor counts, Require(in, "num_splits"));
  AV_ASSIGN_OR_RETURN(AttentionOutputs out,
                      lowprec
                          ? CombineSplitsLowprec(o, lse, counts, Get(in, "sink"), params,
                                                 {LowprecFrom(*lowprec), lowprec->lowprec_partials})
                          : CombineSplits(o, lse, counts, Get(in, "sink"), params));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}};
}

Result<NamedTensors> RunCombine(const NamedTensors& in, const OpParams& p) {
  return RunCombineWith(in, p, nullptr);
}

Result<NamedTensors> RunCombineLowprec(const NamedTensors& in, const OpParams& p,
                                       const RefImpl& impl) {
  return RunCombineWith(in, p, &impl);
}

// The fast combine is the oracle's: it costs O(splits · dv) per row against the partials
// O(s_k · (d + dv)), so a float32 version would buy no time, and merging float32 partials
// in float64 adds no error of its own.
Result<NamedTensors> RunCombineFast(const NamedTensors& in, const OpParams& p, const RefImpl&) {
  return RunCombine(in, p);
}

Result<SparseAttentionParams> ParseSparseParams(const OpParams& p) {
  SparseAttentionParams params;
  AV_ASSIGN_OR_RETURN(params.sm_scale, p.OptionalDouble("scale"));
  AV_ASSIGN_OR_RETURN(params.head_dim_v, p.OptionalInt("head_dim_v"));
  AV_ASSIGN_OR_RETURN(params.lse_log2, p.Bool("lse_log2", false));
  AV_ASSIGN_OR_RETURN(params.empty_lse, ParseEmptyLse(p, EmptyLse::kPosInf));
  return params;
}

SparseAttentionInputs SparseInputsFrom(const NamedTensors& in) {
  return {Get(in, "q"), Get(in, "kv"), Get(in, "indices"), Get(in, "topk_length"),
          Get(in, "attn_sink")};
}

Result<NamedTensors> RunSparse(const NamedTensors& in, const OpParams& p) {
  AV_ASSIGN_OR_RETURN(SparseAttentionParams params, ParseSparseParams(p));
  AV_ASSIGN_OR_RETURN(SparseAttentionOutputs out,
                      ComputeSparseAttention(SparseInputsFrom(in), params));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}, {"max_logits", out.max_logits}};
}

Result<NamedTensors> RunSparseFast(const NamedTensors& in, const OpParams& p, const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(SparseAttentionParams params, ParseSparseParams(p));
  AV_ASSIGN_OR_RETURN(SparseAttentionOutputs out,
                      ComputeSparseAttentionFast(SparseInputsFrom(in), params, FastFrom(impl)));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}, {"max_logits", out.max_logits}};
}

Result<NamedTensors> RunSparseLowprec(const NamedTensors& in, const OpParams& p,
                                      const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(SparseAttentionParams params, ParseSparseParams(p));
  AV_ASSIGN_OR_RETURN(
      SparseAttentionOutputs out,
      ComputeSparseAttentionLowprec(SparseInputsFrom(in), params, LowprecFrom(impl)));
  return NamedTensors{{"o", out.o}, {"lse", out.lse}, {"max_logits", out.max_logits}};
}

Result<NamedTensors> RunGemm(const NamedTensors& in, const OpParams&) {
  AV_ASSIGN_OR_RETURN(Tensor a, Require(in, "a"));
  AV_ASSIGN_OR_RETURN(Tensor b, Require(in, "b"));
  AV_ASSIGN_OR_RETURN(Tensor d, ComputeGemmNt(a, b));
  return NamedTensors{{"d", d}};
}

Result<NamedTensors> RunFp8Gemm(const NamedTensors& in, const OpParams&) {
  AV_ASSIGN_OR_RETURN(Tensor a, Require(in, "a"));
  AV_ASSIGN_OR_RETURN(Tensor sa, Require(in, "sa"));
  AV_ASSIGN_OR_RETURN(Tensor b, Require(in, "b"));
  AV_ASSIGN_OR_RETURN(Tensor sb, Require(in, "sb"));
  Tensor m_indices = Get(in, "m_indices"), masked_m = Get(in, "masked_m");
  if (m_indices.defined() && masked_m.defined()) {
    return InvalidInput(
        "give m_indices (grouped contiguous) or masked_m (grouped masked), not both");
  }
  Result<Tensor> d = m_indices.defined()
                         ? ComputeFp8GemmNtGroupedContiguous(a, sa, b, sb, m_indices)
                     : masked_m.defined() ? ComputeFp8GemmNtGroupedMasked(a, sa, b, sb, masked_m)
                                          : ComputeFp8GemmNt(a, sa, b, sb);
  if (!d.ok()) return d.status();
  return NamedTensors{{"d", *d}};
}

Result<bool> PerBlock(const OpParams& p) {
  std::string g = p.String("granularity", "token");
  if (g == "token") return false;
  if (g == "block") return true;
  return InvalidInput("parameter granularity: expected token or block, got \"" + g + "\"");
}

Result<NamedTensors> RunFp8Quant(const NamedTensors& in, const OpParams& p) {
  AV_ASSIGN_OR_RETURN(Tensor x, Require(in, "x"));
  AV_ASSIGN_OR_RETURN(bool block, PerBlock(p));
  AV_ASSIGN_OR_RETURN(bool ue8m0, p.Bool("ue8m0", false));
  AV_ASSIGN_OR_RETURN(Fp8Quantized q,
                      block ? QuantizePerBlock(x, ue8m0) : QuantizePerToken(x, ue8m0));
  return NamedTensors{{"data", q.data}, {"scales", q.scales}};
}

Result<NamedTensors> RunFp8Dequant(const NamedTensors& in, const OpParams& p) {
  AV_ASSIGN_OR_RETURN(Tensor data, Require(in, "data"));
  AV_ASSIGN_OR_RETURN(Tensor scales, Require(in, "scales"));
  AV_ASSIGN_OR_RETURN(bool block, PerBlock(p));
  AV_ASSIGN_OR_RETURN(Tensor x,
                      block ? DequantizePerBlock(data, scales) : DequantizePerToken(data, scales));
  return NamedTensors{{"x", x}};
}

Result<NamedTensors> RunFp8QuantFast(const NamedTensors& in, const OpParams& p,
                                     const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(Tensor x, Require(in, "x"));
  AV_ASSIGN_OR_RETURN(bool block, PerBlock(p));
  AV_ASSIGN_OR_RETURN(bool ue8m0, p.Bool("ue8m0", false));
  AV_ASSIGN_OR_RETURN(Fp8Quantized q, QuantizeFast(x, block, ue8m0, FastFrom(impl)));
  return NamedTensors{{"data", q.data}, {"scales", q.scales}};
}

Result<NamedTensors> RunFp8DequantFast(const NamedTensors& in, const OpParams& p,
                                       const RefImpl& impl) {
  AV_ASSIGN_OR_RETURN(Tensor data, Require(in, "data"));
  AV_ASSIGN_OR_RETURN(Tensor scales, Require(in, "scales"));
  AV_ASSIGN_OR_RETURN(bool block, PerBlock(p));
  AV_ASSIGN_OR_RETURN(Tensor x, DequantizeFast(data, scales, block, FastFrom(impl)));
  return NamedTensors{{"x", x}};
}

const std::set<std::string> kAttentionParams = {"scale",        "causal",   "window_left",
                                                "window_right", "softcap",  "lse_log2",
                                                "empty_lse",    "out_dtype"};
const std::set<std::string> kAttentionInputs = {"q",
                                                "k",
                                                "v",
                                                "k_cache",
                                                "v_cache",
                                                "block_table",
                                                "cu_seqlens_q",
                                                "cu_seqlens_k",
                                                "seqlens_k",
                                                "alibi_slopes",
                                                "sink"};

std::set<std::string> Union(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

const ReferenceOp kOps[] = {
    {"attention", "dense / varlen / paged attention with every mask", kAttentionInputs,
     kAttentionParams, &RunAttention, &RunAttentionFast, &RunAttentionLowprec},
    {"mla_decode",
     "FlashMLA dense decode (latent cache, V inside K)",
     {"q", "k_cache", "block_table", "cache_seqlens"},
     {"scale", "causal", "head_dim_v", "lse_log2", "empty_lse", "out_dtype"},
     &RunMlaDecode,
     &RunMlaDecodeFast,
     &RunMlaDecodeLowprec},
    {"attention_splitk", "split-k partials and their combine",
     Union(kAttentionInputs, {"cache_seqlens", "split_ranges", "num_splits"}),
     Union(kAttentionParams, {"num_sms", "partials_f32", "head_dim_v"}), &RunSplitK, &RunSplitKImpl,
     &RunSplitKImpl},
    {"combine",
     "merge split-k partials (o_accum, lse_accum)",
     {"o_accum", "lse_accum", "num_splits", "sink"},
     {"lse_log2", "empty_lse", "out_dtype"},
     &RunCombine,
     &RunCombineFast,
     &RunCombineLowprec},
    {"sparse_attention",
     "top-k sparse attention (FlashMLA sparse prefill)",
     {"q", "kv", "indices", "topk_length", "attn_sink"},
     {"scale", "head_dim_v", "lse_log2", "empty_lse", "out_dtype"},
     &RunSparse,
     &RunSparseFast,
     &RunSparseLowprec},
    {"gemm",
     "D = A B^T for f32/f16/bf16 operands",
     {"a", "b"},
     {"out_dtype"},
     &RunGemm,
     &RunGemmFast,
     &RunGemmLowprec},
    {"fp8_gemm",
     "DeepGEMM block-scaled FP8 GEMM (plain, contiguous, masked)",
     {"a", "sa", "b", "sb", "m_indices", "masked_m"},
     {"out_dtype"},
     &RunFp8Gemm,
     &RunFp8GemmFast,
     &RunFp8GemmLowprec},
    {"fp8_quant",
     "DeepGEMM per-token / per-block FP8 quantisation",
     {"x"},
     {"granularity", "ue8m0", "out_dtype"},
     &RunFp8Quant,
     &RunFp8QuantFast},
    {"fp8_dequant",
     "fp8 data times its per-token / per-block scales",
     {"data", "scales"},
     {"granularity", "out_dtype"},
     &RunFp8Dequant,
     &RunFp8DequantFast},
};

}  // namespace

std::span<const ReferenceOp> ReferenceOps() { return kOps; }

const ReferenceOp* FindReferenceOp(std::string_view name) {
  for (const ReferenceOp& op : kOps)
    if (op.name == name) return &op;
  return nullptr;
}

std::string DescribeFastKernels(const RefImpl& impl) {
  const FastOptions attention = FastAttentionFrom(impl);
  FastOptions others = attention;
  others.tiles = TilePath::kOff;
  const std::string tiles = DescribeAttentionKernel(attention);
  const std::string fma = DescribeAttentionKernel(others);
  return "attention float64: " +
         (tiles == fma ? fma : tiles + " (bf16 inputs), " + fma + " (others)") +
         "; fp8_gemm: " + DescribeFp8GemmKernel(FastFrom(impl));
}

Result<NamedTensors> RunReferenceOp(std::string_view name, const NamedTensors& inputs,
                                    const OpParams& params, const RefImpl& impl) {
  const ReferenceOp* op = FindReferenceOp(name);
  if (op == nullptr) {
    std::string list;
    for (const ReferenceOp& o : kOps) list += (list.empty() ? "" : ", ") + std::string(o.name);
    return InvalidInput("unknown reference op \"" + std::string(name) + "\" (ops: " + list + ")");
  }
  const std::string op_name(op->name);
  for (const auto& [n, t] : inputs) {
    if (op->inputs.count(n)) continue;
    std::string list;
    for (const auto& i : op->inputs) list += (list.empty() ? "" : ", ") + i;
    return InvalidInput("input tensor \"" + n + "\" is not read by " + op_name +
                        " (it reads: " + list + ")");
  }
  AV_RETURN_IF_ERROR(params.CheckOnly(op->params, op_name));
  std::string dtype_name = params.String("out_dtype", "f64");
  std::optional<DType> out_dtype = ParseDTypeName(dtype_name);
  if (!out_dtype || !IsFloatingPoint(*out_dtype)) {
    return InvalidInput(
        "parameter out_dtype: expected a floating dtype (f64, f32, bf16, ...), "
        "got \"" +
        dtype_name + "\"");
  }
  Result<NamedTensors> out = Unsupported("");
  if (impl.kind == ImplKind::kOracle) {
    out = op->run(inputs, params);
  } else {
    const bool fast = impl.kind == ImplKind::kFast;
    RunImplFn fn = fast ? op->run_fast : op->run_lowprec;
    if (fn == nullptr) {
      return Unsupported(op_name + ": --impl " + (fast ? "fast" : "lowprec") +
                         " is not built for this op yet; use --impl oracle");
    }
    out = fn(inputs, params, impl);
  }
  if (!out.ok()) return out.status().WithContext(op_name);
  for (auto& [n, t] : *out) {
    // The fast paths return float32 results; they follow out_dtype like float64 ones —
    // except fp8_quant's scales, float32 by definition (the oracle's too).
    const bool fast_result =
        impl.kind == ImplKind::kFast && t.dtype() == DType::kF32 && op_name != "fp8_quant";
    const bool keep = fast_result && impl.keep_f32_results && !params.Has("out_dtype");
    const bool convert = t.dtype() == DType::kF64 || (fast_result && !keep);
    if (convert && t.dtype() != *out_dtype) t = ConvertTensor(t, *out_dtype);
  }
  return out;
}

}  // namespace av
