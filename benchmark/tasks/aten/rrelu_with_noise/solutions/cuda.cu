// aten/rrelu_with_noise on CUDA.
//
// training: where x <= 0, slope r = lower + u * (upper - lower) with u a
// 24-bit (53-bit for f64) uniform in (0, 1] from splitmix64 keyed by (seed,
// logical row-major index), clamped to upper and rounded to T; noise = r,
// out = x * r in the compute type (float, double for f64) rounded once to T.
// Elsewhere noise = 1, out = x. eval: out = x > 0 ? x : x * slope, noise
// untouched. Memory-bound: when self, noise and out are row-major each
// thread handles 4 consecutive elements with one vector load of x and vector
// stores of noise and out (8 bytes for 16-bit types, 16 for float, 2 x 16 for
// double) in a grid-stride loop, the tail and any other layout one element at
// a time with the index unravelled over at most 8 dims.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

__host__ __device__ __forceinline__ uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Storage type S, compute type C, conversions and the uniform of a hash.
struct F32 {
  using S = float;
  using C = float;
  static __device__ __forceinline__ C load(S v) { return v; }
  static __device__ __forceinline__ S store(C v) { return v; }
  static __device__ __forceinline__ C uniform(uint64_t h) { return static_cast<float>((h >> 40) + 1) * 0x1.0p-24f; }
};
struct F64 {
  using S = double;
  using C = double;
  static __device__ __forceinline__ C load(S v) { return v; }
  static __device__ __forceinline__ S store(C v) { return v; }
  static __device__ __forceinline__ C uniform(uint64_t h) { return static_cast<double>((h >> 11) + 1) * 0x1.0p-53; }
};
struct F16 {
  using S = __half;
  using C = float;
  static __device__ __forceinline__ C load(S v) { return __half2float(v); }
  static __device__ __forceinline__ S store(C v) { return __float2half_rn(v); }
  static __device__ __forceinline__ C uniform(uint64_t h) { return F32::uniform(h); }
};
struct BF16 {
  using S = __nv_bfloat16;
  using C = float;
  static __device__ __forceinline__ C load(S v) { return __bfloat162float(v); }
  static __device__ __forceinline__ S store(C v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ C uniform(uint64_t h) { return F32::uniform(h); }
};

template <class K>
struct Params {
  typename K::C lower, range, upper, slope;
  uint64_t key;
  int training;
};

template <class K>
__device__ __forceinline__ void element(const Params<K>& p, typename K::S xs, typename K::S& noise, typename K::S& out,
                                        uint64_t i) {
  using C = typename K::C;
  const C x = K::load(xs);
  if (!p.training) {
    out = x > C(0) ? xs : K::store(x * p.slope);
    return;
  }
  if (x <= C(0)) {
    C r = p.lower + K::uniform(mix64(p.key ^ mix64(i))) * p.range;
    r = r > p.upper ? p.upper : r;
    const typename K::S rs = K::store(r);
    noise = rs;
    out = K::store(x * K::load(rs));
  } else {
    noise = K::store(C(1));
    out = xs;
  }
}

// Four storage elements moved as one vector.
template <class S> struct alignas(4 * sizeof(S)) Quad { S v[4]; };

struct Geometry {
  int rank;
  int64_t size[KGB_MAX_RANK], xs[KGB_MAX_RANK], ns[KGB_MAX_RANK], os[KGB_MAX_RANK];
};

template <class K>
__global__ void dense_kernel(const typename K::S* __restrict__ x, typename K::S* __restrict__ noise,
                             typename K::S* __restrict__ out, int64_t n, Params<K> p) {
  using S = typename K::S;
  const int64_t quads = n / 4, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t q = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; q < quads; q += stride) {
    const Quad<S> in = reinterpret_cast<const Quad<S>*>(x)[q];
    Quad<S> nz, o;  // nz is written (and stored) in training only
#pragma unroll
    for (int k = 0; k < 4; ++k) element<K>(p, in.v[k], nz.v[k], o.v[k], static_cast<uint64_t>(4 * q + k));
    if (p.training) reinterpret_cast<Quad<S>*>(noise)[q] = nz;
    reinterpret_cast<Quad<S>*>(out)[q] = o;
  }
  for (int64_t i = 4 * quads + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    S nz{}, o;
    element<K>(p, x[i], nz, o, static_cast<uint64_t>(i));
    if (p.training) noise[i] = nz;
    out[i] = o;
  }
}

template <class K>
__global__ void strided_kernel(const typename K::S* __restrict__ x, typename K::S* __restrict__ noise,
                               typename K::S* __restrict__ out, int64_t n, Geometry g, Params<K> p) {
  using S = typename K::S;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t xo = 0, no = 0, oo = 0, rest = i;
    for (int d = g.rank - 1; d >= 0; --d) {
      const int64_t c = rest % g.size[d];
      rest /= g.size[d];
      xo += c * g.xs[d];
      no += c * g.ns[d];
      oo += c * g.os[d];
    }
    S nz{}, o;
    element<K>(p, x[xo], nz, o, static_cast<uint64_t>(i));
    if (p.training) noise[no] = nz;
    out[oo] = o;
  }
}

bool row_major(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

double scalar_value(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

template <class K>
int run(const kgb_tensor* self, kgb_tensor* noise, double lower, double upper, int training, uint64_t key, kgb_tensor* out,
        cudaStream_t stream) {
  using C = typename K::C;
  using S = typename K::S;
  Params<K> p;
  p.lower = static_cast<C>(lower);
  p.upper = static_cast<C>(upper);
  p.range = static_cast<C>(upper - lower);
  p.slope = static_cast<C>((lower + upper) / 2);
  p.key = key;
  p.training = training != 0;
  Geometry g{};
  g.rank = out->rank;
  int64_t n = 1;
  for (int d = 0; d < out->rank; ++d) {
    g.size[d] = out->sizes[d];
    g.xs[d] = self->strides[d];
    g.ns[d] = noise->strides[d];
    g.os[d] = out->strides[d];
    n *= out->sizes[d];
  }
  if (n == 0) return KGB_OK;
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return KGB_ERR_INVALID;
  const S* x = static_cast<const S*>(self->data);
  S* nz = static_cast<S*>(noise->data);
  S* o = static_cast<S*>(out->data);
  const int threads = 256;
  const int64_t cap = static_cast<int64_t>(sms) * 16;
  const uintptr_t align = 4 * sizeof(S);
  // eval never touches noise, so its layout does not matter there.
  const bool noise_ok = !p.training || (row_major(noise) && reinterpret_cast<uintptr_t>(nz) % align == 0);
  const bool dense = row_major(self) && row_major(out) && noise_ok && reinterpret_cast<uintptr_t>(x) % align == 0 &&
                     reinterpret_cast<uintptr_t>(o) % align == 0;
  if (dense) {
    const int64_t wanted = (n / 4 + threads - 1) / threads + 1;
    dense_kernel<K><<<static_cast<unsigned>(wanted < cap ? wanted : cap), threads, 0, stream>>>(x, nz, o, n, p);
  } else {
    const int64_t wanted = (n + threads - 1) / threads;
    strided_kernel<K><<<static_cast<unsigned>(wanted < cap ? wanted : cap), threads, 0, stream>>>(x, nz, o, n, g, p);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_rrelu_with_noise(const kgb_tensor* self, kgb_tensor* noise, kgb_scalar lower, kgb_scalar upper,
                                         int training, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || noise->dtype != out->dtype || self->rank != out->rank || noise->rank != out->rank)
    return KGB_ERR_INVALID;
  const double lo = scalar_value(lower), hi = scalar_value(upper);
  const uint64_t key = mix64(static_cast<uint64_t>(seed));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<F32>(self, noise, lo, hi, training, key, out, s);
    case KGB_F64: return run<F64>(self, noise, lo, hi, training, key, out, s);
    case KGB_F16: return run<F16>(self, noise, lo, hi, training, key, out, s);
    case KGB_BF16: return run<BF16>(self, noise, lo, hi, training, key, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
