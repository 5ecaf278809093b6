// aten/bernoulli in HIP: out[i] = u(seed, i) < p[i] ? 1 : 0.
// Counter-based: u comes from (seed, logical row-major index) through the
// splitmix64 finaliser, so the output depends on nothing else. 53 random bits
// for f64, 24 for the other dtypes. One thread per element, grid-stride.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// Storage type S, compute type C and the conversions, per dtype.
struct F32 {
  using S = float; using C = float;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_f16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_bf16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_bf16(v); }
};

struct Geometry {
  int64_t size[KGB_MAX_RANK], sa[KGB_MAX_RANK], sb[KGB_MAX_RANK];
  int rank;
};

__device__ inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename K>
__device__ inline typename K::S draw(typename K::S p, uint64_t bits) {
  const float u = static_cast<float>(bits >> 40) * 0x1.0p-24f;
  return K::store(u < K::load(p) ? 1.0f : 0.0f);
}
template <>
__device__ inline double draw<F64>(double p, uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53 < p ? 1.0 : 0.0;
}

template <typename K>
__global__ void bernoulli(typename K::S* __restrict__ out, const typename K::S* __restrict__ p, Geometry g, int64_t n,
                          uint64_t seed) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i, a = 0, b = 0;
    for (int d = g.rank - 1; d >= 0; --d) {
      int64_t q = r / g.size[d], k = r - q * g.size[d];
      r = q;
      a += k * g.sa[d];
      b += k * g.sb[d];
    }
    out[b] = draw<K>(p[a], mix64(seed ^ mix64(static_cast<uint64_t>(i))));
  }
}

template <typename K>
int launch(const kgb_tensor* self, kgb_tensor* out, const Geometry& g, int64_t n, uint64_t seed, hipStream_t stream) {
  using S = typename K::S;
  const unsigned threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > 65536) blocks = 65536;
  hipLaunchKernelGGL(bernoulli<K>, dim3(static_cast<unsigned>(blocks)), dim3(threads), 0, stream,
                     static_cast<S*>(out->data), static_cast<const S*>(self->data), g, n, seed);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_bernoulli(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  // The row-major logical index runs over every dimension, so no merging.
  Geometry g{};
  g.rank = self->rank;
  int64_t n = 1;
  for (int d = 0; d < self->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    g.size[d] = self->sizes[d];
    g.sa[d] = self->strides[d];
    g.sb[d] = out->strides[d];
    n *= self->sizes[d];
  }
  if (n == 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  const uint64_t sd = static_cast<uint64_t>(seed);
  switch (out->dtype) {
    case KGB_F32: return launch<F32>(self, out, g, n, sd, s);
    case KGB_F64: return launch<F64>(self, out, g, n, sd, s);
    case KGB_F16: return launch<F16>(self, out, g, n, sd, s);
    default: return launch<BF16>(self, out, g, n, sd, s);
  }
}
