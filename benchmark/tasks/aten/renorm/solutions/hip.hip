// aten/renorm in HIP (a port of the CUDA solution): every slice self.select(dim, s) whose p-norm exceeds
// maxnorm is scaled by maxnorm / (norm + 1e-7).
//
// Three stream-ordered steps, with a per-call factor buffer (hipMallocAsync):
//  1. norms, one of two kernels:
//     - slices adjacent in memory (stride 1 along dim, e.g. columns of a
//       row-major matrix with dim = last): a block holds 32 neighbouring
//       slices x 32 threads along each slice, so a warp reads 32 consecutive
//       elements (coalesced);
//     - otherwise a block of 256 threads per slice (grid-stride over slices)
//       walks the slice's elements; for dim = 0 of a row-major tensor these
//       are one contiguous run.
//     Partial sums meet in shared memory in a fixed tree order (deterministic);
//     the slice's thread 0 turns the norm into the factor (float, double for
//     f64) and rounds it to self's dtype as ATen does.
//  2. scale: out = x * factor[slice] over every element, grid-stride; when
//     self and out are row-major, in memory order (16-byte vector loads and
//     stores when inner runs are multiples of 16 bytes: all lanes of a vector
//     share one slice), otherwise through the strides.
// Accumulation: float for f32/f16/bf16, double for f64.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct F32 {
  using S = float; using C = float;
  __device__ static C to(S v) { return v; }
  __device__ static S from(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C to(S v) { return v; }
  __device__ static S from(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C to(S v) { return kgb_f16_to_float(v); }
  __device__ static S from(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C to(S v) { return kgb_bf16_to_float(v); }
  __device__ static S from(C v) { return kgb_float_to_bf16(v); }
};

enum Norm { kL1 = 0, kL2 = 1, kMax = 2, kPow = 3 };

template <typename C>
__device__ __forceinline__ C term(int norm, C a, C p) {
  a = fabs(a);
  if (norm == kL2) return a * a;
  if (norm == kPow) return pow(a, p);
  return a;  // L1, max
}
template <typename C>
__device__ __forceinline__ C combine(int norm, C acc, C t) {
  if (norm == kMax) return (t > acc || t != t) ? t : acc;  // NaN sticks
  return acc + t;
}

// The non-dim dimensions, row-major (outer ones first), self/out strides.
struct Geometry {
  int nd;
  int64_t size[KGB_MAX_RANK], xs[KGB_MAX_RANK], ys[KGB_MAX_RANK];
  int64_t slices, per;     // number of slices, elements per slice
  int64_t x_dim, y_dim;    // strides along dim
  __device__ __forceinline__ void offsets(int64_t k, int64_t& xo, int64_t& yo) const {
    xo = 0;
    yo = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t q = k / size[d], r = k - q * size[d];
      k = q;
      xo += r * xs[d];
      yo += r * ys[d];
    }
  }
};

// Norm -> factor, rounded to self's dtype (ATen keeps the factor in self's dtype).
template <typename K>
__device__ __forceinline__ typename K::C factor_of(int norm, typename K::C acc, typename K::C p, typename K::C maxnorm) {
  using C = typename K::C;
  C n = acc;
  if (norm == kL2) n = sqrt(acc);
  if (norm == kPow) n = pow(acc, C(1) / p);
  const C f = n > maxnorm ? maxnorm / (n + static_cast<C>(1e-7)) : C(1);
  return K::to(K::from(f));
}

constexpr int kThreads = 256;

template <typename K>
__global__ void __launch_bounds__(kThreads) norms_per_slice(const typename K::S* __restrict__ x, Geometry g, int norm,
                                                            typename K::C p, typename K::C maxnorm,
                                                            typename K::C* __restrict__ factor) {
  using C = typename K::C;
  __shared__ C part[kThreads];
  for (int64_t s = blockIdx.x; s < g.slices; s += gridDim.x) {
    C acc = 0;
    for (int64_t k = threadIdx.x; k < g.per; k += kThreads) {
      int64_t xo, yo;
      g.offsets(k, xo, yo);
      acc = combine(norm, acc, term(norm, K::to(x[s * g.x_dim + xo]), p));
    }
    __syncthreads();  // part may still be read for the previous slice
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w >>= 1) {
      if (static_cast<int>(threadIdx.x) < w) part[threadIdx.x] = combine(norm, part[threadIdx.x], part[threadIdx.x + w]);
      __syncthreads();
    }
    if (threadIdx.x == 0) factor[s] = factor_of<K>(norm, part[0], p, maxnorm);
  }
}

constexpr int kTile = 32;

// Slices adjacent in memory (x_dim == 1): threadIdx.x picks the slice in a
// tile of 32, threadIdx.y strides along the slices' elements.
template <typename K>
__global__ void __launch_bounds__(kTile* kTile) norms_adjacent(const typename K::S* __restrict__ x, Geometry g, int norm,
                                                               typename K::C p, typename K::C maxnorm,
                                                               typename K::C* __restrict__ factor) {
  using C = typename K::C;
  __shared__ C part[kTile][kTile + 1];
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kTile; first < g.slices;
       first += static_cast<int64_t>(gridDim.x) * kTile) {
    const int64_t s = first + threadIdx.x;
    C acc = 0;
    if (s < g.slices)
      for (int64_t k = threadIdx.y; k < g.per; k += kTile) {
        int64_t xo, yo;
        g.offsets(k, xo, yo);
        acc = combine(norm, acc, term(norm, K::to(x[s + xo]), p));
      }
    __syncthreads();
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    for (int w = kTile / 2; w > 0; w >>= 1) {
      if (static_cast<int>(threadIdx.y) < w)
        part[threadIdx.y][threadIdx.x] = combine(norm, part[threadIdx.y][threadIdx.x], part[threadIdx.y + w][threadIdx.x]);
      __syncthreads();
    }
    if (threadIdx.y == 0 && s < g.slices) factor[s] = factor_of<K>(norm, part[0][threadIdx.x], p, maxnorm);
  }
}

template <typename K>
__global__ void scale_strided(const typename K::S* __restrict__ x, typename K::S* __restrict__ y, Geometry g,
                              const typename K::C* __restrict__ factor) {
  const int64_t total = g.slices * g.per;
  for (int64_t n = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    // n enumerates (slice, k): neighbouring threads share a slice and walk k.
    const int64_t s = n / g.per, k = n - s * g.per;
    int64_t xo, yo;
    g.offsets(k, xo, yo);
    y[s * g.y_dim + yo] = K::from(K::to(x[s * g.x_dim + xo]) * factor[s]);
  }
}

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Row-major self and out: element n belongs to slice (n / inner) % slices;
// VEC consecutive elements (one 16-byte pack) never straddle two slices.
template <typename K, int VEC>
__global__ void scale_contiguous(const typename K::S* __restrict__ x, typename K::S* __restrict__ y, int64_t total,
                                 int64_t inner, int64_t slices, const typename K::C* __restrict__ factor) {
  using P = Pack<typename K::S, VEC>;
  const int64_t packs = total / VEC;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < packs;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t n = i * VEC;
    const typename K::C f = factor[(n / inner) % slices];
    const P in = reinterpret_cast<const P*>(x)[i];
    P r;
#pragma unroll
    for (int e = 0; e < VEC; ++e) r.v[e] = K::from(K::to(in.v[e]) * f);
    reinterpret_cast<P*>(y)[i] = r;
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

unsigned grid_for(int64_t work, int64_t per_block) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

template <typename K>
int run(const kgb_tensor* self, kgb_tensor* out, const Geometry& g, int64_t inner, int norm, double p, double maxnorm,
        hipStream_t stream) {
  using C = typename K::C;
  using S = typename K::S;
  const S* x = static_cast<const S*>(self->data);
  S* y = static_cast<S*>(out->data);
  C* factor = nullptr;
  if (hipMallocAsync(reinterpret_cast<void**>(&factor), sizeof(C) * g.slices, stream) != hipSuccess)
    return KGB_ERR_INVALID;
  if (g.x_dim == 1 && g.slices >= kTile)
    norms_adjacent<K><<<grid_for(g.slices, kTile), dim3(kTile, kTile), 0, stream>>>(x, g, norm, static_cast<C>(p),
                                                                                 static_cast<C>(maxnorm), factor);
  else
    norms_per_slice<K><<<grid_for(g.slices, 1), kThreads, 0, stream>>>(x, g, norm, static_cast<C>(p),
                                                                       static_cast<C>(maxnorm), factor);
  constexpr int V = 16 / sizeof(S);
  const int64_t total = g.slices * g.per;
  const bool dense = row_major(self) && row_major(out);
  const bool vec = dense && inner % V == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(y) % 16 == 0;
  if (vec)
    scale_contiguous<K, V><<<grid_for(total / V, kThreads), kThreads, 0, stream>>>(x, y, total, inner, g.slices, factor);
  else if (dense)
    scale_contiguous<K, 1><<<grid_for(total, kThreads), kThreads, 0, stream>>>(x, y, total, inner, g.slices, factor);
  else
    scale_strided<K><<<grid_for(total, kThreads), kThreads, 0, stream>>>(x, y, g, factor);
  const hipError_t launched = hipGetLastError();
  const hipError_t freed = hipFreeAsync(factor, stream);
  return launched == hipSuccess && freed == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

double scalar_value(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

}  // namespace

extern "C" int kgb_aten_renorm(const kgb_tensor* self, kgb_scalar p_arg, int64_t dim, kgb_scalar maxnorm_arg,
                               kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (p_arg.dtype == KGB_C128 || maxnorm_arg.dtype == KGB_C128) return KGB_ERR_INVALID;
  const double p = scalar_value(p_arg), maxnorm = scalar_value(maxnorm_arg);
  const int rank = self->rank;
  if (!(p > 0) || !(maxnorm >= 0) || rank < 2 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  Geometry g{};
  g.per = 1;
  int64_t inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    if (d == dim) {
      g.slices = self->sizes[d];
      g.x_dim = self->strides[d];
      g.y_dim = out->strides[d];
      continue;
    }
    if (d > dim) inner *= self->sizes[d];
    g.per *= self->sizes[d];
    g.size[g.nd] = self->sizes[d];
    g.xs[g.nd] = self->strides[d];
    g.ys[g.nd] = out->strides[d];
    ++g.nd;
  }
  if (g.slices == 0 || g.per == 0) return KGB_OK;
  const int norm = isinf(p) ? kMax : p == 1 ? kL1 : p == 2 ? kL2 : kPow;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return run<F32>(self, out, g, inner, norm, p, maxnorm, s);
    case KGB_F64: return run<F64>(self, out, g, inner, norm, p, maxnorm, s);
    case KGB_F16: return run<F16>(self, out, g, inner, norm, p, maxnorm, s);
    default: return run<BF16>(self, out, g, inner, norm, p, maxnorm, s);
  }
}
