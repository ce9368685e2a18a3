// The case builder's internals, shared by case_builder.cc (streams, tensors, key lengths,
// page tables, the input family) and case_builder_ops.cc (what each op's case holds).
// Only those two files include it. Pure; one Builder per case, any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sweep/case_builder.h"
#include "sweep/input_gen.h"
#include "sweep/op_schema.h"
#include "sweep/rng.h"

namespace av {
namespace case_builder_internal {

// The key/value side's id (InputFamily without the seed, which the streams take
// apart): "<sweep>.kv.<param>=<value>...<dtype>", or "" for ops with no such side.
std::string KvId(const CaseSpec& spec);

// A GEMM operand's id (InputFamily's for b): "<sweep>.<a|b>.<m|n>=….k=….generator=…",
// then fp8_gemm's ue8m0 or gemm's padded, then the dtype. An operand depends on its own
// rows and k, not on the other operand's rows.
std::string OperandId(const CaseSpec& spec, const std::string& name);

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

}  // namespace case_builder_internal
}  // namespace av
