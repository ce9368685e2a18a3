#include "sweep/rng.h"

#include <cmath>

#include "core/check.h"

namespace av {
namespace {

constexpr double kLn2 = 0.6931471805599453094;
constexpr double kHalfPi = 1.5707963267948966192;
constexpr double kSqrtHalf = 0.7071067811865475244;

// Taylor series on [0, pi/2): 11 terms leave (pi/2)^23/23! < 1e-17.
double SinSeries(double x) {
  double x2 = x * x, term = x, sum = x;
  for (int n = 1; n <= 11; ++n) {
    term = -term * x2 / static_cast<double>((2 * n) * (2 * n + 1));
    sum += term;
  }
  return sum;
}
double CosSeries(double x) {
  double x2 = x * x, term = 1, sum = 1;
  for (int n = 1; n <= 11; ++n) {
    term = -term * x2 / static_cast<double>((2 * n - 1) * (2 * n));
    sum += term;
  }
  return sum;
}

}  // namespace

uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t StreamKey(std::string_view case_id, std::string_view tensor, uint64_t seed) {
  return SplitMix64Mix(Fnv1a64(case_id) ^ SplitMix64Mix(Fnv1a64(tensor) + seed));
}

double DeterministicLog(double x) {
  CHECK(x > 0 && std::isfinite(x)) << "DeterministicLog of " << x;
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2;  // exact
    e -= 1;
  }
  // ln m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716: 11 odd terms reach s^23 < 3e-18.
  double s = (m - 1) / (m + 1), s2 = s * s, power = s, sum = 0;
  for (int n = 0; n < 11; ++n) {
    sum += power / static_cast<double>(2 * n + 1);
    power *= s2;
  }
  return static_cast<double>(e) * kLn2 + 2 * sum;
}

double DeterministicCosTurns(double t) {
  CHECK(t >= 0 && t < 1) << "DeterministicCosTurns of " << t;
  double four_t = 4 * t;  // exact
  int quadrant = static_cast<int>(four_t);
  double x = (four_t - quadrant) * kHalfPi;  // four_t - quadrant is exact
  switch (quadrant) {
    case 0: return CosSeries(x);
    case 1: return -SinSeries(x);
    case 2: return -CosSeries(x);
    default: return SinSeries(x);
  }
}

uint64_t Rng::NextU64() {
  ++counter_;
  return SplitMix64Mix(key_ + counter_ * 0x9e3779b97f4a7c15ULL);
}

double Rng::Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

double Rng::UniformOpenZero() { return static_cast<double>((NextU64() >> 11) + 1) * 0x1.0p-53; }

int64_t Rng::UniformInt(int64_t n) {
  CHECK(n >= 1) << "UniformInt(" << n << ")";
  unsigned __int128 p = static_cast<unsigned __int128>(NextU64()) * static_cast<uint64_t>(n);
  return static_cast<int64_t>(p >> 64);
}

double Rng::Normal() {
  double u1 = UniformOpenZero();
  double u2 = Uniform();
  return std::sqrt(-2 * DeterministicLog(u1)) * DeterministicCosTurns(u2);
}

}  // namespace av
