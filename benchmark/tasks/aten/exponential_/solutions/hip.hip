// aten/exponential_ in HIP: self[i] = -log(u(seed, i)) / lambd.
//
// Counter-based: u comes from (seed, logical row-major index) through the
// splitmix64 finaliser, so every draw depends on nothing but its position and
// the seed. 24 random bits give u in (0, 1] for the float dtypes (computed in
// float with the accurate logf, rounded once to f16/bf16), 53 bits for f64.
// A row-major self is written with one thread per element along its unit
// stride (coalesced, grid-stride loop); any other view unravels the logical
// index over at most 8 dims.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

__device__ __forceinline__ uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ float draw_float(uint64_t bits, float inv) {
  return -logf(static_cast<float>((bits >> 40) + 1) * 0x1.0p-24f) * inv;
}

// Storage type S per dtype and its draw; f16/bf16 are uint16_t storage
// converted with kgb_half.h.
struct F32 {
  using S = float;
  static __device__ __forceinline__ S at(uint64_t bits, double inv) { return draw_float(bits, static_cast<float>(inv)); }
};
struct F16 {
  using S = uint16_t;
  static __device__ __forceinline__ S at(uint64_t bits, double inv) {
    return kgb_float_to_f16(draw_float(bits, static_cast<float>(inv)));
  }
};
struct BF16 {
  using S = uint16_t;
  static __device__ __forceinline__ S at(uint64_t bits, double inv) {
    return kgb_float_to_bf16(draw_float(bits, static_cast<float>(inv)));
  }
};
struct F64 {
  using S = double;
  static __device__ __forceinline__ S at(uint64_t bits, double inv) {
    return -log(static_cast<double>((bits >> 11) + 1) * 0x1.0p-53) * inv;
  }
};

struct Geometry {
  int rank;
  int64_t size[KGB_MAX_RANK], stride[KGB_MAX_RANK];
};

template <typename K, bool kDense>
__global__ void exponential(typename K::S* __restrict__ self, Geometry g, int64_t n, uint64_t key, double inv) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off = i;
    if (!kDense) {
      off = 0;
      int64_t rest = i;
      for (int d = g.rank - 1; d >= 0; --d) {
        off += (rest % g.size[d]) * g.stride[d];
        rest /= g.size[d];
      }
    }
    self[off] = K::at(mix64(key ^ mix64(static_cast<uint64_t>(i))), inv);
  }
}

template <typename K>
int run(kgb_tensor* self, double inv, uint64_t key, hipStream_t stream) {
  Geometry g{};
  g.rank = self->rank;
  int64_t n = 1;
  bool dense = true;
  for (int d = self->rank - 1; d >= 0; --d) {
    g.size[d] = self->sizes[d];
    g.stride[d] = self->strides[d];
    if (self->sizes[d] != 1 && self->strides[d] != n) dense = false;
    n *= self->sizes[d];
  }
  if (n == 0) return KGB_OK;
  int device = 0, cus = 104;
  if (hipGetDevice(&device) != hipSuccess ||
      hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
    return KGB_ERR_INVALID;
  const int threads = 256;
  const int64_t wanted = (n + threads - 1) / threads, cap = static_cast<int64_t>(cus) * 16;
  const unsigned blocks = static_cast<unsigned>(wanted < cap ? wanted : cap);
  typename K::S* data = static_cast<typename K::S*>(self->data);
  if (dense) exponential<K, true><<<blocks, threads, 0, stream>>>(data, g, n, key, inv);
  else exponential<K, false><<<blocks, threads, 0, stream>>>(data, g, n, key, inv);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

uint64_t mix64_host(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

extern "C" int kgb_aten_exponential_(kgb_tensor* self, double lambd, int64_t seed, kgb_stream stream) {
  if (!(lambd > 0)) return KGB_ERR_INVALID;
  const uint64_t key = mix64_host(static_cast<uint64_t>(seed));
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return run<F32>(self, 1.0 / lambd, key, s);
    case KGB_F64: return run<F64>(self, 1.0 / lambd, key, s);
    case KGB_F16: return run<F16>(self, 1.0 / lambd, key, s);
    case KGB_BF16: return run<BF16>(self, 1.0 / lambd, key, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
