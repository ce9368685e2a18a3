// The sweep's random numbers: bit-identical on every machine, compiler, C++ standard
// library and instruction set, because nothing comes from <random> (whose distributions
// differ between libstdc++ and libc++) or from libm (whose log/cos may differ in the last
// ulp), and nothing is fused: every value is a fixed sequence of IEEE-754 +, -, *, / and
// sqrt, each correctly rounded.
// A stream is SplitMix64 over a counter keyed by (case id, tensor name, seed, salt): the
// case builder passes the group's id, or for the key/value side the input family's
// (case_builder.h InputFamily). The salt is the run's (numerics.json config.salt): a fresh
// one per run makes every input new bytes, so outputs an earlier run produced cannot be
// served again; salt 0 leaves every key as it was before salts existed. Uniforms take the top 53 bits. Normals come in
// Box-Muller pairs (cosine, then sine) from two consecutive stream outputs, with log, cos
// and sin as fixed polynomials. The generator's name, "av-normal/3", covers both the
// algorithm and the stream keys: /2 had the same normals, keyed every stream by the case. The algorithm and its constants are in doc/formats/shapes-json.md
// ("Inputs"); changing it changes every generated input, so tests pin it: golden values
// (SweepRngTest in rng_test.cc, input hashes in input_gen_test.cc) and an independent
// numpy implementation of the documented algorithm (testdata/rng/normals.py).
// An Rng is a plain value; use one per thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace av {

// The name of the input generator (normals and stream keys), recorded with every sweep's
// results; `merge` refuses shards of two generators.
inline constexpr const char* kNormalGenerator = "av-normal/3";

// SplitMix64's output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
uint64_t SplitMix64Mix(uint64_t x);
// FNV-1a, 64-bit: stable hash of names into keys.
uint64_t Fnv1a64(std::string_view bytes);
// The key of one tensor's stream:
// Mix(Fnv1a(case_id) ^ Mix(Fnv1a(tensor) + seed) ^ Mix(salt)). Mix(0) = 0, so salt 0 gives
// the unsalted keys (and every golden value pinned before salts existed).
uint64_t StreamKey(std::string_view case_id, std::string_view tensor, uint64_t seed,
                   uint64_t salt = 0);

// Box-Muller pairs p = 0 .. pairs-1 of the stream `key`: out[2p] = r cos(2 pi u2),
// out[2p+1] = r sin(2 pi u2), r = sqrt(-2 ln u1), where u1 in (0, 1] and u2 in [0, 1)
// come from the stream's outputs number counter+2p+1 and counter+2p+2. Vectorised for
// the best instruction set the CPU has; every one gives the same bits.
void NormalPairs(uint64_t key, uint64_t counter, int64_t pairs, double* out);

// For tests: the instruction-set variants of NormalPairs this CPU can run, by name
// ("baseline" always first), and NormalPairs through one of them.
std::vector<std::string_view> NormalPairsVariants();
void NormalPairsWith(std::string_view variant, uint64_t key, uint64_t counter, int64_t pairs,
                     double* out);

class Rng {
 public:
  explicit Rng(uint64_t key) : key_(key) {}

  // The i-th output of the stream is Mix(key + i * 0x9e3779b97f4a7c15), i = 1, 2, ...
  // Every draw other than a normal drops a pending sine half (see Normal()).
  uint64_t NextU64();
  // [0, 1), a multiple of 2^-53.
  double Uniform();
  // (0, 1]: never 0, so log() is finite.
  double UniformOpenZero();
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // [0, n) for n >= 1, by the high half of a 128-bit product (bias < n / 2^64).
  int64_t UniformInt(int64_t n);
  // Standard normal. Normals are drawn in pairs: a draw with no pending value takes the
  // next two stream outputs, returns the pair's cosine half and keeps the sine half
  // pending for the next normal draw.
  double Normal();
  // out[i] = the i-th of n successive Normal() calls, bit for bit, computed in blocks.
  void Normals(double* out, int64_t n);
  // Moves past n normals as n Normal() calls would, without computing the whole pairs.
  void SkipNormals(int64_t n);

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
  bool has_pending_ = false;
  double pending_ = 0;
};

}  // namespace av
