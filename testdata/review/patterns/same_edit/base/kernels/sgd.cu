// Synthetic fixture: the same widening made in each functor of two files.
#include <cstdint>

struct SgdFunctor {
  __device__ __forceinline__ void operator()(const int64_t* sizes, float* x, int loc) {
    int n = sizes[loc];
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] *= 2.f;
  }
};

struct Padding {
  float pad0 = 0.f;
  float pad1 = 0.f;
  float pad2 = 0.f;
  float pad3 = 0.f;
  float pad4 = 0.f;
  float pad5 = 0.f;
  float pad6 = 0.f;
  float pad7 = 0.f;
  float pad8 = 0.f;
  float pad9 = 0.f;
  float pad10 = 0.f;
  float pad11 = 0.f;
  float pad12 = 0.f;
  float pad13 = 0.f;
};

struct SgdTailFunctor {
  __device__ __forceinline__ void operator()(const int64_t* sizes, float* x, int loc) {
    int n = sizes[loc];
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] += 1.f;
  }
};
