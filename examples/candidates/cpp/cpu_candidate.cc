// A correct CPU candidate for attnverify's default sweeps, in C++ with float32 arithmetic
// the way a GPU kernel does it: attention (batched, varlen, paged, GQA, causal, window,
// softcap), MLA decode as split-k partials + a combine with max subtraction, and DeepGEMM-
// style fp8 GEMM with per-token and per-block scales. Tensor I/O uses attnverify's library.
//
//   cpu_candidate CASES_JSON [--bug NAME]
//
// --bug plants one bug a real kernel has had (the mutants attnverify must catch):
//   causal_top_left     causal mask aligned top-left (j <= i), not bottom-right
//   window_off_by_one   left window edge one key short (j > pos - left)
//   gqa_head_mapping    query head h reads kv head h % h_kv instead of h / (h_q / h_kv)
//   read_past_length    MLA decode reads every key of the last page, past cache_seqlens
//   combine_no_max      split-k combine sums exp(lse_s) without subtracting the max
//   lse_log2            LSE computed in log2 and reported as if natural log
//   splits_bf16         split-k partials rounded to bf16 before the combine
//   gemm_no_tail_n      fp8 GEMM drops the last, partial 128-column tile of n
//   scales_per_128_rows fp8 GEMM applies row 128*(m/128)'s scale to the whole 128-row block
//   heads_over_64       MLA decode: heads past the first 64-head block read q of head h - 64
//   softmax_scale_dv    MLA decode: softmax scale 1/sqrt(dv) (512) instead of 1/sqrt(d) (576)
//   v_wrong_channels    MLA decode: V read from the last 512 key channels, not the first
//   page_size_64        the block table is walked as if every page held 64 keys
//   softmax_no_max      attention without a mask skips the max subtraction (exp overflows)
//   alibi_slopes        MLA decode adds ALiBi slopes (a per-head linear bias) to the scores
//   causal_s_q          MLA decode's causal mask written for s_q = 1 (key < seqlen_k)
//   empty_lse_zero      MLA decode: a row with no visible key gives lse 0 instead of +inf
//   partial_block_skipped MLA decode's key loop runs over whole 64-key blocks only
//   window_right_off_by_one right window edge one key short (j < pos + right)
//   varlen_k_offset     varlen attention: sequence b's keys start at cu_seqlens_q[b]
//   gemm_no_tail_k      fp8 GEMM drops the last, partial 128-wide block of k
//   scale_k_block_off   fp8 GEMM reads a's scale of the next k block (off by one, wrapping)
//   sparse_index_clamp  sparse attention clamps indices >= s_kv to s_kv - 1 instead of skipping
//   epilogue_scale_1pct fp8 GEMM's epilogue scales d by 1.01 (a wrong output scale; DeepGEMM's
//   epilogue_scale_3pct   calc_diff alone passes it), epilogue_scale_3pct by 1.03
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tensor/float_convert.h"
#include "tensor/safetensors.h"

namespace {

using av::DType;
using av::Tensor;
using nlohmann::json;

std::string g_bug;
bool Bug(const char* name) { return g_bug == name; }

// Every --bug name (a misspelt one would silently run the correct candidate).
constexpr const char* kBugs[] = {"causal_top_left",
                                 "window_off_by_one",
                                 "gqa_head_mapping",
                                 "read_past_length",
                                 "combine_no_max",
                                 "lse_log2",
                                 "splits_bf16",
                                 "gemm_no_tail_n",
                                 "scales_per_128_rows",
                                 "heads_over_64",
                                 "softmax_scale_dv",
                                 "v_wrong_channels",
                                 "page_size_64",
                                 "softmax_no_max",
                                 "alibi_slopes",
                                 "causal_s_q",
                                 "empty_lse_zero",
                                 "partial_block_skipped",
                                 "window_right_off_by_one",
                                 "varlen_k_offset",
                                 "gemm_no_tail_k",
                                 "scale_k_block_off",
                                 "sparse_index_clamp",
                                 "epilogue_scale_1pct",
                                 "epilogue_scale_3pct"};

bool KnownBug(const std::string& name) {
  for (const char* b : kBugs) {
    if (name == b) return true;
  }
  return false;
}

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// A tensor's values as floats, row-major over its (possibly strided) logical shape.
struct Array {
  std::vector<int64_t> shape;
  std::vector<float> v;
  int64_t dim(int i) const { return shape[i < 0 ? shape.size() + i : i]; }
};

Array ToArray(const Tensor& t) {
  Tensor c = t.Contiguous();
  std::vector<double> tmp(c.numel());
  av::LoadAsDouble(c.dtype(), c.data(), static_cast<int64_t>(c.element_size()), c.numel(),
                   tmp.data());
  return Array{c.shape(), std::vector<float>(tmp.begin(), tmp.end())};
}

struct Case {
  json spec;
  std::map<std::string, Array> in;
  bool Has(const std::string& name) const { return in.count(name) != 0; }
  const Array& At(const std::string& name) const { return in.at(name); }
  double Param(const std::string& key, double fallback) const {
    const json& p = spec["op_params"];
    if (!p.contains(key)) return fallback;
    std::string s = p[key].get<std::string>();
    if (s == "true") return 1;
    if (s == "false") return 0;
    return std::stod(s);
  }
  int Knob(const std::string& key, int fallback) const {
    if (spec.contains("knobs") && spec["knobs"].contains(key)) return spec["knobs"][key].get<int>();
    return fallback;
  }
};

bool LoadCase(const std::string& dir, Case* c, std::string* error) {
  std::ifstream f(dir + "/case.json");
  c->spec = json::parse(f, nullptr, false);
  if (c->spec.is_discarded()) {
    *error = dir + "/case.json: not JSON";
    return false;
  }
  auto file = av::ReadSafetensors(dir + "/" + c->spec["inputs_file"].get<std::string>());
  if (!file.ok()) {
    *error = file.status().message();
    return false;
  }
  for (const auto& [name, tensor] : file->tensors) {
    Tensor view = tensor;
    const json& layout = c->spec["inputs"][name];
    if (layout.contains("storage_shape")) {  // padded rows: the op reads the leading elements
      int last = view.ndim() - 1;
      view = *view.Slice(last, 0, layout["shape"][last].get<int64_t>());
    }
    c->in[name] = ToArray(view);
  }
  return true;
}

float RoundBf16(float x) { return av::BFloat16ToFloat(av::FloatToBFloat16(x)); }

// Softmax over one row of scores (-inf = masked) and P·V; returns lse (ln) or -inf when empty.
// `keys` gives the row index of key j in `v`; `vstride` the distance between kv rows.
// `subtract_max` false: exp(s_j) as it is (a kernel that trusts its scores to be small).
float AttendRow(const std::vector<float>& s, const float* v, const std::vector<int64_t>& key_rows,
                int64_t vstride, int64_t dv, float* o, bool subtract_max = true) {
  float m = kNegInf;
  for (float x : s) m = std::max(m, x);
  std::fill(o, o + dv, 0.0f);
  if (m == kNegInf) return kNegInf;
  if (!subtract_max) m = 0;
  float total = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    if (s[j] == kNegInf) continue;
    float p = std::exp(s[j] - m);
    total += p;
    const float* vr = v + key_rows[j] * vstride;
    for (int64_t c = 0; c < dv; ++c) o[c] += p * vr[c];
  }
  for (int64_t c = 0; c < dv; ++c) o[c] /= total;
  float lse = m + std::log(total);
  return Bug("lse_log2") ? lse / std::log(2.0f) : lse;
}

float Dot(const float* a, const float* b, int64_t n) {
  float acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += a[i] * b[i];
  return acc;
}

// One sequence of attention. q rows [sq, hq, d] at q; keys/values addressed by row index.
void AttendSequence(const Case& c, const float* q, int64_t sq, int64_t hq, int64_t d,
                    const float* k, const float* v, const std::vector<int64_t>& key_rows,
                    int64_t hkv, int64_t dv, float* o, int64_t o_row_stride, float* lse,
                    int64_t lse_head_stride) {
  const int64_t sk = static_cast<int64_t>(key_rows.size());
  const float scale = static_cast<float>(c.Param("scale", 1.0 / std::sqrt(static_cast<double>(d))));
  const bool causal = c.Param("causal", 0) != 0;
  const int64_t left = static_cast<int64_t>(c.Param("window_left", -1));
  int64_t right = static_cast<int64_t>(c.Param("window_right", -1));
  if (causal) right = 0;
  const float softcap = static_cast<float>(c.Param("softcap", 0));
  const int64_t group = hq / hkv;
  const bool unmasked = !causal && left < 0 && right < 0;
  std::vector<float> s(sk);
  for (int64_t i = 0; i < sq; ++i) {
    const int64_t pos = Bug("causal_top_left") ? i : i + sk - sq;
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t g = Bug("gqa_head_mapping") ? h % hkv : h / group;
      for (int64_t j = 0; j < sk; ++j) {
        const bool right_ok =
            Bug("window_right_off_by_one") && right > 0 ? j < pos + right : j <= pos + right;
        bool visible = (right < 0 || right_ok) &&
                       (left < 0 || (Bug("window_off_by_one") ? j > pos - left : j >= pos - left));
        if (!visible) {
          s[j] = kNegInf;
          continue;
        }
        float x = Dot(q + (i * hq + h) * d, k + (key_rows[j] * hkv + g) * d, d) * scale;
        s[j] = softcap > 0 ? softcap * std::tanh(x / softcap) : x;
      }
      lse[h * lse_head_stride + i] =
          AttendRow(s, v + g * dv, key_rows, hkv * dv, dv, o + i * o_row_stride + h * dv,
                    !(Bug("softmax_no_max") && unmasked));
    }
  }
}

std::vector<int64_t> Iota(int64_t n, int64_t start = 0) {
  std::vector<int64_t> r(n);
  for (int64_t i = 0; i < n; ++i) r[i] = start + i;
  return r;
}

// Key rows of sequence b in a paged cache flattened to [blocks * page, ...].
std::vector<int64_t> PagedRows(const Array& table, int64_t b, int64_t n, int64_t page) {
  std::vector<int64_t> rows(n);
  const int64_t width = table.dim(1);
  const int64_t walk = Bug("page_size_64") ? 64 : page;
  for (int64_t t = 0; t < n; ++t)
    rows[t] = static_cast<int64_t>(table.v[b * width + t / walk]) * page + t % walk;
  return rows;
}

std::map<std::string, Array> Attention(const Case& c) {
  const Array& q = c.At("q");
  const bool varlen = c.Has("cu_seqlens_q"), paged = c.Has("block_table");
  const Array& k = paged ? c.At("k_cache") : c.At("k");
  const Array& v = paged ? c.At("v_cache") : c.At("v");
  const int64_t hq = q.dim(-2), d = q.dim(-1), hkv = k.dim(-2), dv = v.dim(-1);
  Array o, lse;
  if (varlen) {
    const Array &cq = c.At("cu_seqlens_q"), &ck = c.At("cu_seqlens_k");
    const int64_t total = q.dim(0);
    o = {{total, hq, dv}, std::vector<float>(total * hq * dv)};
    lse = {{hq, total}, std::vector<float>(hq * total)};
    for (size_t b = 0; b + 1 < cq.v.size(); ++b) {
      const int64_t q0 = static_cast<int64_t>(cq.v[b]), q1 = static_cast<int64_t>(cq.v[b + 1]);
      const int64_t k0 = static_cast<int64_t>(ck.v[b]), k1 = static_cast<int64_t>(ck.v[b + 1]);
      // varlen_k_offset: the keys' start taken from the query offsets (clipped to the tensor).
      const int64_t kstart = Bug("varlen_k_offset") ? std::min(q0, k.dim(0) - (k1 - k0)) : k0;
      AttendSequence(c, q.v.data() + q0 * hq * d, q1 - q0, hq, d, k.v.data(), v.v.data(),
                     Iota(k1 - k0, kstart), hkv, dv, o.v.data() + q0 * hq * dv, hq * dv,
                     lse.v.data() + q0, total);
    }
    return {{"o", o}, {"lse", lse}};
  }
  const int64_t bsz = q.dim(0), sq = q.dim(1);
  o = {{bsz, sq, hq, dv}, std::vector<float>(bsz * sq * hq * dv)};
  lse = {{bsz, hq, sq}, std::vector<float>(bsz * hq * sq)};
  for (int64_t b = 0; b < bsz; ++b) {
    std::vector<int64_t> rows;
    if (paged) {
      rows =
          PagedRows(c.At("block_table"), b, static_cast<int64_t>(c.At("seqlens_k").v[b]), k.dim(1));
    } else {
      const int64_t sk = k.dim(1);
      const int64_t n = c.Has("seqlens_k") ? static_cast<int64_t>(c.At("seqlens_k").v[b]) : sk;
      rows = Iota(n, b * sk);
    }
    AttendSequence(c, q.v.data() + b * sq * hq * d, sq, hq, d, k.v.data(), v.v.data(), rows, hkv,
                   dv, o.v.data() + b * sq * hq * dv, hq * dv, lse.v.data() + b * hq * sq, sq);
  }
  return {{"o", o}, {"lse", lse}};
}

// MLA decode the way FlashMLA runs it: keys split into `splits` ranges of whole 64-key
// blocks, a float32 partial (o_s normalised within the split, lse_s) per split, then a
// combine with max subtraction (FACTS §3). Returns the number of splits used.
int MlaDecode(const Case& c, std::map<std::string, Array>* out) {
  const Array &q = c.At("q"), &kc = c.At("k_cache"), &table = c.At("block_table"),
              &lens = c.At("cache_seqlens");
  const int64_t bsz = q.dim(0), sq = q.dim(1), hq = q.dim(2), d = q.dim(3), page = kc.dim(1);
  const int64_t dv = static_cast<int64_t>(c.Param("head_dim_v", 512));
  const double scale_dim = Bug("softmax_scale_dv") ? dv : d;
  const float scale =
      static_cast<float>(c.Param("scale", 1.0 / std::sqrt(static_cast<double>(scale_dim))));
  const bool causal = c.Param("causal", 0) != 0 && sq > 1;
  const int64_t v_offset = Bug("v_wrong_channels") ? d - dv : 0;  // V = key channels [0, dv)
  int64_t max_len = 0;
  for (float n : lens.v) max_len = std::max<int64_t>(max_len, static_cast<int64_t>(n));
  const int64_t blocks = (max_len + 63) / 64;
  const int splits = static_cast<int>(
      std::max<int64_t>(1, c.Knob("num_splits", static_cast<int>(std::min<int64_t>(4, blocks)))));
  Array o{{bsz, sq, hq, dv}, std::vector<float>(bsz * sq * hq * dv)};
  Array lse{{bsz, hq, sq}, std::vector<float>(bsz * hq * sq)};
  std::vector<float> s, part_o(splits * dv), part_lse(splits);
  for (int64_t b = 0; b < bsz; ++b) {
    const int64_t n = static_cast<int64_t>(lens.v[b]);
    const int64_t readable = Bug("read_past_length") ? (n + page - 1) / page * page : n;
    const std::vector<int64_t> rows = PagedRows(table, b, readable, page);
    const int64_t nblocks = (readable + 63) / 64;
    // partial_block_skipped: keys past the last whole 64-key block are never visited.
    const int64_t end = Bug("partial_block_skipped") ? readable / 64 * 64 : readable;
    for (int64_t i = 0; i < sq; ++i) {
      // The last visible key (causal_s_q: the mask of s_q = 1 for every row).
      const int64_t limit = causal && !Bug("causal_s_q") ? n - sq + i : readable - 1;
      for (int64_t h = 0; h < hq; ++h) {
        const int64_t qh = Bug("heads_over_64") && h >= 64 ? h - 64 : h;
        const float* qr = q.v.data() + ((b * sq + i) * hq + qh) * d;
        // alibi_slopes: 2^(-8 (h + 1) / h_q) per key of distance from the last visible key.
        const float slope =
            Bug("alibi_slopes")
                ? std::exp2(-8.0f * static_cast<float>(h + 1) / static_cast<float>(hq))
                : 0.0f;
        for (int sp = 0; sp < splits; ++sp) {
          const int64_t j0 = std::min(end, nblocks * sp / splits * 64);
          const int64_t j1 = std::min(end, nblocks * (sp + 1) / splits * 64);
          s.assign(j1 - j0, kNegInf);
          std::vector<int64_t> split_rows(rows.begin() + j0, rows.begin() + j1);
          for (int64_t j = j0; j < j1; ++j) {
            if (j <= limit) {
              s[j - j0] = Dot(qr, kc.v.data() + rows[j] * d, d) * scale -
                          slope * static_cast<float>(limit - j);
            }
          }
          part_lse[sp] =
              AttendRow(s, kc.v.data() + v_offset, split_rows, d, dv, part_o.data() + sp * dv);
          if (Bug("splits_bf16") && splits > 1) {
            for (int64_t ch = 0; ch < dv; ++ch)
              part_o[sp * dv + ch] = RoundBf16(part_o[sp * dv + ch]);
          }
        }
        float m = kNegInf;
        for (float l : part_lse) m = std::max(m, l);
        float* orow = o.v.data() + ((b * sq + i) * hq + h) * dv;
        std::fill(orow, orow + dv, 0.0f);
        if (m == kNegInf) {  // no visible key: FlashMLA's o = 0, lse = +inf
          lse.v[(b * hq + h) * sq + i] =
              Bug("empty_lse_zero") ? 0.0f : std::numeric_limits<float>::infinity();
          continue;
        }
        const float shift = Bug("combine_no_max") ? 0.0f : m;
        float total = 0;
        for (int sp = 0; sp < splits; ++sp) total += std::exp(part_lse[sp] - shift);
        for (int sp = 0; sp < splits; ++sp) {
          const float w = std::exp(part_lse[sp] - shift) / total;
          for (int64_t ch = 0; ch < dv; ++ch) orow[ch] += w * part_o[sp * dv + ch];
        }
        lse.v[(b * hq + h) * sq + i] = shift + std::log(total);
      }
    }
  }
  (*out)["o"] = o;
  (*out)["lse"] = lse;
  return splits;
}

// DeepGEMM fp8_gemm_nt: d[m, n] = Σ_k a[m, k]·sa[m, k/128] · b[n, k]·sb[n/128, k/128],
// float32 accumulation per 128-k block, promoted with the block's scales.
Array Fp8Gemm(const Case& c) {
  const Array &a = c.At("a"), &b = c.At("b"), &sa = c.At("sa"), &sb = c.At("sb");
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(0), kb = (k + 127) / 128;
  const int64_t n_end = Bug("gemm_no_tail_n") ? n / 128 * 128 : n;
  const int64_t kb_end = Bug("gemm_no_tail_k") ? k / 128 : kb;
  const float epilogue = Bug("epilogue_scale_1pct") ? 1.01f : Bug("epilogue_scale_3pct") ? 1.03f : 1;
  Array d{{m, n}, std::vector<float>(m * n)};
  for (int64_t i = 0; i < m; ++i) {
    const int64_t scale_row = Bug("scales_per_128_rows") ? i / 128 * 128 : i;
    for (int64_t j = 0; j < n_end; ++j) {
      float acc = 0;
      for (int64_t blk = 0; blk < kb_end; ++blk) {
        float part = 0;
        for (int64_t t = blk * 128; t < std::min(k, (blk + 1) * 128); ++t)
          part += a.v[i * k + t] * b.v[j * k + t];
        const int64_t sblk = Bug("scale_k_block_off") ? (blk + 1) % kb : blk;
        acc += part * sa.v[scale_row * kb + sblk] * sb.v[(j / 128) * kb + blk];
      }
      d.v[i * n + j] = acc * epilogue;
    }
  }
  return d;
}

// FlashMLA sparse decode: each query row attends to its top-k key indices (per kv head);
// indices outside [0, s_kv) are skipped; a row with none gives o = 0, lse = +inf.
std::map<std::string, Array> SparseAttention(const Case& c) {
  const Array &q = c.At("q"), &kv = c.At("kv"), &idx = c.At("indices");
  const int64_t sq = q.dim(0), hq = q.dim(1), d = q.dim(2), s_kv = kv.dim(0), hkv = kv.dim(1),
                topk = idx.dim(2);
  const int64_t dv = static_cast<int64_t>(c.Param("head_dim_v", static_cast<double>(d)));
  const float scale = static_cast<float>(c.Param("scale", 1.0 / std::sqrt(static_cast<double>(d))));
  Array o{{sq, hq, dv}, std::vector<float>(sq * hq * dv)};
  Array lse{{sq, hq}, std::vector<float>(sq * hq)};
  std::vector<float> s;
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < sq; ++i) {
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t g = h / (hq / hkv);
      s.clear();
      rows.clear();
      for (int64_t t = 0; t < topk; ++t) {
        float j = idx.v[(i * hkv + g) * topk + t];
        if (Bug("sparse_index_clamp") && j >= static_cast<float>(s_kv)) j = s_kv - 1;
        if (j < 0 || j >= static_cast<float>(s_kv)) continue;
        rows.push_back(static_cast<int64_t>(j));
        s.push_back(
            Dot(q.v.data() + (i * hq + h) * d, kv.v.data() + (rows.back() * hkv + g) * d, d) *
            scale);
      }
      float l =
          AttendRow(s, kv.v.data() + g * d, rows, hkv * d, dv, o.v.data() + (i * hq + h) * dv);
      lse.v[i * hq + h] = l == kNegInf ? std::numeric_limits<float>::infinity() : l;
    }
  }
  return {{"o", o}, {"lse", lse}};
}

// d[m, n] = a[m, k] · b[n, k]ᵀ with float32 accumulation (bf16/f16 inputs).
Array Gemm(const Case& c) {
  const Array &a = c.At("a"), &b = c.At("b");
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(0);
  Array d{{m, n}, std::vector<float>(m * n)};
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) d.v[i * n + j] = Dot(a.v.data() + i * k, b.v.data() + j * k, k);
  }
  return d;
}

bool SaveOutputs(const Case& c, const std::string& dir, const std::map<std::string, Array>& outputs,
                 const std::map<std::string, std::string>& metadata, std::string* error) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& [name, spec] : c.spec["outputs"].items()) {
    auto it = outputs.find(name);
    if (it == outputs.end()) {
      *error = "no output " + name;
      return false;
    }
    std::optional<DType> dtype = av::ParseDTypeName(spec["dtype"].get<std::string>());
    if (!dtype) {
      *error = "unknown dtype " + spec["dtype"].get<std::string>();
      return false;
    }
    Tensor t = Tensor::Zeros(*dtype, it->second.shape);
    for (int64_t e = 0; e < t.numel(); ++e) {
      av::StoreFromDouble(*dtype, it->second.v[e], t.mutable_data() + e * t.element_size());
    }
    tensors.emplace_back(name, std::move(t));
  }
  std::filesystem::create_directories(dir);
  av::Status st = av::WriteSafetensors(dir + "/outputs.safetensors", tensors, metadata);
  if (!st.ok()) *error = st.message();
  return st.ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cpu_candidate CASES_JSON [--bug NAME]\n");
    return 2;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--bug") g_bug = argv[i + 1];
  }
  if (!g_bug.empty() && !KnownBug(g_bug)) {
    std::fprintf(stderr, "cpu_candidate: unknown --bug %s\n", g_bug.c_str());
    return 2;
  }
  std::ifstream f(argv[1]);
  json index = json::parse(f, nullptr, false);
  if (index.is_discarded() || !index.contains("cases")) {
    std::fprintf(stderr, "cpu_candidate: %s is not a cases.json\n", argv[1]);
    return 2;
  }
  int failed = 0;
  for (const json& entry : index["cases"]) {
    Case c;
    std::string error;
    // "dir" is absolute, or relative to cases.json's folder (a work folder whose path is
    // not UTF-8 cannot be a JSON string); out_dir likewise relative to the case's folder.
    const std::string dir =
        (std::filesystem::path(argv[1]).parent_path() / entry["dir"].get<std::string>()).string();
    if (!LoadCase(dir, &c, &error)) {
      std::fprintf(stderr, "cpu_candidate: %s\n", error.c_str());
      ++failed;
      continue;
    }
    const std::string op = c.spec["op"].get<std::string>();
    std::map<std::string, Array> outputs;
    std::map<std::string, std::string> metadata{{"kernel_path", "cpu_" + op},
                                                {"bug", g_bug.empty() ? "none" : g_bug}};
    if (op == "attention") {
      outputs = Attention(c);
    } else if (op == "mla_decode") {
      int splits = MlaDecode(c, &outputs);
      metadata["kernel_path"] = splits > 1 ? "splitk" : "no_split";
      metadata["num_splits"] = std::to_string(splits);
    } else if (op == "sparse_attention") {
      outputs = SparseAttention(c);
    } else if (op == "fp8_gemm") {
      outputs["d"] = Fp8Gemm(c);
    } else if (op == "gemm") {
      outputs["d"] = Gemm(c);
    } else {
      std::fprintf(stderr, "cpu_candidate: no implementation of op %s (case %s)\n", op.c_str(),
                   c.spec["id"].get<std::string>().c_str());
      ++failed;
      continue;
    }
    const std::string out_dir =
        (std::filesystem::path(dir) / c.spec.value("out_dir", std::string("out"))).string();
    if (!SaveOutputs(c, out_dir, outputs, metadata, &error)) {
      std::fprintf(stderr, "cpu_candidate: %s: %s\n", dir.c_str(), error.c_str());
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}
