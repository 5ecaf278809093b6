// aten/pairwise_distance on CUDA: out = || x1 - x2 + eps ||_p over the last
// dimension of the broadcast shape.
//
// Rows of 32 entries or more: one warp per row (grid-stride over rows); the
// lanes stride along the row, with 16-byte vector loads when both inputs are
// unit-stride, 16-byte aligned and the row is a multiple of the vector, and
// the lane sums meet in a fixed butterfly of shuffles (deterministic).
// Shorter rows: one thread per row, grid-stride. The leading dimensions
// (broadcast: stride 0) are merged where x1, x2 and out allow it.
// Each entry d = round(round(x1 - x2) + eps) is rounded to the dtype at both
// steps as ATen's separate tensor ops are; the norm accumulates in float
// (double for f64) and is rounded once.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct F32 {
  using S = float; using C = float;
  __device__ static C to(S v) { return v; }
  __device__ static C round(C v) { return v; }
  __device__ static S from(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C to(S v) { return v; }
  __device__ static C round(C v) { return v; }
  __device__ static S from(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C to(S v) { return kgb_f16_to_float(v); }
  __device__ static C round(C v) { return kgb_f16_to_float(kgb_float_to_f16(v)); }
  __device__ static S from(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C to(S v) { return kgb_bf16_to_float(v); }
  __device__ static C round(C v) { return kgb_bf16_to_float(kgb_float_to_bf16(v)); }
  __device__ static S from(C v) { return kgb_float_to_bf16(v); }
};

enum Norm { kCount = 0, kL1 = 1, kL2 = 2, kMax = 3, kPow = 4 };

template <int N, typename C>
__device__ __forceinline__ C term(C d, C p) {
  const C a = fabs(d);
  if (N == kCount) return d != C(0) ? C(1) : C(0);  // NaN != 0 counts
  if (N == kL2) return a * a;
  if (N == kPow) return pow(a, p);
  return a;
}
template <int N, typename C>
__device__ __forceinline__ C combine(C acc, C t) {
  if (N == kMax) return (t > acc || t != t) ? t : acc;  // NaN sticks
  return acc + t;
}
template <int N, typename C>
__device__ __forceinline__ C finish(C acc, C p) {
  if (N == kL2) return sqrt(acc);
  if (N == kPow) return pow(acc, C(1) / p);
  return acc;
}

struct Rows {
  int nd;
  int64_t size[KGB_MAX_RANK], s1[KGB_MAX_RANK], s2[KGB_MAX_RANK], so[KGB_MAX_RANK];
  int64_t rows, D, k1, k2;
  __device__ __forceinline__ void offsets(int64_t r, int64_t& a, int64_t& b, int64_t& o) const {
    a = 0;
    b = 0;
    o = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t q = r / size[d], i = r - q * size[d];
      r = q;
      a += i * s1[d];
      b += i * s2[d];
      o += i * so[d];
    }
  }
};

template <typename K, int N>
__device__ __forceinline__ typename K::C entry(typename K::S a, typename K::S b, typename K::C eps, typename K::C p) {
  return term<N>(K::round(K::round(K::to(a) - K::to(b)) + eps), p);
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

constexpr int kThreads = 256;

// One warp per row; VEC > 1: vector loads (unit strides, aligned rows).
template <typename K, int N, int VEC>
__global__ void __launch_bounds__(kThreads) rows_warp(const typename K::S* __restrict__ x1,
                                                      const typename K::S* __restrict__ x2, typename K::S* __restrict__ out,
                                                      Rows g, typename K::C p, typename K::C eps) {
  using C = typename K::C;
  using P = Pack<typename K::S, VEC>;
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kThreads / 32);
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32; r < g.rows; r += warps) {
    int64_t a, b, o;
    g.offsets(r, a, b, o);
    C acc = 0;
    if (VEC > 1) {
      const P* u = reinterpret_cast<const P*>(x1 + a);
      const P* v = reinterpret_cast<const P*>(x2 + b);
      for (int64_t k = lane; k < g.D / VEC; k += 32) {
        const P pu = u[k], pv = v[k];
#pragma unroll
        for (int e = 0; e < VEC; ++e) acc = combine<N>(acc, entry<K, N>(pu.v[e], pv.v[e], eps, p));
      }
    } else {
      for (int64_t k = lane; k < g.D; k += 32)
        acc = combine<N>(acc, entry<K, N>(x1[a + k * g.k1], x2[b + k * g.k2], eps, p));
    }
#pragma unroll
    for (int w = 16; w > 0; w >>= 1) acc = combine<N>(acc, __shfl_xor_sync(0xffffffffu, acc, w));
    if (lane == 0) out[o] = K::from(finish<N>(acc, p));
  }
}

// One thread per row (short rows).
template <typename K, int N>
__global__ void rows_thread(const typename K::S* __restrict__ x1, const typename K::S* __restrict__ x2,
                            typename K::S* __restrict__ out, Rows g, typename K::C p, typename K::C eps) {
  using C = typename K::C;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < g.rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t a, b, o;
    g.offsets(r, a, b, o);
    C acc = 0;
    for (int64_t k = 0; k < g.D; ++k) acc = combine<N>(acc, entry<K, N>(x1[a + k * g.k1], x2[b + k * g.k2], eps, p));
    out[o] = K::from(finish<N>(acc, p));
  }
}

unsigned grid_for(int64_t work, int64_t per_block) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

template <typename K, int N>
void launch(const Rows& g, const void* x1v, const void* x2v, void* ov, double p, double eps, cudaStream_t stream) {
  using S = typename K::S;
  using C = typename K::C;
  const S* x1 = static_cast<const S*>(x1v);
  const S* x2 = static_cast<const S*>(x2v);
  S* out = static_cast<S*>(ov);
  if (g.D < 32) {
    rows_thread<K, N><<<grid_for(g.rows, kThreads), kThreads, 0, stream>>>(x1, x2, out, g, static_cast<C>(p),
                                                                         static_cast<C>(eps));
    return;
  }
  constexpr int V = 16 / sizeof(S);
  bool vec = g.k1 == 1 && g.k2 == 1 && g.D % V == 0 && reinterpret_cast<uintptr_t>(x1) % 16 == 0 &&
             reinterpret_cast<uintptr_t>(x2) % 16 == 0;
  for (int d = 0; d < g.nd; ++d) vec = vec && g.s1[d] % V == 0 && g.s2[d] % V == 0;
  const unsigned grid = grid_for(g.rows, kThreads / 32);
  if (vec) rows_warp<K, N, V><<<grid, kThreads, 0, stream>>>(x1, x2, out, g, static_cast<C>(p), static_cast<C>(eps));
  else rows_warp<K, N, 1><<<grid, kThreads, 0, stream>>>(x1, x2, out, g, static_cast<C>(p), static_cast<C>(eps));
}

template <typename K>
int dispatch(const Rows& g, const void* x1, const void* x2, void* out, double p, double eps, cudaStream_t s) {
  if (p == 0) launch<K, kCount>(g, x1, x2, out, p, eps, s);
  else if (isinf(p)) launch<K, kMax>(g, x1, x2, out, p, eps, s);
  else if (p == 1) launch<K, kL1>(g, x1, x2, out, p, eps, s);
  else if (p == 2) launch<K, kL2>(g, x1, x2, out, p, eps, s);
  else launch<K, kPow>(g, x1, x2, out, p, eps, s);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_pairwise_distance(const kgb_tensor* x1, const kgb_tensor* x2, double p, double eps,
                                          int keepdim, kgb_tensor* out, kgb_stream stream) {
  if (x1->dtype != x2->dtype || out->dtype != x1->dtype) return KGB_ERR_INVALID;
  switch (x1->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (!(p >= 0)) return KGB_ERR_INVALID;
  const int rank = x1->rank > x2->rank ? x1->rank : x2->rank;
  if (rank < 1 || out->rank != (keepdim ? rank : rank - 1)) return KGB_ERR_INVALID;
  int64_t size[KGB_MAX_RANK], s1[KGB_MAX_RANK], s2[KGB_MAX_RANK];
  for (int d = 0; d < rank; ++d) {  // broadcast, right-aligned; stride 0 where broadcast
    const int i1 = d - (rank - x1->rank), i2 = d - (rank - x2->rank);
    const int64_t n1 = i1 >= 0 ? x1->sizes[i1] : 1, n2 = i2 >= 0 ? x2->sizes[i2] : 1;
    if (n1 != n2 && n1 != 1 && n2 != 1) return KGB_ERR_INVALID;
    size[d] = n1 == 1 ? n2 : n1;
    s1[d] = (i1 >= 0 && n1 != 1) ? x1->strides[i1] : 0;
    s2[d] = (i2 >= 0 && n2 != 1) ? x2->strides[i2] : 0;
  }
  Rows g{};
  g.rows = 1;
  g.D = size[rank - 1];
  g.k1 = s1[rank - 1];
  g.k2 = s2[rank - 1];
  for (int d = 0; d + 1 < rank; ++d) {
    if (out->sizes[d] != size[d]) return KGB_ERR_INVALID;
    g.rows *= size[d];
    if (size[d] == 1) continue;
    const int64_t so = out->strides[d];
    const int m = g.nd - 1;
    if (m >= 0 && g.s1[m] == s1[d] * size[d] && g.s2[m] == s2[d] * size[d] && g.so[m] == so * size[d]) {
      g.size[m] *= size[d];
      g.s1[m] = s1[d];
      g.s2[m] = s2[d];
      g.so[m] = so;
      continue;
    }
    g.size[g.nd] = size[d];
    g.s1[g.nd] = s1[d];
    g.s2[g.nd] = s2[d];
    g.so[g.nd] = so;
    ++g.nd;
  }
  if (keepdim && out->sizes[rank - 1] != 1) return KGB_ERR_INVALID;
  if (g.rows == 0) return KGB_OK;
  if (g.D == 0 && isinf(p)) return KGB_ERR_INVALID;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (x1->dtype) {
    case KGB_F32: return dispatch<F32>(g, x1->data, x2->data, out->data, p, eps, s);
    case KGB_F64: return dispatch<F64>(g, x1->data, x2->data, out->data, p, eps, s);
    case KGB_F16: return dispatch<F16>(g, x1->data, x2->data, out->data, p, eps, s);
    default: return dispatch<BF16>(g, x1->data, x2->data, out->data, p, eps, s);
  }
}
