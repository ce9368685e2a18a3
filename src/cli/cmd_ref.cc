// attnverify ref OP --inputs IN.safetensors --out OUT.safetensors: runs one reference op on
// named input tensors and writes its named outputs. Parameters come from the input file's
// __metadata__ (keys the op accepts; others, like "format", are ignored) and from flags,
// which override it. Names, shapes and parameters of every op: doc/ops.md.
// --impl oracle (float64), fast (blocked, --threads N; float64 accumulation for the
// attention ops, float32 for sparse attention and the GEMMs) or lowprec (the f16/bf16
// low-precision reference, --lowprec-dtype; --lowprec-partials for split-k partials).
// Exit 0 on success, 2 for bad input or an implementation an op does not have yet.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/parse.h"
#include "reference/ref_ops.h"
#include "tensor/safetensors.h"

namespace av::cli {
namespace {

std::string RefHelp() {
  std::string help =
      "Run a float64 reference op on named tensors.\n"
      "Parameters: flags below, or the same keys in the input file's __metadata__ (flags win);\n"
      "--param KEY=VALUE sets any key. The output file's __metadata__ records op, impl and\n"
      "every parameter used. Ops (inputs and parameters in doc/ops.md):\n";
  for (const ReferenceOp& op : ReferenceOps()) {
    help += "  " + std::string(op.name) +
            std::string(18 - std::min<size_t>(op.name.size(), 17), ' ') + std::string(op.summary) +
            "\n";
  }
  return help;
}

}  // namespace

int RunRef(std::vector<std::string> args) {
  CLI::App app(RefHelp(), "attnverify ref");
  std::string op_name, inputs_path, out_path, impl = "oracle";
  std::vector<std::string> raw_params;
  std::map<std::string, std::string> flag_params;
  // Each convenience flag is one parameter key.
  struct Flag {
    const char* flag;
    const char* key;
    const char* help;
  };
  const Flag value_flags[] = {
      {"--scale", "scale", "softmax scale (default 1/sqrt(d))"},
      {"--window-left", "window_left",
       "sliding window, keys left of the diagonal (-1 = unbounded)"},
      {"--window-right", "window_right",
       "sliding window, keys right of the diagonal (-1 = unbounded)"},
      {"--softcap", "softcap", "soft cap c: s = c * tanh(s / c) (0 = off)"},
      {"--empty-lse", "empty_lse", "LSE of a row with no visible key: -inf or +inf"},
      {"--head-dim-v", "head_dim_v", "V channels (mla_decode, sparse_attention)"},
      {"--num-sms", "num_sms", "attention_splitk: plan splits with FlashMLA's scheduler"},
      {"--granularity", "granularity", "fp8_quant/fp8_dequant: token or block"},
      {"--out-dtype", "out_dtype", "dtype of floating outputs (default f64)"},
  };
  std::map<std::string, std::string> values;
  app.add_option("OP", op_name, "reference op (see above)")->required();
  app.add_option("--inputs", inputs_path, "safetensors file with the named inputs")->required();
  app.add_option("--out", out_path, "safetensors file to write the outputs to")->required();
  int threads = 0;
  std::string lowprec_dtype = "bf16", lowprec_partials = "f32";
  app.add_option("--impl", impl,
                 "oracle (float64 loops), fast (blocked; float64 accumulation for attention ops, "
                 "float32 for sparse and GEMMs) or lowprec (f16/bf16 as a GPU framework runs it)");
  app.add_option("--threads", threads, "fast/lowprec worker threads (0 = all hardware threads)");
  app.add_option("--lowprec-dtype", lowprec_dtype, "lowprec: bf16 (default) or f16");
  app.add_option("--lowprec-partials", lowprec_partials,
                 "lowprec attention_splitk/combine: dtype of the split-k partials o_accum, f32 "
                 "(default, FlashMLA's float32 o_accum), bf16 or f16");
  for (const Flag& f : value_flags) app.add_option(f.flag, values[f.key], f.help);
  bool causal = false, lse_log2 = false, ue8m0 = false;
  auto* causal_flag = app.add_flag("--causal", causal, "bottom-right aligned causal mask");
  auto* log2_flag = app.add_flag("--lse-log2", lse_log2, "report lse in log2 units");
  auto* ue8m0_flag = app.add_flag("--ue8m0", ue8m0, "fp8_quant: power-of-two scales");
  app.add_option("--param", raw_params, "KEY=VALUE, any parameter (repeatable)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  RefImpl ref_impl;
  ref_impl.threads = threads;
  if (impl == "fast") {
    ref_impl.kind = ImplKind::kFast;
  } else if (impl == "lowprec") {
    ref_impl.kind = ImplKind::kLowprec;
  } else if (impl != "oracle") {
    return ReportError(
        InvalidInput("ref: unknown --impl \"" + impl + "\" (oracle, fast, lowprec)"));
  }
  if (threads < 0) return ReportError(InvalidInput("ref: --threads must be >= 0"));
  if (lowprec_dtype == "bf16") {
    ref_impl.lowprec_dtype = DType::kBF16;
  } else if (lowprec_dtype == "f16") {
    ref_impl.lowprec_dtype = DType::kF16;
  } else {
    return ReportError(
        InvalidInput("ref: --lowprec-dtype must be bf16 or f16, got \"" + lowprec_dtype + "\""));
  }
  if (lowprec_partials == "f32") {
    ref_impl.lowprec_partials = DType::kF32;
  } else if (lowprec_partials == "bf16") {
    ref_impl.lowprec_partials = DType::kBF16;
  } else if (lowprec_partials == "f16") {
    ref_impl.lowprec_partials = DType::kF16;
  } else {
    return ReportError(InvalidInput("ref: --lowprec-partials must be f32, bf16 or f16, got \"" +
                                    lowprec_partials + "\""));
  }
  const ReferenceOp* op = FindReferenceOp(op_name);
  if (op == nullptr) return ReportError(RunReferenceOp(op_name, {}, OpParams()).status());

  Result<SafetensorsFile> file = ReadSafetensors(inputs_path);
  if (!file.ok()) return ReportError(file.status());
  OpParams params;
  for (const auto& [key, value] : file->metadata) {
    if (op->params.count(key)) params.Set(key, value);  // e.g. "format": "pt" is not ours
  }
  for (const auto& [key, value] : values)
    if (!value.empty()) params.Set(key, value);
  if (*causal_flag) params.Set("causal", causal ? "true" : "false");
  if (*log2_flag) params.Set("lse_log2", lse_log2 ? "true" : "false");
  if (*ue8m0_flag) params.Set("ue8m0", ue8m0 ? "true" : "false");
  for (const std::string& kv : raw_params) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ReportError(InvalidInput("ref: --param expects KEY=VALUE, got \"" + kv + "\""));
    }
    params.Set(kv.substr(0, eq), kv.substr(eq + 1));
  }

  Result<NamedTensors> out = RunReferenceOp(op_name, file->tensors, params, ref_impl);
  if (!out.ok()) return ReportError(out.status().WithContext(inputs_path));
  std::map<std::string, std::string> metadata = params.values();
  metadata["op"] = op_name;
  metadata["impl"] = impl;
  if (ref_impl.kind == ImplKind::kLowprec) {
    metadata["lowprec_dtype"] = lowprec_dtype;
    if (op_name == "attention_splitk" || op_name == "combine") {
      metadata["lowprec_partials"] = lowprec_partials;
    }
  }
  Status st = WriteSafetensors(out_path, *out, metadata);
  if (!st.ok()) return ReportError(st);
  std::printf("ref %s: wrote", op_name.c_str());
  for (const auto& [name, t] : *out) {
    std::printf(" %s%s", name.c_str(), ShapeToString(t.shape()).c_str());
  }
  std::printf(" to %s\n", out_path.c_str());
  return kExitOk;
}

}  // namespace av::cli
