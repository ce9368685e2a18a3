// The sweep's random numbers: bit-identical on every machine, compiler and C++ standard
// library, because nothing comes from <random> (whose distributions differ between
// libstdc++ and libc++) or from libm (whose log/cos may differ in the last ulp).
// A stream is SplitMix64 over a counter keyed by (case id, tensor name, seed); uniforms
// take the top 53 bits; normals are Box-Muller with our own log and cos built from
// IEEE-754 +, -, *, / and sqrt only (each correctly rounded, hence reproducible).
// The algorithm is documented in doc/formats/shapes-json.md ("Inputs"); changing it
// changes every generated input, so golden tests pin it (SweepRngTest in sweep_test.cc,
// SweepInputGenTest.GoldenInputBytes... in input_gen_test.cc).
// An Rng is a plain value; use one per thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace av {

// SplitMix64's output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
uint64_t SplitMix64Mix(uint64_t x);
// FNV-1a, 64-bit: stable hash of names into keys.
uint64_t Fnv1a64(std::string_view bytes);
// The key of one tensor's stream: Mix(Fnv1a(case_id) ^ Mix(Fnv1a(tensor) + seed)).
uint64_t StreamKey(std::string_view case_id, std::string_view tensor, uint64_t seed);

// ln(x) for finite x > 0, from frexp and the atanh series (|error| < 2 ulp).
double DeterministicLog(double x);
// cos(2*pi*t) for t in [0, 1), by quadrant and Taylor series (|error| < 2 ulp).
double DeterministicCosTurns(double t);

class Rng {
 public:
  explicit Rng(uint64_t key) : key_(key) {}

  // The i-th output of the stream is Mix(key + (i + 1) * 0x9e3779b97f4a7c15).
  uint64_t NextU64();
  // [0, 1), a multiple of 2^-53.
  double Uniform();
  // (0, 1]: never 0, so log() is finite.
  double UniformOpenZero();
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // [0, n) for n >= 1, by the high half of a 128-bit product (bias < n / 2^64).
  int64_t UniformInt(int64_t n);
  // Standard normal: one Box-Muller draw (the cosine branch) per two uniforms.
  double Normal();
  // out[i] = the i-th of n successive Normal() calls, bit for bit (same draws, same
  // order, same IEEE operations per element), computed in blocks so that the series'
  // divisions of many elements overlap: several times faster than a Normal() loop.
  void Normals(double* out, int64_t n);

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace av
