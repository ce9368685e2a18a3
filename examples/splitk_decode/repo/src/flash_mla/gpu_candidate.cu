// The real split-k decode kernel (splitk_decode.cu) as an attnverify candidate, and a
// benchmark for `attnverify profile --run` (scripts/gpu-check builds and runs both on a
// GPU host; doc/formats/candidate-protocol.md):
//
//     gpu_candidate WORK/cases.json        every case: inputs to the device, the kernel
//                                          (and the combine when it splits), outputs back
//     gpu_candidate --bench [B S_K H_Q S_Q ITERS]
//                                          one decode shape (default 16 4096 128 1, 20
//                                          iterations) on made-up inputs, for ncu
//
// The kernel source is compiled into this program (#include below), so whatever state
// splitk_decode.cu is in (the refactor, the fix) is what runs. Host code is plain C++17:
// the GPU box need not have nlohmann/json, so case.json and the safetensors headers are
// read by the small JSON reader below.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "splitk_decode.cu"

using namespace flash_mla;

namespace {

// ---- JSON (what case.json, cases.json and a safetensors header hold) ----------------

struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;

  const Json* Find(const std::string& key) const {
    for (const auto& kv : obj) {
      if (kv.first == key) return &kv.second;
    }
    return nullptr;
  }
  const Json& At(const std::string& key) const {
    const Json* j = Find(key);
    if (!j) throw std::runtime_error("no \"" + key + "\"");
    return *j;
  }
  std::string Str(const std::string& key, const std::string& fallback) const {
    const Json* j = Find(key);
    return j && j->kind == kString ? j->str : fallback;
  }
  int64_t Int() const {
    if (kind != kNumber || num != std::floor(num)) throw std::runtime_error("expected an integer");
    return static_cast<int64_t>(num);
  }
  std::vector<int64_t> Ints() const {
    if (kind != kArray) throw std::runtime_error("expected an array of integers");
    std::vector<int64_t> v;
    for (const Json& e : arr) v.push_back(e.Int());
    return v;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}
  Json Parse() {
    Json v = Value(0);
    Space();
    if (i_ != s_.size()) Fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const char* what) const {
    throw std::runtime_error(std::string("JSON: ") + what + " at byte " + std::to_string(i_));
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail("unexpected character");
  }
  Json Value(int depth) {
    if (depth > 64) Fail("nested too deeply");
    Space();
    if (i_ >= s_.size()) Fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Json::kObject;
      if (Eat('}')) return v;
      do {
        Space();
        std::string key = String();
        Expect(':');
        v.obj.emplace_back(std::move(key), Value(depth + 1));
      } while (Eat(','));
      Expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Json::kArray;
      if (Eat(']')) return v;
      do v.arr.push_back(Value(depth + 1));
      while (Eat(','));
      Expect(']');
    } else if (c == '"') {
      v.kind = Json::kString;
      v.str = String();
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 5, "false") == 0) {
      v.kind = Json::kBool;
      v.b = c == 't';
      i_ += v.b ? 4 : 5;
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      v.kind = Json::kNumber;
      v.num = std::strtod(begin, &end);
      if (end == begin) Fail("not a JSON value");
      i_ += static_cast<size_t>(end - begin);
    }
    return v;
  }
  std::string String() {
    if (i_ >= s_.size() || s_[i_] != '"') Fail("expected a string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) Fail("unterminated escape");
      c = s_[i_++];
      switch (c) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {  // case ids and paths are ASCII or raw UTF-8; keep BMP escapes as UTF-8
          if (i_ + 4 > s_.size()) Fail("short \\u escape");
          const unsigned cp = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          }
          break;
        }
        default: out += c;
      }
    }
    if (i_ >= s_.size()) Fail("unterminated string");
    ++i_;
    return out;
  }

  const std::string& s_;
  size_t i_ = 0;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json ReadJson(const std::string& path) {
  const std::string text = ReadFile(path);
  try {
    return JsonReader(text).Parse();
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

// ---- safetensors --------------------------------------------------------------------

struct Tensor {  // one stored tensor and the layout case.json gives it
  std::string dtype;
  std::vector<int64_t> shape, strides;  // logical shape; strides in elements of the storage
  const char* data = nullptr;
  size_t bytes = 0;
};

struct Safetensors {
  std::string bytes;
  Json header;
  size_t data_begin = 0;

  explicit Safetensors(const std::string& path) : bytes(ReadFile(path)) {
    if (bytes.size() < 8) throw std::runtime_error(path + ": shorter than the 8-byte header length");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    if (n > bytes.size() - 8) throw std::runtime_error(path + ": header length past the end of the file");
    header = JsonReader(bytes.substr(8, n)).Parse();
    data_begin = 8 + n;
  }

  Tensor Get(const std::string& name, const Json& layout) const {
    const Json* h = header.Find(name);
    if (!h) throw std::runtime_error("inputs.safetensors has no tensor " + name);
    Tensor t;
    t.dtype = h->Str("dtype", "?");
    const std::vector<int64_t> offsets = h->At("data_offsets").Ints();
    if (offsets.size() != 2 || offsets[0] < 0 || offsets[1] < offsets[0] ||
        data_begin + static_cast<size_t>(offsets[1]) > bytes.size()) {
      throw std::runtime_error("inputs.safetensors: " + name + ": data_offsets outside the file");
    }
    t.data = bytes.data() + data_begin + offsets[0];
    t.bytes = static_cast<size_t>(offsets[1] - offsets[0]);
    const std::vector<int64_t> stored = h->At("shape").Ints();
    t.shape = layout.Find("shape") ? layout.At("shape").Ints() : stored;
    if (layout.Find("strides")) {
      t.strides = layout.At("strides").Ints();
    } else {
      t.strides.assign(stored.size(), 1);
      for (size_t d = stored.size(); d-- > 1;) t.strides[d - 1] = t.strides[d] * stored[d];
    }
    if (t.strides.size() != t.shape.size()) throw std::runtime_error(name + ": strides and shape differ in rank");
    return t;
  }
};

int64_t ElementSize(const std::string& dtype) {
  if (dtype == "BF16") return 2;
  if (dtype == "F32" || dtype == "I32") return 4;
  if (dtype == "I64") return 8;
  throw std::runtime_error("unsupported dtype " + dtype);
}

// The tensor's elements as int32 in logical row-major order (block_table, cache_seqlens).
std::vector<int> Ints32(const Tensor& t) {
  int64_t n = 1;
  for (int64_t d : t.shape) n *= d;
  std::vector<int> out(static_cast<size_t>(n));
  const int64_t es = ElementSize(t.dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (size_t d = t.shape.size(); d-- > 0;) {
      off += (rest % t.shape[d]) * t.strides[d];
      rest /= t.shape[d];
    }
    if ((off + 1) * es > static_cast<int64_t>(t.bytes)) throw std::runtime_error("tensor data shorter than its shape");
    if (t.dtype == "I32") {
      int32_t v;
      std::memcpy(&v, t.data + off * es, 4);
      out[static_cast<size_t>(i)] = v;
    } else if (t.dtype == "I64") {
      int64_t v;
      std::memcpy(&v, t.data + off * es, 8);
      out[static_cast<size_t>(i)] = static_cast<int>(v);
    } else {
      throw std::runtime_error("expected an integer tensor, got " + t.dtype);
    }
  }
  return out;
}

// ---- device memory --------------------------------------------------------------------

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { Check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

std::unique_ptr<DeviceBuffer> Upload(const void* host, size_t bytes) {
  auto d = std::make_unique<DeviceBuffer>(bytes);
  Check(cudaMemcpy(d->p, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  return d;
}

// A bf16 input the kernel reads through its strides: channels contiguous and every other
// stride a multiple of 8 elements (16-byte cp.async chunks), as attnverify's padded layouts
// are. Any other layout is copied into a contiguous one first.
std::unique_ptr<DeviceBuffer> UploadBf16(const Tensor& t, std::vector<int64_t>* strides) {
  if (t.dtype != "BF16") throw std::runtime_error("expected a bf16 tensor, got " + t.dtype);
  bool direct = t.strides.back() == 1;
  for (size_t d = 0; d + 1 < t.strides.size(); ++d) direct = direct && t.strides[d] % 8 == 0;
  if (direct) {
    *strides = t.strides;
    return Upload(t.data, t.bytes);
  }
  int64_t n = 1;
  for (int64_t d : t.shape) n *= d;
  std::vector<uint16_t> packed(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (size_t d = t.shape.size(); d-- > 0;) {
      off += (rest % t.shape[d]) * t.strides[d];
      rest /= t.shape[d];
    }
    if ((off + 1) * 2 > static_cast<int64_t>(t.bytes)) throw std::runtime_error("tensor data shorter than its shape");
    std::memcpy(&packed[static_cast<size_t>(i)], t.data + 2 * off, 2);
  }
  strides->assign(t.shape.size(), 1);
  for (size_t d = t.shape.size(); d-- > 1;) (*strides)[d - 1] = (*strides)[d] * t.shape[d];
  return Upload(packed.data(), packed.size() * 2);
}

// ---- one case -------------------------------------------------------------------------

void WriteSafetensors(const std::string& path, const std::string& o_blob, const Json& o_shape,
                      const std::string& lse_blob, const Json& lse_shape,
                      const std::vector<std::pair<std::string, std::string>>& metadata) {
  auto shape_text = [](const Json& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.arr.size(); ++i) t += (i ? "," : "") + std::to_string(s.arr[i].Int());
    return t + "]";
  };
  std::string header = "{\"__metadata__\":{";
  for (size_t i = 0; i < metadata.size(); ++i) {
    header += (i ? ",\"" : "\"") + metadata[i].first + "\":\"" + metadata[i].second + "\"";
  }
  header += "},\"o\":{\"dtype\":\"BF16\",\"shape\":" + shape_text(o_shape) + ",\"data_offsets\":[0," +
            std::to_string(o_blob.size()) + "]},\"lse\":{\"dtype\":\"F32\",\"shape\":" + shape_text(lse_shape) +
            ",\"data_offsets\":[" + std::to_string(o_blob.size()) + "," +
            std::to_string(o_blob.size() + lse_blob.size()) + "]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;
  out += o_blob;
  out += lse_blob;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f.write(out.data(), static_cast<std::streamsize>(out.size()))) throw std::runtime_error(tmp + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot rename " + tmp);
}

// Case folders are absolute, or relative to the file naming them (a work folder whose
// path is not UTF-8).
std::string Resolve(const std::string& base, const std::string& path) {
  return path.empty() || path[0] == '/' ? path : base + "/" + path;
}

std::string Folder(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
}

std::string DeviceName() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "?";
  std::string name = prop.name;
  for (char& c : name) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  return name + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
}

int RunCase(const std::string& dir) {
  const Json cj = ReadJson(dir + "/case.json");
  const std::string id = cj.Str("id", dir);
  if (cj.Str("op", "") != "mla_decode") throw std::runtime_error(id + ": op " + cj.Str("op", "?") + " is not mla_decode");
  const Json& op_params = cj.At("op_params");
  const Safetensors in(dir + "/" + cj.Str("inputs_file", "inputs.safetensors"));
  const Json& layouts = cj.At("inputs");
  const Tensor q = in.Get("q", layouts.At("q"));
  const Tensor k_cache = in.Get("k_cache", layouts.At("k_cache"));
  const std::vector<int> block_table = Ints32(in.Get("block_table", layouts.At("block_table")));
  const Tensor table_t = in.Get("block_table", layouts.At("block_table"));
  const std::vector<int> seqlens = Ints32(in.Get("cache_seqlens", layouts.At("cache_seqlens")));
  if (q.shape.size() != 4 || k_cache.shape.size() != 4 || table_t.shape.size() != 2) {
    throw std::runtime_error(id + ": q, k_cache and block_table must be 4-, 4- and 2-dimensional");
  }
  const int batch = static_cast<int>(q.shape[0]), s_q = static_cast<int>(q.shape[1]), h_q = static_cast<int>(q.shape[2]);
  const int64_t dv = op_params.Find("head_dim_v") ? std::stoll(op_params.Str("head_dim_v", "512")) : kHeadDimV;
  if (q.shape[3] != kHeadDimK || dv != kHeadDimV || k_cache.shape[1] != kPageSize || k_cache.shape[2] != 1) {
    throw std::runtime_error(id + ": the kernel is built for d 576, dv 512, page 64, h_kv 1");
  }
  if (static_cast<int>(seqlens.size()) != batch || table_t.shape[0] != batch) {
    throw std::runtime_error(id + ": cache_seqlens and block_table must have one row per sequence");
  }
  int max_seqlen_k = 0;
  for (int b = 0; b < batch; ++b) {
    const int64_t pages = (seqlens[static_cast<size_t>(b)] + kPageSize - 1) / kPageSize;
    if (seqlens[static_cast<size_t>(b)] < 0 || pages > table_t.shape[1]) {
      throw std::runtime_error(id + ": a sequence is longer than its block_table row");
    }
    for (int64_t pg = 0; pg < pages; ++pg) {
      const int page = block_table[static_cast<size_t>(b * table_t.shape[1] + pg)];
      if (page < 0 || page >= k_cache.shape[0]) throw std::runtime_error(id + ": block_table names a page outside k_cache");
    }
    max_seqlen_k = std::max(max_seqlen_k, seqlens[static_cast<size_t>(b)]);
  }

  const Json* knobs = cj.Find("knobs");
  const int knob = knobs && knobs->Find("num_splits") ? static_cast<int>(knobs->At("num_splits").Int()) : 0;
  const int num_splits = GetSplitkDecodeNumSplits(batch, s_q, h_q, max_seqlen_k, knob);
  const int rows = s_q * h_q;

  std::vector<int64_t> q_strides, k_strides;
  auto d_q = UploadBf16(q, &q_strides);
  auto d_k = UploadBf16(k_cache, &k_strides);
  auto d_table = Upload(block_table.data(), block_table.size() * sizeof(int));
  auto d_seqlens = Upload(seqlens.data(), seqlens.size() * sizeof(int));
  const size_t o_elems = static_cast<size_t>(batch) * rows * kHeadDimV;
  const size_t lse_elems = static_cast<size_t>(batch) * h_q * s_q;
  DeviceBuffer d_o(o_elems * 2), d_lse(lse_elems * 4);
  const size_t parts = num_splits > 1 ? static_cast<size_t>(batch) * num_splits * rows : 0;
  DeviceBuffer d_o_accum(parts * kHeadDimV * 4), d_lse_accum(parts * 4);

  flash_mla::DecodeParams p{};
  p.q = static_cast<const bf16*>(d_q->p);
  p.q_batch_stride = q_strides[0];
  p.q_seq_stride = q_strides[1];
  p.q_head_stride = q_strides[2];
  p.k_cache = static_cast<const bf16*>(d_k->p);
  p.k_block_stride = k_strides[0];
  p.k_row_stride = k_strides[1];
  p.block_table = static_cast<const int*>(d_table->p);
  p.block_table_stride = static_cast<int>(table_t.shape[1]);
  p.cache_seqlens = static_cast<const int*>(d_seqlens->p);
  p.o = static_cast<bf16*>(d_o.p);
  p.lse = static_cast<float*>(d_lse.p);
  p.o_accum = static_cast<float*>(d_o_accum.p);
  p.lse_accum = static_cast<float*>(d_lse_accum.p);
  p.batch = batch;
  p.s_q = s_q;
  p.h_q = h_q;
  p.num_splits = num_splits;
  p.scale = op_params.Find("scale") ? std::stof(op_params.Str("scale", "0")) : 1.f / std::sqrt(static_cast<float>(kHeadDimK));
  p.causal = op_params.Str("causal", "false") == "true";
  Check(RunSplitkMlaDecode(p, nullptr), "kernel launch");
  Check(cudaDeviceSynchronize(), "kernel run");

  std::string o_blob(o_elems * 2, '\0'), lse_blob(lse_elems * 4, '\0');
  Check(cudaMemcpy(&o_blob[0], d_o.p, o_blob.size(), cudaMemcpyDeviceToHost), "cudaMemcpy o");
  Check(cudaMemcpy(&lse_blob[0], d_lse.p, lse_blob.size(), cudaMemcpyDeviceToHost), "cudaMemcpy lse");
  const Json& outs = cj.At("outputs");
  if (outs.At("o").Str("dtype", "") != "bf16" || outs.At("lse").Str("dtype", "") != "f32") {
    throw std::runtime_error(id + ": the kernel writes o as bf16 and lse as f32");
  }
  const std::string out_dir = Resolve(dir, cj.Str("out_dir", "out"));
  WriteSafetensors(out_dir + "/" + cj.Str("outputs_file", "outputs.safetensors"), o_blob, outs.At("o").At("shape"),
                   lse_blob, outs.At("lse").At("shape"),
                   {{"kernel_path", num_splits == 1 ? "no_split" : "splitk"},
                    {"num_splits", std::to_string(num_splits)},
                    {"num_splits_source", knob > 0 ? "knob" : "scheduler"},
                    {"block_m", std::to_string(kBlockM)},
                    {"block_n", std::to_string(kBlockN)},
                    {"stages", std::to_string(kNumStages)},
                    {"device", DeviceName()}});
  return num_splits;
}

// ---- the benchmark ----------------------------------------------------------------------

int Bench(int batch, int seqlen_k, int h_q, int s_q, int iters) {
  const int pages_per_seq = CeilDiv(seqlen_k, kPageSize), rows = s_q * h_q;
  const int num_pages = batch * pages_per_seq;
  uint64_t state = 0x9e3779b97f4a7c15ull;  // made-up inputs: a fixed xorshift stream in [-1, 1)
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<float>(static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  };
  std::vector<bf16> q(static_cast<size_t>(batch) * rows * kHeadDimK), k(static_cast<size_t>(num_pages) * kPageSize * kHeadDimK);
  for (bf16& x : q) x = __float2bfloat16(next());
  for (bf16& x : k) x = __float2bfloat16(next());
  std::vector<int> table(static_cast<size_t>(num_pages)), seqlens(static_cast<size_t>(batch), seqlen_k);
  for (int i = 0; i < num_pages; ++i) table[static_cast<size_t>(i)] = i;
  const int num_splits = GetSplitkDecodeNumSplits(batch, s_q, h_q, seqlen_k, 0);
  auto d_q = Upload(q.data(), q.size() * 2);
  auto d_k = Upload(k.data(), k.size() * 2);
  auto d_table = Upload(table.data(), table.size() * 4);
  auto d_seqlens = Upload(seqlens.data(), seqlens.size() * 4);
  DeviceBuffer d_o(static_cast<size_t>(batch) * rows * kHeadDimV * 2), d_lse(static_cast<size_t>(batch) * rows * 4);
  const size_t parts = static_cast<size_t>(batch) * num_splits * rows;
  DeviceBuffer d_o_accum(parts * kHeadDimV * 4), d_lse_accum(parts * 4);
  flash_mla::DecodeParams p{};
  p.q = static_cast<const bf16*>(d_q->p);
  p.q_batch_stride = static_cast<int64_t>(rows) * kHeadDimK;
  p.q_seq_stride = static_cast<int64_t>(h_q) * kHeadDimK;
  p.q_head_stride = kHeadDimK;
  p.k_cache = static_cast<const bf16*>(d_k->p);
  p.k_block_stride = static_cast<int64_t>(kPageSize) * kHeadDimK;
  p.k_row_stride = kHeadDimK;
  p.block_table = static_cast<const int*>(d_table->p);
  p.block_table_stride = pages_per_seq;
  p.cache_seqlens = static_cast<const int*>(d_seqlens->p);
  p.o = static_cast<bf16*>(d_o.p);
  p.lse = static_cast<float*>(d_lse.p);
  p.o_accum = static_cast<float*>(d_o_accum.p);
  p.lse_accum = static_cast<float*>(d_lse_accum.p);
  p.batch = batch;
  p.s_q = s_q;
  p.h_q = h_q;
  p.num_splits = num_splits;
  p.scale = 1.f / std::sqrt(static_cast<float>(kHeadDimK));
  p.causal = true;
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&stop), "cudaEventCreate");
  Check(cudaEventRecord(start), "cudaEventRecord");
  for (int i = 0; i < iters; ++i) Check(RunSplitkMlaDecode(p, nullptr), "kernel launch");
  Check(cudaEventRecord(stop), "cudaEventRecord");
  Check(cudaEventSynchronize(stop), "kernel run");
  float ms = 0;
  Check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  std::printf("gpu_candidate --bench: b %d s_k %d h_q %d s_q %d, %d split(s), %d iterations on %s: %.3f us each "
              "(wall clock of the launches, not ncu's)\n",
              batch, seqlen_k, h_q, s_q, num_splits, iters, DeviceName().c_str(), 1000.0 * ms / iters);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--bench") {
    int v[5] = {16, 4096, 128, 1, 20};
    for (int i = 2; i < argc && i < 7; ++i) v[i - 2] = std::atoi(argv[i]);
    if (v[0] < 1 || v[1] < 1 || v[2] < 1 || v[3] < 1 || v[4] < 1) {
      std::fprintf(stderr, "usage: %s --bench [BATCH SEQLEN_K H_Q S_Q ITERS] (all positive)\n", argv[0]);
      return 2;
    }
    try {
      return Bench(v[0], v[1], v[2], v[3], v[4]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpu_candidate --bench: %s\n", e.what());
      return 1;
    }
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CASES_JSON   (attnverify's {cases})\n       %s --bench [B S_K H_Q S_Q ITERS]\n",
                 argv[0], argv[0]);
    return 2;
  }
  Json index;
  try {
    index = ReadJson(argv[1]);
    int devices = 0;
    Check(cudaGetDeviceCount(&devices), "no CUDA device");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_candidate: %s\n", e.what());
    return 1;
  }
  // A case the kernel cannot run gets no output (attnverify fails that case alone).
  int failed = 0;
  const Json* cases = index.Find("cases");
  if (!cases || cases->kind != Json::kArray) {
    std::fprintf(stderr, "gpu_candidate: %s: no \"cases\" array\n", argv[1]);
    return 1;
  }
  for (const Json& c : cases->arr) {
    const std::string dir = Resolve(Folder(argv[1]), c.Str("dir", ""));
    try {
      const int splits = RunCase(dir);
      std::fprintf(stderr, "gpu_candidate: %s: %d split(s)\n", c.Str("id", dir).c_str(), splits);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpu_candidate: %s: %s\n", dir.c_str(), e.what());
      ++failed;
    }
  }
  if (failed > 0) std::fprintf(stderr, "gpu_candidate: %d case(s) without output\n", failed);
  return 0;
}
