#include "sweep/case_constraints.h"

#include <string>

#include "sweep/op_schema.h"

namespace av {
namespace {

constexpr int64_t kMaxInputBytes = int64_t{2} << 30;

// The elements of a case's outputs (o and lse; a GEMM's d), as doubles: the product of
// shapes.json integers overflows int64 before it is refused.
double OutputElements(const CaseSpec& spec, const CaseParams& p) {
  auto n = [&](const char* name) { return static_cast<double>(p.Int(name)); };
  if (spec.op == "gemm" || spec.op == "fp8_gemm") return n("m") * n("n");
  const double dv = p.Int("dv") == 0 ? n("d") : n("dv");
  const double rows = spec.op == "sparse_attention" ? n("s_q") : n("b") * n("s_q");
  return rows * n("h_q") * (dv + 1);
}

}  // namespace

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
    if (spec.op == "gemm" && spec.dtype == DType::kF16 && p.String("generator") == "wide_range") {
      return InvalidInput(
          "generator wide_range needs bf16 or f32: its values lie beyond float16's range");
    }
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

}  // namespace av
