// CPU twin of splitk_decode.cu: the same tiles (kBlockM x kBlockN), the same split
// scheduler and causal mask (splitk_decode.h), float32 arithmetic in the kernel's order
// (per-lane partial sums reduced as the warp shuffles do), float32 split partials and the
// same combine. It is an attnverify candidate (doc/formats/candidate-protocol.md):
//
//     cpu_twin WORK/cases.json
//
// reads each case's case.json and inputs.safetensors, writes out/outputs.safetensors with
// the kernel path and split count in __metadata__. Standalone C++17 plus nlohmann/json.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "splitk_decode.h"

namespace {

using nlohmann::json;
using namespace flash_mla;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

float Bf16ToFloat(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t FloatToBf16(float f) {  // round to nearest even, NaN stays NaN
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One tensor of a safetensors file, addressed with case.json's strides (padded rows).
struct View {
  std::string dtype;
  std::vector<int64_t> shape, strides;
  const char* data = nullptr;

  int64_t Offset(std::initializer_list<int64_t> idx) const {
    int64_t off = 0, d = 0;
    for (int64_t i : idx) off += i * strides[static_cast<size_t>(d++)];
    return off;
  }
  float Float(std::initializer_list<int64_t> idx) const {
    const int64_t off = Offset(idx);
    if (dtype == "BF16") {
      uint16_t h;
      std::memcpy(&h, data + 2 * off, 2);
      return Bf16ToFloat(h);
    }
    if (dtype == "F32") {
      float f;
      std::memcpy(&f, data + 4 * off, 4);
      return f;
    }
    throw std::runtime_error("unsupported floating dtype " + dtype);
  }
  int64_t Int(std::initializer_list<int64_t> idx) const {
    const int64_t off = Offset(idx);
    if (dtype == "I32") {
      int32_t v;
      std::memcpy(&v, data + 4 * off, 4);
      return v;
    }
    if (dtype == "I64") {
      int64_t v;
      std::memcpy(&v, data + 8 * off, 8);
      return v;
    }
    throw std::runtime_error("unsupported integer dtype " + dtype);
  }
};

// safetensors: 8-byte little-endian header length, JSON header, raw little-endian data.
struct Safetensors {
  std::string bytes;
  json header;
  size_t data_begin = 0;

  explicit Safetensors(const std::string& path) : bytes(ReadFile(path)) {
    uint64_t n = 0;
    if (bytes.size() < 8) throw std::runtime_error(path + ": shorter than the 8-byte header length");
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    if (n > bytes.size() - 8) throw std::runtime_error(path + ": header length past the end of the file");
    header = json::parse(bytes.substr(8, n));
    data_begin = 8 + n;
  }

  // The tensor `name` as case.json lays it out: logical shape, strides of the storage.
  View Get(const std::string& name, const json& layout) const {
    if (!header.contains(name)) throw std::runtime_error("inputs.safetensors has no tensor " + name);
    const json& h = header[name];
    View v;
    v.dtype = h["dtype"].get<std::string>();
    v.data = bytes.data() + data_begin + h["data_offsets"][0].get<size_t>();
    std::vector<int64_t> stored = h["shape"].get<std::vector<int64_t>>();
    v.shape = layout.contains("shape") ? layout["shape"].get<std::vector<int64_t>>() : stored;
    if (layout.contains("strides")) {
      v.strides = layout["strides"].get<std::vector<int64_t>>();
    } else {
      v.strides.assign(stored.size(), 1);
      for (size_t d = stored.size(); d-- > 1;) v.strides[d - 1] = v.strides[d] * stored[d];
    }
    return v;
  }
};

void WriteSafetensors(const std::string& path, const std::vector<std::pair<std::string, json>>& specs,
                      const std::vector<std::string>& blobs, const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  header["__metadata__"] = metadata;
  size_t offset = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    json e = specs[i].second;
    e["data_offsets"] = {offset, offset + blobs[i].size()};
    header[specs[i].first] = e;
    offset += blobs[i].size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  out += text;
  for (const std::string& b : blobs) out += b;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f.write(out.data(), static_cast<std::streamsize>(out.size()))) throw std::runtime_error(tmp + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot rename " + tmp);
}

// One split of one CTA (m-block) of sequence `batch`, exactly as splitk_mla_decode_kernel
// runs it: o_part [kBlockM][512] normalised within the split, lse_part natural log (-inf
// when the split saw no key of the row).
struct Problem {
  View q, k_cache, block_table, cache_seqlens;
  int batch = 0, s_q = 0, h_q = 0;
  float scale = 0;
  bool causal = false;
};

void RunSplit(const Problem& p, int batch, int m_block, int split, int num_splits, std::vector<float>& o_part,
              std::vector<float>& lse_part) {
  const int rows = p.s_q * p.h_q;
  const int seqlen_k = static_cast<int>(p.cache_seqlens.Int({batch}));
  int tile_begin, tile_end;
  SplitTiles(seqlen_k, split, num_splits, &tile_begin, &tile_end);

  std::vector<float> q(static_cast<size_t>(kBlockM) * kHeadDimK, 0.f);  // sQ, zero past the last row
  for (int row = 0; row < kBlockM; ++row) {
    const int r = m_block * kBlockM + row;
    if (r >= rows) continue;
    for (int c = 0; c < kHeadDimK; ++c) q[static_cast<size_t>(row * kHeadDimK + c)] = p.q.Float({batch, r / p.h_q, r % p.h_q, c});
  }
  std::vector<float> row_max(kBlockM, -kInf), row_sum(kBlockM, 0.f);
  std::vector<float> acc(static_cast<size_t>(kBlockM) * kHeadDimV, 0.f);
  std::vector<float> k(static_cast<size_t>(kBlockN) * kHeadDimK);
  const float scale_log2 = p.scale * kLog2e;

  for (int tile = tile_begin; tile < tile_end; ++tile) {
    for (int n = 0; n < kBlockN; ++n) {  // the key tile; keys past seqlen_k are zero-filled
      const int key = tile * kBlockN + n;
      int64_t page = key < seqlen_k ? p.block_table.Int({batch, key / kPageSize}) : -1;
      for (int c = 0; c < kHeadDimK; ++c) {
        k[static_cast<size_t>(n * kHeadDimK + c)] = page >= 0 ? p.k_cache.Float({page, key % kPageSize, 0, c}) : 0.f;
      }
    }
    for (int row = 0; row < kBlockM; ++row) {
      const int r = m_block * kBlockM + row;
      const bool row_valid = r < rows;
      const int q_row = r / p.h_q;
      float s[kBlockN], p_row[kBlockN];
      float tile_max = -kInf;
      for (int n = 0; n < kBlockN; ++n) {
        const int key = tile * kBlockN + n;
        float dot = 0.f;
        for (int c = 0; c < kHeadDimK; ++c) dot += q[static_cast<size_t>(row * kHeadDimK + c)] * k[static_cast<size_t>(n * kHeadDimK + c)];
        const bool visible = row_valid && key < seqlen_k && (!p.causal || CausalKeyVisible(key, q_row, p.s_q, seqlen_k));
        s[n] = visible ? dot * scale_log2 : -kInf;
        tile_max = std::fmax(tile_max, s[n]);
      }
      const float new_max = std::fmax(row_max[static_cast<size_t>(row)], tile_max);
      const float rescale = new_max == -kInf ? 1.f : std::exp2(row_max[static_cast<size_t>(row)] - new_max);
      // Lane l sums keys l, l + 8, ...; the lanes then meet as __shfl_xor_sync 4, 2, 1 adds.
      float lane_sum[kThreadsPerRow] = {};
      for (int n = 0; n < kBlockN; ++n) {
        p_row[n] = s[n] == -kInf ? 0.f : std::exp2(s[n] - new_max);
        lane_sum[n % kThreadsPerRow] += p_row[n];
      }
      for (int off = kThreadsPerRow / 2; off > 0; off /= 2) {
        for (int l = 0; l < off; ++l) lane_sum[l] = lane_sum[l] + lane_sum[l + off];
      }
      row_sum[static_cast<size_t>(row)] = row_sum[static_cast<size_t>(row)] * rescale + lane_sum[0];
      row_max[static_cast<size_t>(row)] = new_max;
      float* a = &acc[static_cast<size_t>(row) * kHeadDimV];
      for (int c = 0; c < kHeadDimV; ++c) a[c] *= rescale;
      for (int n = 0; n < kBlockN; ++n) {
        const float* v = &k[static_cast<size_t>(n * kHeadDimK)];
        for (int c = 0; c < kHeadDimV; ++c) a[c] += p_row[n] * v[c];
      }
    }
  }
  for (int row = 0; row < kBlockM; ++row) {
    const float sum = row_sum[static_cast<size_t>(row)];
    const bool empty = sum == 0.f;
    const float inv_sum = empty ? 0.f : 1.f / sum;
    for (int c = 0; c < kHeadDimV; ++c) {
      o_part[static_cast<size_t>(row) * kHeadDimV + c] = acc[static_cast<size_t>(row) * kHeadDimV + c] * inv_sum;
    }
    lse_part[static_cast<size_t>(row)] = empty ? -kInf : (row_max[static_cast<size_t>(row)] + std::log2(sum)) * kLn2;
  }
}

// attnverify writes case folders as absolute paths, or relative to the file naming them
// when the work folder's path is not UTF-8 (a JSON string cannot hold it).
std::string Resolve(const std::string& base, const std::string& path) {
  return path.empty() || path[0] == '/' ? path : base + "/" + path;
}

std::string Folder(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
}

int RunCase(const std::string& dir) {
  const json cj = json::parse(ReadFile(dir + "/case.json"));
  const std::string id = cj.value("id", dir);
  if (cj.value("op", "") != "mla_decode") throw std::runtime_error(id + ": op " + cj.value("op", "?") + " is not mla_decode");
  const json& op_params = cj["op_params"];
  const Safetensors in(dir + "/" + cj.value("inputs_file", "inputs.safetensors"));
  const json& layouts = cj["inputs"];
  Problem p;
  p.q = in.Get("q", layouts["q"]);
  p.k_cache = in.Get("k_cache", layouts["k_cache"]);
  p.block_table = in.Get("block_table", layouts["block_table"]);
  p.cache_seqlens = in.Get("cache_seqlens", layouts["cache_seqlens"]);
  p.batch = static_cast<int>(p.q.shape[0]);
  p.s_q = static_cast<int>(p.q.shape[1]);
  p.h_q = static_cast<int>(p.q.shape[2]);
  const int64_t dv = op_params.contains("head_dim_v") ? std::stoll(op_params["head_dim_v"].get<std::string>()) : kHeadDimV;
  if (p.q.shape[3] != kHeadDimK || dv != kHeadDimV || p.k_cache.shape[1] != kPageSize || p.k_cache.shape[2] != 1) {
    throw std::runtime_error(id + ": the kernel is built for d 576, dv 512, page 64, h_kv 1");
  }
  p.causal = op_params.value("causal", "false") == "true";
  p.scale = op_params.contains("scale") ? std::stof(op_params["scale"].get<std::string>())
                                        : 1.f / std::sqrt(static_cast<float>(kHeadDimK));

  int max_seqlen_k = 0;
  for (int b = 0; b < p.batch; ++b) max_seqlen_k = std::max(max_seqlen_k, static_cast<int>(p.cache_seqlens.Int({b})));
  const int knob = cj.contains("knobs") && cj["knobs"].contains("num_splits") ? cj["knobs"]["num_splits"].get<int>() : 0;
  const int num_splits = ChooseNumSplits(p.batch, p.s_q, p.h_q, max_seqlen_k, kDefaultNumSms, knob);

  const int rows = p.s_q * p.h_q, m_blocks = CeilDiv(rows, kBlockM);
  std::vector<float> o(static_cast<size_t>(p.batch) * rows * kHeadDimV, 0.f);      // [b, s_q, h_q, 512]
  std::vector<float> lse(static_cast<size_t>(p.batch) * p.h_q * p.s_q, 0.f);       // [b, h_q, s_q]
  std::vector<float> o_part(static_cast<size_t>(kBlockM) * kHeadDimV), lse_part(kBlockM);
  std::vector<float> o_accum(static_cast<size_t>(num_splits) * kBlockM * kHeadDimV), lse_accum(static_cast<size_t>(num_splits) * kBlockM);
  for (int b = 0; b < p.batch; ++b) {
    for (int m = 0; m < m_blocks; ++m) {
      for (int s = 0; s < num_splits; ++s) {
        RunSplit(p, b, m, s, num_splits, o_part, lse_part);
        std::copy(o_part.begin(), o_part.end(), o_accum.begin() + static_cast<int64_t>(s) * kBlockM * kHeadDimV);
        std::copy(lse_part.begin(), lse_part.end(), lse_accum.begin() + static_cast<int64_t>(s) * kBlockM);
      }
      for (int row = 0; row < kBlockM && m * kBlockM + row < rows; ++row) {
        const int r = m * kBlockM + row;
        float* out = &o[(static_cast<size_t>(b) * rows + r) * kHeadDimV];
        float* out_lse = &lse[(static_cast<size_t>(b) * p.h_q + r % p.h_q) * p.s_q + r / p.h_q];
        if (num_splits == 1) {  // the decode kernel writes o and lse itself
          const float l = lse_accum[static_cast<size_t>(row)];
          for (int c = 0; c < kHeadDimV; ++c) out[c] = o_accum[static_cast<size_t>(row) * kHeadDimV + c];
          *out_lse = l == -kInf ? kInf : l;
          continue;
        }
        // splitk_mla_combine_kernel
        float mx = -kInf;
        for (int s = 0; s < num_splits; ++s) mx = std::fmax(mx, lse_accum[static_cast<size_t>(s * kBlockM + row)]);
        float total = kInf;
        if (mx != -kInf) {
          float sum = 0.f;
          for (int s = 0; s < num_splits; ++s) sum += std::exp(lse_accum[static_cast<size_t>(s * kBlockM + row)] - mx);
          total = mx + std::log(sum);
        }
        std::vector<float> weight(static_cast<size_t>(num_splits));
        for (int s = 0; s < num_splits; ++s) {
          const float l = lse_accum[static_cast<size_t>(s * kBlockM + row)];
          weight[static_cast<size_t>(s)] = l == -kInf ? 0.f : std::exp(l - total);
        }
        for (int c = 0; c < kHeadDimV; ++c) {
          float acc = 0.f;
          for (int s = 0; s < num_splits; ++s) {
            if (weight[static_cast<size_t>(s)] != 0.f) {
              acc += weight[static_cast<size_t>(s)] * o_accum[(static_cast<size_t>(s) * kBlockM + row) * kHeadDimV + c];
            }
          }
          out[c] = acc;
        }
        *out_lse = total;
      }
    }
  }

  // o is rounded to bf16 as the kernel stores it; lse stays float32.
  std::string o_blob(o.size() * 2, '\0'), lse_blob(lse.size() * 4, '\0');
  for (size_t i = 0; i < o.size(); ++i) {
    const uint16_t h = FloatToBf16(o[i]);
    std::memcpy(&o_blob[2 * i], &h, 2);
  }
  std::memcpy(&lse_blob[0], lse.data(), lse_blob.size());
  const json& outs = cj["outputs"];
  if (outs["o"]["dtype"] != "bf16" || outs["lse"]["dtype"] != "f32") {
    throw std::runtime_error(id + ": the kernel writes o as bf16 and lse as f32");
  }
  const std::string out_dir = Resolve(dir, cj.value("out_dir", std::string("out")));
  WriteSafetensors(out_dir + "/" + cj.value("outputs_file", "outputs.safetensors"),
                   {{"o", json{{"dtype", "BF16"}, {"shape", outs["o"]["shape"]}}},
                    {"lse", json{{"dtype", "F32"}, {"shape", outs["lse"]["shape"]}}}},
                   {o_blob, lse_blob},
                   {{"kernel_path", num_splits == 1 ? "no_split" : "splitk"},
                    {"num_splits", std::to_string(num_splits)},
                    {"num_splits_source", knob > 0 ? "knob" : "scheduler"},
                    {"block_m", std::to_string(kBlockM)},
                    {"block_n", std::to_string(kBlockN)},
                    {"stages", std::to_string(kNumStages)}});
  return num_splits;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CASES_JSON   (attnverify's {cases})\n", argv[0]);
    return 2;
  }
  json index;
  try {
    index = json::parse(ReadFile(argv[1]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_twin: %s: %s\n", argv[1], e.what());
    return 1;
  }
  // A case the twin cannot run gets no output (attnverify fails that case alone).
  int failed = 0;
  for (const json& c : index["cases"]) {
    const std::string dir = Resolve(Folder(argv[1]), c["dir"].get<std::string>());
    try {
      const int splits = RunCase(dir);
      std::fprintf(stderr, "cpu_twin: %s: %d split(s)\n", c.value("id", dir).c_str(), splits);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cpu_twin: %s: %s\n", dir.c_str(), e.what());
      ++failed;
    }
  }
  if (failed > 0) std::fprintf(stderr, "cpu_twin: %d case(s) without output\n", failed);
  return 0;
}
