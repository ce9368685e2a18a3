#include "sweep/case_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>  // the softcap parameter as JSON writes a number

#include "sweep/input_gen.h"
#include "sweep/invariance.h"
#include "sweep/op_schema.h"
#include "sweep/rng.h"

namespace av {
namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kMaxInputBytes = int64_t{2} << 30;

// The key/value side's id (InputFamily without the seed, which the streams take
// apart): "<sweep>.kv.<param>=<value>...<dtype>", or "" for ops with no such side.
std::string KvId(const CaseSpec& spec) {
  const bool mla = spec.op == "mla_decode";
  if (!mla && spec.op != "attention") return "";
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return "";
  const CaseParams p(*op, spec.params);
  std::string id = spec.sweep + ".kv";
  auto add = [&id](const char* name, const std::string& value) {
    id += std::string(".") + name + "=" + value;
  };
  for (const char* name : {"b", "s_k", "page_size", "d"}) add(name, std::to_string(p.Int(name)));
  for (const char* name : {"lengths", "generator"}) add(name, p.String(name));
  add("padded", p.Bool("padded") ? "true" : "false");
  if (mla) {
    add("h_kv", std::to_string(p.Int("h_kv")));
  } else {
    // Attention's h_kv 0 follows h_q, and dv 0 follows d: the resolved values key it.
    const int64_t h_kv = p.Int("h_kv") == 0 ? p.Int("h_q") : p.Int("h_kv");
    add("h_kv", std::to_string(h_kv));
    add("dv", std::to_string(p.Int("dv") == 0 ? p.Int("d") : p.Int("dv")));
    add("layout", p.String("layout"));
  }
  return id + "." + std::string(DTypeName(spec.dtype));
}

// A GEMM operand's id (InputFamily's for b): "<sweep>.<a|b>.<m|n>=….k=….generator=…",
// then fp8_gemm's ue8m0 or gemm's padded, then the dtype. An operand depends on its own
// rows and k, not on the other operand's rows.
std::string OperandId(const CaseSpec& spec, const std::string& name) {
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return "";
  const CaseParams p(*op, spec.params);
  const char* rows = name == "a" ? "m" : "n";
  std::string id = spec.sweep + "." + name + "." + rows + "=" + std::to_string(p.Int(rows)) +
                   ".k=" + std::to_string(p.Int("k")) + ".generator=" + p.String("generator");
  const char* flag = spec.op == "fp8_gemm" ? "ue8m0" : "padded";
  id += std::string(".") + flag + "=" + (p.Bool(flag) ? "true" : "false");
  return id + "." + std::string(DTypeName(spec.dtype));
}

// Builds the inputs of one case; members are the case's knobs.
class Builder {
 public:
  Builder(const CaseSpec& spec, SharedInputs* shared)
      : spec_(spec),
        op_(*FindSweepOp(spec.op)),
        p_(op_, spec.params),
        shared_(shared),
        kv_id_(KvId(spec)) {}

  // Builds the case's inputs and outputs through the op's builder below.
  Result<BuiltCase> Build();

  // Phase 1, streams: where each tensor's draws come from.

  // Keyed by the group (the base case's id), so that invariance variants see the base
  // case's inputs (a seed variant: the same shapes with its own seed).
  Rng Stream(const std::string& name) const;

  // The key/value side's streams, keyed by the input family instead (InputFamily) and,
  // once the lengths are drawn, by the lengths too: s_q's floor can raise a length, and
  // then the page table and caches are that case's own.
  Rng KvStream(const std::string& name) const;
  void SetKvLengths(const std::vector<int64_t>& len);

  // Phase 2, tensors: each input or output goes into out_.

  // A tensor's stream and how its values follow from the normal draws.
  struct Source {
    Rng rng;
    GenValues values;
  };

  // A floating input of `dtype` from `src` (sweep/input_gen.h). With `padded`, the
  // stored rows are kRowPadding longer and the padding is NaN. Rows `mask` rejects are
  // NaN (their draws still taken).
  void Float(const std::string& name, DType dtype, const Shape& shape, bool padded, Source src,
             const GenRowMask& mask = nullptr);

  // A tensor shared by the cases whose `id` (an input family's key/value side, or a GEMM
  // operand) is the same: Float's, taken from the run's SharedInputs when there is one,
  // else generated. The key names everything else the bytes depend on.
  Status SharedFloat(const std::string& id, const std::string& name, DType dtype,
                     const Shape& shape, bool padded, const std::function<Source()>& src,
                     const GenRowMask& mask);
  Status KvFloat(const std::string& name, DType dtype, const Shape& shape, bool padded,
                 const std::function<Source()>& src, const GenRowMask& mask);

  // make()'s tensors, through the run's SharedInputs when there is one. The seed goes
  // into the key here: the streams take it apart from their id.
  Result<NamedTensors> Shared(const std::string& key,
                              const std::function<Result<NamedTensors>()>& make);

  void Ints(const std::string& name, const Shape& shape, const std::vector<int64_t>& values);

  void Output(const std::string& name, DType dtype, Shape shape);

  // Phase 3, what the knobs draw: key lengths, values, page tables.

  // Per-sequence key lengths for the `lengths` knob. `cap` bounds each (batched layouts
  // cannot exceed the tensor), `floor` raises them (FlashMLA clips at s_q).
  std::vector<int64_t> KeyLengths(int64_t b, int64_t s_k, int64_t floor, int64_t cap);

  // Values of q-like and k-like tensors for the generator knob.
  Source QValues(const std::string& name);
  // k-like: near_tie makes every key a shared base row plus 1e-3 noise, so the scores
  // of a row differ in the third decimal (softmax close to uniform at large magnitude).
  // `kv`: a key/value-side tensor (KvStream), else the case's own (Stream).
  Source KValues(const std::string& name, int64_t d, bool kv);
  // v-like, on the key/value side: plain normals (1.0 * z is z exactly).
  Source VValues(const std::string& name) { return Source{KvStream(name), GenValues{1.0, {}}}; }

  // A random page table: pages of every sequence are a random permutation of the pool;
  // `spare` extra pages nobody owns. Returns block_table values and the owner of each
  // (page, slot) so the caller can NaN-poison what no sequence reaches.
  struct Pages {
    int64_t num_blocks = 0, max_blocks = 0;
    std::vector<int64_t> table;       // [b, max_blocks]
    std::vector<int64_t> valid_keys;  // per physical page: keys in use (0 = unused)
  };
  Pages PageTable(const std::vector<int64_t>& len, int64_t page);

  // Phase 4, one builder per op (Build picks it).
  Status Attention();

  // MLA decode's key lengths: N(s_k, s_k / 2) draws (lengths = random) raised to s_q,
  // where FlashMLA clips them.
  std::vector<int64_t> MlaKeyLengths();

  // The key the caches of an mla_decode case are drawn and shared by: the family id and
  // its lengths, once s_q has raised them. Draws the lengths only (b normals).
  std::string MlaKvKey();

  Status MlaDecode();
  // DeepGEMM's inputs: float32 operands quantised by the reference's fp8_quant (per
  // token for a, 128x128 blocks for b). Each operand is drawn from its own id
  // (OperandId), so every m of one (n, k) shares b.
  Status Fp8Gemm();
  Status Gemm();
  Status Sparse();

 private:
  const CaseSpec& spec_;
  const SweepOp& op_;
  CaseParams p_;
  SharedInputs* shared_;
  const std::string kv_id_;  // KvId(spec_)
  std::string kv_key_;       // kv_id_ and the lengths, once drawn
  BuiltCase out_;
};

Rng Builder::Stream(const std::string& name) const {
  return Rng(StreamKey(spec_.group_id(), name, spec_.seed, spec_.salt));
}

Rng Builder::KvStream(const std::string& name) const {
  CHECK(!kv_key_.empty()) << "key/value stream " << name << " before the lengths";
  return Rng(StreamKey(kv_key_, name, spec_.seed, spec_.salt));
}

void Builder::SetKvLengths(const std::vector<int64_t>& len) {
  kv_key_ = kv_id_ + ".lengths";
  for (int64_t l : len) kv_key_ += "." + std::to_string(l);
}

void Builder::Float(const std::string& name, DType dtype, const Shape& shape, bool padded,
                    Source src, const GenRowMask& mask) {
  Shape storage = shape;
  if (padded && !storage.empty()) storage.back() += kRowPadding;
  Tensor t = GenerateFloatTensor(src.rng, src.values, dtype, shape, storage, mask);
  out_.file_tensors.emplace_back(name, std::move(t));
  out_.layouts.push_back(InputLayout{name, dtype, shape, storage});
}

Status Builder::SharedFloat(const std::string& id, const std::string& name, DType dtype,
                            const Shape& shape, bool padded, const std::function<Source()>& src,
                            const GenRowMask& mask) {
  Shape storage = shape;
  if (padded && !storage.empty()) storage.back() += kRowPadding;
  auto make = [&]() -> Result<NamedTensors> {
    Source s = src();
    return NamedTensors{{name, GenerateFloatTensor(s.rng, s.values, dtype, shape, storage, mask)}};
  };
  AV_ASSIGN_OR_RETURN(NamedTensors t,
                      Shared(id + "/" + name + "/" + std::string(DTypeName(dtype)) +
                                 ShapeToString(storage) + "/" + ShapeToString(shape),
                             make));
  out_.file_tensors.emplace_back(name, std::move(t.front().second));
  out_.layouts.push_back(InputLayout{name, dtype, shape, storage});
  return Status::Ok();
}

Status Builder::KvFloat(const std::string& name, DType dtype, const Shape& shape, bool padded,
                        const std::function<Source()>& src, const GenRowMask& mask) {
  return SharedFloat(kv_key_, name, dtype, shape, padded, src, mask);
}

Result<NamedTensors> Builder::Shared(const std::string& key,
                                     const std::function<Result<NamedTensors>()>& make) {
  if (shared_ == nullptr) return make();
  return shared_->GetOrMake(key + "/s" + std::to_string(spec_.seed), make);
}

void Builder::Ints(const std::string& name, const Shape& shape,
                   const std::vector<int64_t>& values) {
  Tensor t = Tensor::Zeros(DType::kI32, shape);
  CHECK(static_cast<int64_t>(values.size()) == t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) {
    int32_t v = static_cast<int32_t>(values[static_cast<size_t>(i)]);
    std::memcpy(t.mutable_data() + 4 * i, &v, 4);
  }
  out_.file_tensors.emplace_back(name, std::move(t));
  out_.layouts.push_back(InputLayout{name, DType::kI32, shape, shape});
}

void Builder::Output(const std::string& name, DType dtype, Shape shape) {
  out_.outputs.push_back(ExpectedOutput{name, dtype, std::move(shape)});
}

std::vector<int64_t> Builder::KeyLengths(int64_t b, int64_t s_k, int64_t floor, int64_t cap) {
  std::string mode = p_.String("lengths");
  Rng rng(StreamKey(kv_id_, "lengths", spec_.seed, spec_.salt));
  std::vector<int64_t> len(static_cast<size_t>(b), s_k);
  for (int64_t i = 0; i < b; ++i) {
    int64_t& l = len[static_cast<size_t>(i)];
    if (mode == "random") {
      l = static_cast<int64_t>(
          std::llround(static_cast<double>(s_k) + rng.Normal() * static_cast<double>(s_k) / 2));
      l = std::clamp<int64_t>(l, std::min(floor, cap), cap);
    } else if (mode == "edges") {
      int64_t m = std::max<int64_t>(1, (s_k + 32) / 64);
      l = std::min(cap, std::max<int64_t>(0, 64 * m + (i % 3) - 1));
    } else if (mode == "half_empty") {
      l = (i % 2 == 0) ? 0 : (i == 3 ? std::min<int64_t>(1, s_k) : s_k);
    }
  }
  out_.notes.key_lengths = len;
  SetKvLengths(len);
  return len;
}

Builder::Source Builder::QValues(const std::string& name) {
  std::string gen = p_.String("generator");
  double mul = gen == "large_logits" ? 8.0 : gen == "near_tie" ? 4.0 : 1.0;
  return Source{Stream(name), GenValues{mul, {}}};
}

Builder::Source Builder::KValues(const std::string& name, int64_t d, bool kv) {
  auto stream = [&](const std::string& n) { return kv ? KvStream(n) : Stream(n); };
  std::string gen = p_.String("generator");
  if (gen == "near_tie") {
    std::vector<double> base;
    Rng brng = stream(name + ".base");
    for (int64_t c = 0; c < d; ++c) base.push_back(brng.Normal());
    return Source{stream(name), GenValues{1.0, std::move(base)}};
  }
  double mul = gen == "large_logits" ? 8.0 : 1.0;
  return Source{stream(name), GenValues{mul, {}}};
}

Builder::Pages Builder::PageTable(const std::vector<int64_t>& len, int64_t page) {
  Pages pg;
  int64_t b = static_cast<int64_t>(len.size()), used = 0;
  for (int64_t l : len) {
    int64_t blocks = (l + page - 1) / page;
    used += blocks;
    pg.max_blocks = std::max(pg.max_blocks, blocks);
  }
  pg.max_blocks = std::max<int64_t>(pg.max_blocks, 1);
  pg.num_blocks = used + 2;  // two pages no sequence owns: NaN, must never be read
  Rng rng = KvStream("block_table");
  std::vector<int64_t> perm(static_cast<size_t>(pg.num_blocks));
  for (int64_t i = 0; i < pg.num_blocks; ++i) perm[static_cast<size_t>(i)] = i;
  for (int64_t i = pg.num_blocks - 1; i > 0; --i)
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.UniformInt(i + 1))]);
  pg.table.assign(static_cast<size_t>(b * pg.max_blocks), -1);
  pg.valid_keys.assign(static_cast<size_t>(pg.num_blocks), 0);
  int64_t next = 0;
  for (int64_t i = 0; i < b; ++i) {
    int64_t blocks = (len[static_cast<size_t>(i)] + page - 1) / page;
    for (int64_t j = 0; j < pg.max_blocks; ++j) {
      int64_t& slot = pg.table[static_cast<size_t>(i * pg.max_blocks + j)];
      if (j < blocks) {
        slot = perm[static_cast<size_t>(next++)];
        pg.valid_keys[static_cast<size_t>(slot)] =
            std::min(page, len[static_cast<size_t>(i)] - j * page);
      } else {
        // Sentinels in unused slots: -1 (FlashMLA's padding) or a page that exists but
        // belongs to another sequence, so a kernel that reads past the length gets NaN
        // or someone else's keys, never a plausible answer.
        slot = (j % 2 == 1) ? perm[static_cast<size_t>(pg.num_blocks - 1)] : -1;
      }
    }
  }
  out_.notes.num_blocks = pg.num_blocks;
  return pg;
}

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
  for (auto [name, rows] : {std::pair{"a", m}, std::pair{"b", n}}) {
    const std::string id = OperandId(spec_, name);
    AV_RETURN_IF_ERROR(SharedFloat(
        id, name, spec_.dtype, {rows, k}, p_.Bool("padded"),
        [&] {
          return Source{Rng(StreamKey(id, name, spec_.seed, spec_.salt)), GenValues{1.0, {}}};
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

}  // namespace

std::string InputFamily(const CaseSpec& spec) {
  std::string id = spec.op == "gemm" || spec.op == "fp8_gemm" ? OperandId(spec, "b") : KvId(spec);
  if (id.empty()) return id;
  // s_q raises the key lengths below it, and the caches are keyed by the lengths: cases
  // whose lengths differ have caches of their own (for lengths = half_empty always, and
  // for random lengths of 64 sequences mostly). Sharing them as one family had the work
  // order alternate between a b = 64, s_k = 4096 family's caches, 302 MB each, and
  // generate one for every case.
  if (spec.op == "mla_decode") id = Builder(spec, nullptr).MlaKvKey();
  return id + ".s" + std::to_string(spec.seed);
}

// The elements of a case's outputs (o and lse; a GEMM's d), as doubles: the product of
// shapes.json integers overflows int64 before it is refused.
double OutputElements(const CaseSpec& spec, const CaseParams& p) {
  auto n = [&](const char* name) { return static_cast<double>(p.Int(name)); };
  if (spec.op == "gemm" || spec.op == "fp8_gemm") return n("m") * n("n");
  const double dv = p.Int("dv") == 0 ? n("d") : n("dv");
  const double rows = spec.op == "sparse_attention" ? n("s_q") : n("b") * n("s_q");
  return rows * n("h_q") * (dv + 1);
}

Status CheckCaseConstraints(const CaseSpec& spec) {
  const SweepOp* op = FindSweepOp(spec.op);
  if (op == nullptr) return InvalidInput("unknown op " + spec.op);
  CaseParams p(*op, spec.params);
  double bytes = 0;
  double es = static_cast<double>(DTypeSize(spec.dtype));
  if (spec.op == "attention" || spec.op == "mla_decode" || spec.op == "sparse_attention") {
    int64_t h_q = p.Int("h_q"), h_kv = p.Int("h_kv") == 0 ? h_q : p.Int("h_kv");
    if (h_q % h_kv != 0) {
      return InvalidInput("h_q (" + std::to_string(h_q) + ") must be a multiple of h_kv (" +
                          std::to_string(h_kv) + ")");
    }
    int64_t d = p.Int("d"), dv = p.Int("dv") == 0 ? d : p.Int("dv");
    if (spec.op != "attention" && dv > d) {
      return InvalidInput("dv (" + std::to_string(dv) + ") must not exceed d (" +
                          std::to_string(d) + ")");
    }
    if (spec.op == "sparse_attention") {
      bytes = es * static_cast<double>(p.Int("s_q") * h_q * d + p.Int("s_kv") * h_kv * d);
    } else {
      double keys = 2.0 * static_cast<double>(p.Int("s_k") + 256) * static_cast<double>(p.Int("b"));
      bytes = es * (static_cast<double>(p.Int("b") * p.Int("s_q") * h_q * d) +
                    keys * static_cast<double>(h_kv * (d + dv)));
    }
  } else {
    bytes = 4.0 * static_cast<double>(p.Int("m") + p.Int("n")) * static_cast<double>(p.Int("k"));
  }
  if (bytes > static_cast<double>(kMaxInputBytes)) {
    return InvalidInput("inputs would take about " +
                        std::to_string(static_cast<int64_t>(bytes / (1 << 20))) + " MiB (limit " +
                        std::to_string(kMaxInputBytes >> 20) + " MiB)");
  }
  // Outputs too: gemm m = n = 200000, k = 8 has 12 MB of inputs and 40e9 output elements,
  // which the float64 reference (8 bytes each) cannot hold (an out-of-memory crash, not a
  // verdict). The same limit, counted in the reference's bytes; the largest case of
  // config/shapes.full.json (a 4096 x 32768 GEMM) needs 1024 MiB.
  const double out_bytes = 8.0 * OutputElements(spec, p);
  if (out_bytes > static_cast<double>(kMaxInputBytes)) {
    return InvalidInput(
        "outputs would take about " + std::to_string(static_cast<int64_t>(out_bytes / (1 << 20))) +
        " MiB as the float64 reference (limit " + std::to_string(kMaxInputBytes >> 20) + " MiB)");
  }
  return Status::Ok();
}

Result<BuiltCase> BuildCase(const CaseSpec& spec, SharedInputs* shared) {
  AV_RETURN_IF_ERROR(CheckCaseConstraints(spec));
  AV_ASSIGN_OR_RETURN(BuiltCase built, Builder(spec, shared).Build());
  AV_RETURN_IF_ERROR(ApplyInputVariant(spec, &built));
  return built;
}

Result<NamedTensors> ApplyLayouts(const NamedTensors& stored,
                                  const std::vector<InputLayout>& layouts) {
  NamedTensors out;
  for (const InputLayout& l : layouts) {
    const Tensor* t = nullptr;
    for (const auto& [name, tensor] : stored) {
      if (name == l.name) t = &tensor;
    }
    if (t == nullptr) return InvalidInput("input " + l.name + " is missing from the stored inputs");
    if (t->shape() != l.storage_shape || t->dtype() != l.dtype) {
      return InvalidInput("input " + l.name + " is stored as " +
                          std::string(DTypeName(t->dtype())) + ShapeToString(t->shape()) +
                          ", case.json says " + std::string(DTypeName(l.dtype)) +
                          ShapeToString(l.storage_shape));
    }
    Tensor view = *t;
    if (l.shape != l.storage_shape) {
      AV_ASSIGN_OR_RETURN(view, t->Slice(t->ndim() - 1, 0, l.shape.back()));
    }
    out.emplace_back(l.name, std::move(view));
  }
  return out;
}

}  // namespace av
