// aten/poisson in HIP: out[i] ~ Poisson(self[i]).
//
// Counter-based: element i (logical row-major index) draws its uniforms from
// its own splitmix64 stream keyed by (seed, i), so the result depends on
// nothing but the seed, the rates and the position. Rates below 10 use
// inversion by sequential search, larger ones Hoermann's PTRS transformed
// rejection. f32, f16 and bf16 sample in float: the proposal is formed around
// floor(rate) so that large rates keep their fraction, and the acceptance
// test uses log P(k) = d - k log1p(d / rate) - log(2 pi k) / 2 - stirling(k)
// with d = k - rate (no cancellation between terms of size rate); f64
// samples in double with lgamma. The sampler is compute-bound and branchy
// (variable tries per element), so one thread per element in a grid-stride
// loop; a row-major self and out skip the index unravelling.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

__host__ __device__ __forceinline__ uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ uint64_t next_bits(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Float sampler: 24-bit uniforms in (0, 1).
__device__ __forceinline__ float poisson_float(float rate, uint64_t state) {
  if (rate == 0.0f) return 0.0f;
  if (rate < 10.0f) {
    const float u = (static_cast<float>(next_bits(state) >> 40) + 0.5f) * 0x1.0p-24f;
    float p = expf(-rate), f = p;
    int k = 0;
    while (u > f) {
      ++k;
      p *= rate / static_cast<float>(k);
      if (p < 1e-12f) break;  // the rest of the tail is below float resolution
      f += p;
    }
    return static_cast<float>(k);
  }
  const float whole = floorf(rate), frac = rate - whole;
  const float slam = sqrtf(rate);
  const float b = 0.931f + 2.53f * slam, a = -0.059f + 0.02483f * b;
  const float log_inv_alpha = logf(1.1239f + 1.1328f / (b - 3.4f)), vr = 0.9277f - 3.6224f / (b - 2.0f);
  for (;;) {
    const float u = (static_cast<float>(next_bits(state) >> 40) + 0.5f) * 0x1.0p-24f - 0.5f;
    const float v = (static_cast<float>(next_bits(state) >> 40) + 0.5f) * 0x1.0p-24f;
    const float us = 0.5f - fabsf(u);
    const float k = whole + floorf((2.0f * a / us + b) * u + frac + 0.43f);
    if (us >= 0.07f && v <= vr) return k;
    if (k < 0.0f || (us < 0.013f && v > us)) continue;
    float log_pk;
    if (k >= 10.0f) {
      const float d = k - rate, r = 1.0f / k, r2 = r * r;
      const float stirling = r * (1.0f / 12 - r2 * (1.0f / 360 - r2 * (1.0f / 1260)));
      log_pk = d - k * log1pf(d / rate) - 0.5f * logf(6.28318530718f * k) - stirling;
    } else {
      log_pk = -rate + k * logf(rate) - lgammaf(k + 1.0f);
    }
    if (logf(v) + log_inv_alpha - logf(a / (us * us) + b) <= log_pk) return k;
  }
}

// Double sampler (f64): 53-bit uniforms in (0, 1).
__device__ __forceinline__ double poisson_double(double rate, uint64_t state) {
  if (rate == 0.0) return 0.0;
  if (rate < 10.0) {
    const double u = (static_cast<double>(next_bits(state) >> 11) + 0.5) * 0x1.0p-53;
    double p = exp(-rate), f = p;
    int k = 0;
    while (u > f && k < 1000) {
      ++k;
      p *= rate / k;
      f += p;
    }
    return k;
  }
  const double slam = sqrt(rate), loglam = log(rate);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = (static_cast<double>(next_bits(state) >> 11) + 0.5) * 0x1.0p-53 - 0.5;
    const double v = (static_cast<double>(next_bits(state) >> 11) + 0.5) * 0x1.0p-53;
    const double us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log_inv_alpha - log(a / (us * us) + b) <= -rate + k * loglam - lgamma(k + 1)) return k;
  }
}

// Storage type S per dtype and its draw; f16/bf16 are uint16_t storage
// converted with kgb_half.h.
struct F32 {
  using S = float;
  static __device__ __forceinline__ S draw(S r, uint64_t s) { return poisson_float(r, s); }
};
struct F64 {
  using S = double;
  static __device__ __forceinline__ S draw(S r, uint64_t s) { return poisson_double(r, s); }
};
struct F16 {
  using S = uint16_t;
  static __device__ __forceinline__ S draw(S r, uint64_t s) { return kgb_float_to_f16(poisson_float(kgb_f16_to_float(r), s)); }
};
struct BF16 {
  using S = uint16_t;
  static __device__ __forceinline__ S draw(S r, uint64_t s) { return kgb_float_to_bf16(poisson_float(kgb_bf16_to_float(r), s)); }
};

struct Geometry {
  int rank;
  int64_t size[KGB_MAX_RANK], in_stride[KGB_MAX_RANK], out_stride[KGB_MAX_RANK];
};

template <typename K, bool kDense>
__global__ void poisson(const typename K::S* __restrict__ in, typename K::S* __restrict__ out, Geometry g, int64_t n, uint64_t key) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t io = i, oo = i;
    if (!kDense) {
      io = 0, oo = 0;
      int64_t rest = i;
      for (int d = g.rank - 1; d >= 0; --d) {
        const int64_t c = rest % g.size[d];
        rest /= g.size[d];
        io += c * g.in_stride[d];
        oo += c * g.out_stride[d];
      }
    }
    out[oo] = K::draw(in[io], key ^ mix64(static_cast<uint64_t>(i)));
  }
}

template <typename K>
int run(const kgb_tensor* self, kgb_tensor* out, uint64_t key, hipStream_t stream) {
  Geometry g{};
  g.rank = out->rank;
  int64_t n = 1;
  bool dense = true;
  for (int d = out->rank - 1; d >= 0; --d) {
    g.size[d] = out->sizes[d];
    g.in_stride[d] = self->strides[d];
    g.out_stride[d] = out->strides[d];
    if (out->sizes[d] != 1 && (out->strides[d] != n || self->strides[d] != n)) dense = false;
    n *= out->sizes[d];
  }
  if (n == 0) return KGB_OK;
  int device = 0, cus = 104;
  if (hipGetDevice(&device) != hipSuccess ||
      hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
    return KGB_ERR_INVALID;
  const int threads = 256;
  const int64_t wanted = (n + threads - 1) / threads, cap = static_cast<int64_t>(cus) * 32;
  const unsigned blocks = static_cast<unsigned>(wanted < cap ? wanted : cap);
  const typename K::S* in = static_cast<const typename K::S*>(self->data);
  typename K::S* o = static_cast<typename K::S*>(out->data);
  if (dense) poisson<K, true><<<blocks, threads, 0, stream>>>(in, o, g, n, key);
  else poisson<K, false><<<blocks, threads, 0, stream>>>(in, o, g, n, key);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_poisson(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  const uint64_t key = mix64(static_cast<uint64_t>(seed));
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<F32>(self, out, key, s);
    case KGB_F64: return run<F64>(self, out, key, s);
    case KGB_F16: return run<F16>(self, out, key, s);
    case KGB_BF16: return run<BF16>(self, out, key, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
