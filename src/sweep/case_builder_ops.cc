// What each op's case holds: one Builder method per op (doc/formats/shapes-json.md), and
// Build, which picks it.

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>  // the softcap parameter as JSON writes a number

#include "reference/ref_ops.h"
#include "sweep/case_builder_internal.h"

namespace av {
namespace case_builder_internal {

using nlohmann::json;

Status Builder::Attention() {
  int64_t b = p_.Int("b"), s_q = p_.Int("s_q"), s_k = p_.Int("s_k"), h_q = p_.Int("h_q");
  int64_t h_kv = p_.Int("h_kv") == 0 ? h_q : p_.Int("h_kv"), d = p_.Int("d");
  int64_t dv = p_.Int("dv") == 0 ? d : p_.Int("dv");
  std::string layout = p_.String("layout");
  bool padded = p_.Bool("padded");
  DType dt = spec_.dtype;
  bool full = p_.String("lengths") == "full";
  out_.op_params.Set("causal", p_.Bool("causal") ? "true" : "false");
  out_.op_params.Set("window_left", std::to_string(p_.Int("window_left")));
  out_.op_params.Set("window_right", std::to_string(p_.Int("window_right")));
  if (p_.Double("softcap") > 0) out_.op_params.Set("softcap", json(p_.Double("softcap")).dump());
  auto q = QValues("q");
  if (layout == "varlen") {
    std::vector<int64_t> klen = KeyLengths(b, s_k, 0, 2 * s_k);
    std::vector<int64_t> qlen(static_cast<size_t>(b), s_q);
    if (p_.String("lengths") == "random") {
      Rng rng = Stream("q_lengths");
      for (auto& l : qlen) {
        l = std::clamp<int64_t>(
            std::llround(static_cast<double>(s_q) + rng.Normal() * static_cast<double>(s_q) / 2), 0,
            2 * s_q);
      }
    }
    out_.notes.query_lengths = qlen;
    std::vector<int64_t> cq{0}, ck{0};
    for (int64_t i = 0; i < b; ++i) {
      cq.push_back(cq.back() + qlen[static_cast<size_t>(i)]);
      ck.push_back(ck.back() + klen[static_cast<size_t>(i)]);
    }
    Float("q", dt, {cq.back(), h_q, d}, padded, q);
    AV_RETURN_IF_ERROR(KvFloat(
        "k", dt, {ck.back(), h_kv, d}, padded, [&] { return KValues("k", d, true); }, nullptr));
    AV_RETURN_IF_ERROR(KvFloat(
        "v", dt, {ck.back(), h_kv, dv}, padded, [&] { return VValues("v"); }, nullptr));
    Ints("cu_seqlens_q", {b + 1}, cq);
    Ints("cu_seqlens_k", {b + 1}, ck);
    Output("o", dt, {cq.back(), h_q, dv});
    Output("lse", DType::kF32, {h_q, cq.back()});
    return Status::Ok();
  }
  Float("q", dt, {b, s_q, h_q, d}, padded, q);
  if (layout == "batched") {
    std::vector<int64_t> klen =
        full ? std::vector<int64_t>(static_cast<size_t>(b), s_k) : KeyLengths(b, s_k, 0, s_k);
    SetKvLengths(klen);
    // Keys past a sequence's length are NaN: a kernel that ignores seqlens_k reads them.
    GenRowMask in_length = [&klen](int64_t i0, int64_t i1) {
      return i1 < klen[static_cast<size_t>(i0)];
    };
    AV_RETURN_IF_ERROR(KvFloat(
        "k", dt, {b, s_k, h_kv, d}, padded, [&] { return KValues("k", d, true); }, in_length));
    AV_RETURN_IF_ERROR(KvFloat(
        "v", dt, {b, s_k, h_kv, dv}, padded, [&] { return VValues("v"); }, in_length));
    if (!full) Ints("seqlens_k", {b}, klen);
  } else {  // paged
    int64_t page = p_.Int("page_size");
    std::vector<int64_t> klen = KeyLengths(b, s_k, 0, 2 * s_k);
    if (full) klen.assign(static_cast<size_t>(b), s_k);
    SetKvLengths(klen);
    Pages pg = PageTable(klen, page);
    GenRowMask in_page = [&pg](int64_t i0, int64_t i1) {
      return i1 < pg.valid_keys[static_cast<size_t>(i0)];
    };
    AV_RETURN_IF_ERROR(KvFloat(
        "k_cache", dt, {pg.num_blocks, page, h_kv, d}, padded,
        [&] { return KValues("k_cache", d, true); }, in_page));
    AV_RETURN_IF_ERROR(KvFloat(
        "v_cache", dt, {pg.num_blocks, page, h_kv, dv}, padded, [&] { return VValues("v_cache"); },
        in_page));
    Ints("block_table", {b, pg.max_blocks}, pg.table);
    Ints("seqlens_k", {b}, klen);
  }
  Output("o", dt, {b, s_q, h_q, dv});
  Output("lse", DType::kF32, {b, h_q, s_q});
  return Status::Ok();
}

std::vector<int64_t> Builder::MlaKeyLengths() {
  const int64_t s_q = p_.Int("s_q"), s_k = p_.Int("s_k");
  return KeyLengths(p_.Int("b"), s_k, s_q, std::max<int64_t>(2 * s_k, s_q));
}

std::string Builder::MlaKvKey() {
  MlaKeyLengths();
  return kv_key_;
}

Status Builder::MlaDecode() {
  int64_t b = p_.Int("b"), s_q = p_.Int("s_q"), h_q = p_.Int("h_q");
  int64_t h_kv = p_.Int("h_kv"), d = p_.Int("d"), dv = p_.Int("dv"), page = p_.Int("page_size");
  DType dt = spec_.dtype;
  out_.op_params.Set("causal", p_.Bool("causal") ? "true" : "false");
  out_.op_params.Set("head_dim_v", std::to_string(dv));
  std::vector<int64_t> klen = MlaKeyLengths();
  Pages pg = PageTable(klen, page);
  Float("q", dt, {b, s_q, h_q, d}, p_.Bool("padded"), QValues("q"));
  GenRowMask in_page = [&pg](int64_t i0, int64_t i1) {
    return i1 < pg.valid_keys[static_cast<size_t>(i0)];
  };
  AV_RETURN_IF_ERROR(KvFloat(
      "k_cache", dt, {pg.num_blocks, page, h_kv, d}, p_.Bool("padded"),
      [&] { return KValues("k_cache", d, true); }, in_page));
  Ints("block_table", {b, pg.max_blocks}, pg.table);
  Ints("cache_seqlens", {b}, klen);
  Output("o", dt, {b, s_q, h_q, dv});
  Output("lse", DType::kF32, {b, h_q, s_q});
  return Status::Ok();
}

Status Builder::Fp8Gemm() {
  const int64_t k = p_.Int("k");
  const bool saturating = p_.String("generator") == "fp8_saturating";
  for (const char* name : {"a", "b"}) {
    const bool is_a = name[0] == 'a';
    const int64_t rows = p_.Int(is_a ? "m" : "n");
    const std::string id = OperandId(spec_, name), scale_name = is_a ? "sa" : "sb";
    auto make = [&]() -> Result<NamedTensors> {
      const Tensor x = GenerateGemmOperand(Rng(StreamKey(id, name, spec_.seed, spec_.salt)), rows,
                                           k, saturating);
      OpParams qp;
      qp.Set("granularity", is_a ? "token" : "block");
      qp.Set("ue8m0", p_.Bool("ue8m0") ? "true" : "false");
      // The fast recipe: the oracle's bytes (fp8_quant_fast_test.cc), on every thread.
      return RunReferenceOp("fp8_quant", {{"x", x}}, qp, RefImpl{ImplKind::kFast});
    };
    AV_ASSIGN_OR_RETURN(NamedTensors q, Shared(id + "/quantised", make));
    for (auto& [qname, t] : q) {
      std::string as = qname == "data" ? std::string(name) : scale_name;
      out_.layouts.push_back(InputLayout{as, t.dtype(), t.shape(), t.shape()});
      out_.file_tensors.emplace_back(as, t);
    }
  }
  Output("d", DType::kBF16, {p_.Int("m"), p_.Int("n")});
  return Status::Ok();
}

Status Builder::Gemm() {
  int64_t m = p_.Int("m"), n = p_.Int("n"), k = p_.Int("k");
  // wide_range: operands scaled by 2^16, so about a third of them lie beyond float16's
  // largest value (65,504) and every product beyond it; a power of two keeps each value's
  // mantissa that of randn's. A kernel that converts to or computes in float16 gives inf.
  const double mul = p_.String("generator") == "wide_range" ? 65536.0 : 1.0;
  for (auto [name, rows] : {std::pair{"a", m}, std::pair{"b", n}}) {
    const std::string id = OperandId(spec_, name);
    AV_RETURN_IF_ERROR(SharedFloat(
        id, name, spec_.dtype, {rows, k}, p_.Bool("padded"),
        [&] {
          return Source{Rng(StreamKey(id, name, spec_.seed, spec_.salt)), GenValues{mul, {}}};
        },
        nullptr));
  }
  Output("d", spec_.dtype, {m, n});
  return Status::Ok();
}

Status Builder::Sparse() {
  int64_t s_q = p_.Int("s_q"), s_kv = p_.Int("s_kv"), h_q = p_.Int("h_q"), h_kv = p_.Int("h_kv");
  int64_t d = p_.Int("d"), dv = p_.Int("dv") == 0 ? d : p_.Int("dv"), topk = p_.Int("topk");
  out_.op_params.Set("head_dim_v", std::to_string(dv));
  Float("q", spec_.dtype, {s_q, h_q, d}, false, QValues("q"));
  Float("kv", spec_.dtype, {s_kv, h_kv, d}, false, KValues("kv", d, false));
  std::string mode = p_.String("indices");
  Rng rng = Stream("indices");
  std::vector<int64_t> idx(static_cast<size_t>(s_q * h_kv * topk));
  const int64_t kInvalid[] = {-1, std::numeric_limits<int32_t>::max(), -7, s_kv, s_kv + 5};
  for (auto& v : idx) {
    if (mode == "all_invalid") {
      v = -1;
    } else if (mode == "mixed" && rng.UniformInt(2) == 0) {
      v = kInvalid[rng.UniformInt(5)];
    } else {
      v = rng.UniformInt(s_kv);
    }
  }
  Ints("indices", {s_q, h_kv, topk}, idx);
  Output("o", spec_.dtype, {s_q, h_q, dv});
  Output("lse", DType::kF32, {s_q, h_q});
  return Status::Ok();
}

Result<BuiltCase> Builder::Build() {
  Status st;
  if (spec_.op == "attention")
    st = Attention();
  else if (spec_.op == "mla_decode")
    st = MlaDecode();
  else if (spec_.op == "fp8_gemm")
    st = Fp8Gemm();
  else if (spec_.op == "gemm")
    st = Gemm();
  else if (spec_.op == "sparse_attention")
    st = Sparse();
  else
    st = Internal("no input builder for op " + spec_.op);
  if (!st.ok()) return st;
  return std::move(out_);
}

}  // namespace case_builder_internal
}  // namespace av
