// aten/exponential_ on CUDA: self[i] = -log(u(seed, i)) / lambd.
//
// Counter-based: u comes from (seed, logical row-major index) through the
// splitmix64 finaliser, so every draw depends on nothing but its position and
// the seed. 24 random bits give u in (0, 1] for the float dtypes (computed in
// float with the accurate logf, rounded once to f16/bf16), 53 bits for f64.
// A row-major self is written with one thread per element along its unit
// stride (coalesced, grid-stride loop); any other view unravels the logical
// index over at most 8 dims.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

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

template <typename T> struct Draw;
template <> struct Draw<float> {
  static __device__ __forceinline__ float at(uint64_t bits, double inv) { return draw_float(bits, static_cast<float>(inv)); }
};
template <> struct Draw<__half> {
  static __device__ __forceinline__ __half at(uint64_t bits, double inv) {
    return __float2half_rn(draw_float(bits, static_cast<float>(inv)));
  }
};
template <> struct Draw<__nv_bfloat16> {
  static __device__ __forceinline__ __nv_bfloat16 at(uint64_t bits, double inv) {
    return __float2bfloat16_rn(draw_float(bits, static_cast<float>(inv)));
  }
};
template <> struct Draw<double> {
  static __device__ __forceinline__ double at(uint64_t bits, double inv) {
    return -log(static_cast<double>((bits >> 11) + 1) * 0x1.0p-53) * inv;
  }
};

struct Geometry {
  int rank;
  int64_t size[KGB_MAX_RANK], stride[KGB_MAX_RANK];
};

template <typename T, bool kDense>
__global__ void exponential(T* __restrict__ self, Geometry g, int64_t n, uint64_t key, double inv) {
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
    self[off] = Draw<T>::at(mix64(key ^ mix64(static_cast<uint64_t>(i))), inv);
  }
}

template <typename T>
int run(kgb_tensor* self, double inv, uint64_t key, cudaStream_t stream) {
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
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return KGB_ERR_INVALID;
  const int threads = 256;
  const int64_t wanted = (n + threads - 1) / threads, cap = static_cast<int64_t>(sms) * 16;
  const unsigned blocks = static_cast<unsigned>(wanted < cap ? wanted : cap);
  T* data = static_cast<T*>(self->data);
  if (dense) exponential<T, true><<<blocks, threads, 0, stream>>>(data, g, n, key, inv);
  else exponential<T, false><<<blocks, threads, 0, stream>>>(data, g, n, key, inv);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
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
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return run<float>(self, 1.0 / lambd, key, s);
    case KGB_F64: return run<double>(self, 1.0 / lambd, key, s);
    case KGB_F16: return run<__half>(self, 1.0 / lambd, key, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, 1.0 / lambd, key, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
