#include "sweep/case_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sweep/case_builder_internal.h"
#include "sweep/case_constraints.h"
#include "sweep/invariance.h"

namespace av {
namespace case_builder_internal {

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

}  // namespace case_builder_internal

using case_builder_internal::Builder;
using case_builder_internal::KvId;
using case_builder_internal::OperandId;

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
