// The tile registers the bf16 tile kernels program (fast_attention_tiles_impl.h): eight
// tiles of 16 rows x 64 bytes (AMX palette 1), with four operations — load a tile from
// memory (row stride in bytes), store it, zero it, and TDPBF16PS, C += A B where C is
// 16 x 16 float32, A 16 rows x 32 bf16 and B 16 rows of 16 bf16 pairs:
//   C[m][n] += A[m][2k] B[k][2n] + A[m][2k + 1] B[k][2n + 1]   for k < 16.
// Two policies run the same programs: AmxTiles (the instructions; defined only in
// fast_attention_tiles_amx.cc, whose code is compiled for AMX) and EmulatedTiles below,
// portable C++ that gives the instruction's bits (float32 sums in the order measured on
// the hardware, round to nearest even, bf16 denormal inputs read as zero and denormal
// results flushed to zero), so the tile kernels run, and are tested, on any CPU.
// Tile state is per thread (the hardware's and the emulation's alike).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace av {

inline constexpr int kTileRows = 16;
inline constexpr int kTileBytes = 64;  // per row: 16 floats, 32 bf16 or 16 bf16 pairs

// True when this CPU and OS let the process use AMX-TILE and AMX-BF16: CPUID says so, the
// OS enables the tile state in XCR0, and Linux granted the permission to use it
// (arch_prctl ARCH_REQ_XCOMP_PERM, asked once). Thread-safe.
bool CpuHasAmxBf16();

struct EmulatedTiles {

  struct alignas(64) Tile {
    uint8_t bytes[kTileRows][kTileBytes];
  };
  static Tile* Tiles() {
    thread_local Tile tiles[8];
    return tiles;
  }
  static void Configure() {}
  static void Release() {}
  template <int T>
  static void Load(const void* base, int64_t stride) {
    const auto* p = static_cast<const uint8_t*>(base);
    for (int r = 0; r < kTileRows; ++r) std::memcpy(Tiles()[T].bytes[r], p + r * stride, kTileBytes);
  }
  template <int T>
  static void Store(void* base, int64_t stride) {
    auto* p = static_cast<uint8_t*>(base);
    for (int r = 0; r < kTileRows; ++r) std::memcpy(p + r * stride, Tiles()[T].bytes[r], kTileBytes);
  }
  template <int T>
  static void Zero() {
    std::memset(Tiles()[T].bytes, 0, sizeof(Tile));
  }
  // What the hardware does, measured (TileRegistersTest.EmulationMatchesTheHardwareBitwise:
  // 76,800 of 76,800 random elements on an Intel Xeon with AMX, 2026-12-04), which is not
  // the sequential order of Intel's pseudocode: per element, the even channels' products
  // and the odd channels' are summed apart, each in float32 from zero in k order, and
  // then C + (even + odd), every addition rounded to nearest even.
  template <int C, int A, int B>
  static void Dp() {
    Tile& c = Tiles()[C];
    const Tile& a = Tiles()[A];
    const Tile& b = Tiles()[B];
    for (int m = 0; m < kTileRows; ++m) {
      float acc[16];
      std::memcpy(acc, c.bytes[m], sizeof acc);
      for (int n = 0; n < 16; ++n) {
        float sum[2] = {0.0f, 0.0f};
        for (int k = 0; k < 16; ++k) {
          for (int j = 0; j < 2; ++j) {
            const float x = Bf16(a.bytes[m] + 4 * k + 2 * j), y = Bf16(b.bytes[k] + 4 * n + 2 * j);
            sum[j] = FlushDenormal(sum[j] + x * y);
          }
        }
        acc[n] = FlushDenormal(acc[n] + FlushDenormal(sum[0] + sum[1]));
      }
      std::memcpy(c.bytes[m], acc, sizeof acc);
    }
  }

 private:
  // A bf16 read as float, denormals as zero (DAZ).
  static float Bf16(const uint8_t* p) {
    uint16_t b;
    std::memcpy(&b, p, sizeof b);
    if ((b & 0x7f80) == 0) b &= 0x8000;
    return std::bit_cast<float>(uint32_t{b} << 16);
  }
  static float FlushDenormal(float x) {
    const uint32_t u = std::bit_cast<uint32_t>(x);
    return (u & 0x7f800000u) == 0 ? std::bit_cast<float>(u & 0x80000000u) : x;
  }
};

}  // namespace av
