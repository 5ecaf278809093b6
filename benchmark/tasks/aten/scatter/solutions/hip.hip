// aten/scatter in HIP (gfx90a), a port of the CUDA solution (plain loads
// where CUDA uses __ldg): the four overloads (src, value, reduce,
// value_reduce) share one engine.
//  1. out = self: one hipMemcpyAsync when both are dense with the same
//     layout, else a grid-stride strided copy kernel.
//  2. One thread per element of index, in row-major order (coalesced index
//     and src reads; with a contiguous index each thread takes two positions
//     with one 16-byte index load). Without a reduction the targets are
//     distinct and every thread stores its value (src's raw bits). With
//     reduce = add: atomicAdd for f32, f64, i32 and i64 (integer adds wrap,
//     as ATen's do); with multiply, and for f16/bf16, a compare-and-swap loop
//     (16-bit elements on their aligned 32-bit word, combined in float and
//     rounded once per update, kgb_half.h converting). The order of updates
//     is free, as the task states.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

enum Mode { kSet = 0, kAdd = 1, kMultiply = 2 };

struct Geometry {
  int rank;
  long long size[KGB_MAX_RANK];                       // of index
  long long is[KGB_MAX_RANK], ss[KGB_MAX_RANK];       // index and src strides
  long long os[KGB_MAX_RANK];                         // out strides, 0 at dim
  long long out_dim_stride, len, numel;
};

// ---- element updates -------------------------------------------------------
template <typename S> struct Elem;  // arithmetic of one storage type
template <> struct Elem<float> {
  using A = float;
  static __device__ A load(float v) { return v; }
  static __device__ float store(A v) { return v; }
};
template <> struct Elem<double> {
  using A = double;
  static __device__ A load(double v) { return v; }
  static __device__ double store(A v) { return v; }
};
template <> struct Elem<int> {
  using A = unsigned int;  // wrapping arithmetic
  static __device__ A load(int v) { return static_cast<A>(v); }
  static __device__ int store(A v) { return static_cast<int>(v); }
};
template <> struct Elem<long long> {
  using A = unsigned long long;
  static __device__ A load(long long v) { return static_cast<A>(v); }
  static __device__ long long store(A v) { return static_cast<long long>(v); }
};
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> struct Elem<F16> {
  using A = float;
  static __device__ A load(F16 v) { return kgb_f16_to_float(v.bits); }
  static __device__ F16 store(A v) { return F16{kgb_float_to_f16(v)}; }
};
template <> struct Elem<BF16> {
  using A = float;
  static __device__ A load(BF16 v) { return kgb_bf16_to_float(v.bits); }
  static __device__ BF16 store(A v) { return BF16{kgb_float_to_bf16(v)}; }
};

template <int M, typename A>
__device__ __forceinline__ A combine(A old, A v) {
  return M == kAdd ? old + v : old * v;
}

// Atomic read-modify-write of a 32- or 64-bit element through its bits.
template <int M, typename S, typename W>
__device__ void cas_update(S* p, typename Elem<S>::A v) {
  static_assert(sizeof(S) == sizeof(W), "one word per element");
  union Bits {
    S s;
    W w;
  };
  W* w = reinterpret_cast<W*>(p);
  W old = *w, assumed;
  do {
    assumed = old;
    Bits cur, next;
    cur.w = assumed;
    next.s = Elem<S>::store(combine<M>(Elem<S>::load(cur.s), v));
    old = atomicCAS(w, assumed, next.w);
  } while (old != assumed);
}

// 16-bit elements: a CAS on the aligned 32-bit word that holds them.
template <int M, typename S>
__device__ void cas_update16(S* p, float v) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
  const unsigned shift = (addr & 2) ? 16u : 0u;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const S cur{static_cast<uint16_t>(assumed >> shift)};
    const S next = Elem<S>::store(combine<M>(Elem<S>::load(cur), v));
    const unsigned int repl = (assumed & ~(0xffffu << shift)) | (static_cast<unsigned int>(next.bits) << shift);
    old = atomicCAS(word, assumed, repl);
  } while (old != assumed);
}

template <int M, typename S>
__device__ __forceinline__ void update(S* p, typename Elem<S>::A v) {
  if (M == kSet) {
    *p = Elem<S>::store(v);
  } else if constexpr (sizeof(S) == 2) {
    cas_update16<M, S>(p, v);
  } else if (M == kAdd) {
    atomicAdd(reinterpret_cast<typename Elem<S>::A*>(p), v);
  } else if constexpr (sizeof(S) == 4) {
    cas_update<M, S, unsigned int>(p, v);
  } else {
    cas_update<M, S, unsigned long long>(p, v);
  }
}

// ---- kernels ---------------------------------------------------------------
template <typename S>
__global__ void __launch_bounds__(kThreads) copy_strided(S* __restrict__ out, const S* __restrict__ self, int rank,
                                                         Geometry g) {
  // Reuses Geometry: size = self's sizes, os = out strides, ss = self strides.
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < g.numel;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    long long rest = i, oo = 0, so = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const long long c = rest % g.size[d];
      rest /= g.size[d];
      oo += c * g.os[d];
      so += c * g.ss[d];
    }
    out[oo] = self[so];
  }
}

// Position i of index: its index value and the src and out offsets.
template <typename S, int M, bool HAS_SRC>
__device__ __forceinline__ void scatter_one(const Geometry& g, long long i, long long v, const S* __restrict__ src,
                                            typename Elem<S>::A value, S* out) {
  if (static_cast<unsigned long long>(v) >= static_cast<unsigned long long>(g.len)) return;
  long long so = 0, oo = v * g.out_dim_stride;
  for (int d = g.rank - 1; d >= 0; --d) {
    const long long c = i % g.size[d];
    i /= g.size[d];
    so += c * g.ss[d];
    oo += c * g.os[d];
  }
  if (M == kSet && HAS_SRC) out[oo] = src[so];  // raw bits
  else update<M, S>(out + oo, HAS_SRC ? Elem<S>::load(src[so]) : value);
}

template <typename S, int M, bool HAS_SRC>
__global__ void __launch_bounds__(kThreads) scatter_strided(const long long* __restrict__ index,
                                                            const S* __restrict__ src, typename Elem<S>::A value,
                                                            S* out, Geometry g) {
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < g.numel;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    long long rest = i, io = 0;
    for (int d = g.rank - 1; d >= 0; --d) {
      const long long c = rest % g.size[d];
      rest /= g.size[d];
      io += c * g.is[d];
    }
    scatter_one<S, M, HAS_SRC>(g, i, (*(index + io)), src, value, out);
  }
}

// Contiguous index with an even element count: two positions per thread.
template <typename S, int M, bool HAS_SRC>
__global__ void __launch_bounds__(kThreads) scatter_dense2(const long long* __restrict__ index,
                                                           const S* __restrict__ src, typename Elem<S>::A value,
                                                           S* out, Geometry g) {
  const long long pairs = g.numel / 2;
  for (long long q = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; q < pairs;
       q += static_cast<long long>(gridDim.x) * kThreads) {
    const longlong2 v = (*(reinterpret_cast<const longlong2*>(index) + q));
    scatter_one<S, M, HAS_SRC>(g, 2 * q, v.x, src, value, out);
    scatter_one<S, M, HAS_SRC>(g, 2 * q + 1, v.y, src, value, out);
  }
}

unsigned blocks_for(long long items) {
  const long long b = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 16384 ? 16384 : b));
}

bool dense(const kgb_tensor* t) {
  long long expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

template <typename S>
int copy_self(const kgb_tensor* self, kgb_tensor* out, hipStream_t s) {
  const long long n = kgb_numel(self);
  if (n == 0) return KGB_OK;
  if (dense(self) && dense(out))
    return hipMemcpyAsync(out->data, self->data, static_cast<size_t>(n) * sizeof(S), hipMemcpyDeviceToDevice, s) == hipSuccess
               ? KGB_OK : KGB_ERR_INVALID;
  Geometry c{};
  c.numel = n;
  for (int d = 0; d < self->rank; ++d) {
    c.size[d] = self->sizes[d];
    c.os[d] = out->strides[d];
    c.ss[d] = self->strides[d];
  }
  copy_strided<S><<<blocks_for(n), kThreads, 0, s>>>(static_cast<S*>(out->data), static_cast<const S*>(self->data),
                                                     self->rank, c);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

template <typename S, int M, bool HAS_SRC>
void launch_scatter(const kgb_tensor* index, const S* src, typename Elem<S>::A value, S* out, const Geometry& g,
                    bool index_dense, hipStream_t s) {
  const long long* ix = static_cast<const long long*>(index->data);
  if (index_dense && g.numel % 2 == 0 && reinterpret_cast<uintptr_t>(ix) % 16 == 0)
    scatter_dense2<S, M, HAS_SRC><<<blocks_for(g.numel / 2), kThreads, 0, s>>>(ix, src, value, out, g);
  else
    scatter_strided<S, M, HAS_SRC><<<blocks_for(g.numel), kThreads, 0, s>>>(ix, src, value, out, g);
}

// The scalar in S's arithmetic type, converted to S first (ATen's value.to<T>()).
template <typename S>
typename Elem<S>::A scalar_value(kgb_scalar v);
template <> float scalar_value<float>(kgb_scalar v) { return v.dtype == KGB_F64 ? static_cast<float>(v.v.f) : static_cast<float>(v.v.i); }
template <> double scalar_value<double>(kgb_scalar v) { return v.dtype == KGB_F64 ? v.v.f : static_cast<double>(v.v.i); }
template <> unsigned int scalar_value<int>(kgb_scalar v) {
  return static_cast<unsigned int>(static_cast<int>(v.dtype == KGB_F64 ? static_cast<long long>(v.v.f) : v.v.i));
}
template <> unsigned long long scalar_value<long long>(kgb_scalar v) {
  return static_cast<unsigned long long>(v.dtype == KGB_F64 ? static_cast<long long>(v.v.f) : v.v.i);
}
template <> float scalar_value<F16>(kgb_scalar v) { return kgb_f16_to_float(kgb_float_to_f16(scalar_value<float>(v))); }
template <> float scalar_value<BF16>(kgb_scalar v) { return kgb_bf16_to_float(kgb_float_to_bf16(scalar_value<float>(v))); }

template <typename S>
int run_typed(const kgb_tensor* self, const kgb_tensor* index, const kgb_tensor* src, kgb_scalar value, int mode,
              kgb_tensor* out, const Geometry& g, hipStream_t s) {
  if (const int st = copy_self<S>(self, out, s); st != KGB_OK) return st;
  if (g.numel == 0 || kgb_numel(out) == 0) return KGB_OK;
  const S* sx = src ? static_cast<const S*>(src->data) : nullptr;
  S* y = static_cast<S*>(out->data);
  const typename Elem<S>::A v = src ? typename Elem<S>::A{} : scalar_value<S>(value);
  const bool index_dense = dense(index);
  if (src) {
    if (mode == kSet) launch_scatter<S, kSet, true>(index, sx, v, y, g, index_dense, s);
    else if (mode == kAdd) launch_scatter<S, kAdd, true>(index, sx, v, y, g, index_dense, s);
    else launch_scatter<S, kMultiply, true>(index, sx, v, y, g, index_dense, s);
  } else {
    if (mode == kSet) launch_scatter<S, kSet, false>(index, sx, v, y, g, index_dense, s);
    else if (mode == kAdd) launch_scatter<S, kAdd, false>(index, sx, v, y, g, index_dense, s);
    else launch_scatter<S, kMultiply, false>(index, sx, v, y, g, index_dense, s);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

int run(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, kgb_scalar value, int mode,
        kgb_tensor* out, kgb_stream stream) {
  const int rank = self->rank;
  if (index->dtype != KGB_I64 || out->dtype != self->dtype || out->rank != rank || index->rank != rank) return KGB_ERR_INVALID;
  if (src && (src->dtype != self->dtype || src->rank != rank)) return KGB_ERR_INVALID;
  const int nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Geometry g{};
  g.rank = 1;
  g.size[0] = 1;
  g.len = 1;
  g.numel = 1;
  if (rank > 0) {
    g.rank = rank;
    for (int d = 0; d < rank; ++d) {
      if (out->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
      if (d != dim && index->sizes[d] > self->sizes[d]) return KGB_ERR_INVALID;
      if (src && index->sizes[d] > src->sizes[d]) return KGB_ERR_INVALID;
      g.size[d] = index->sizes[d];
      g.is[d] = index->strides[d];
      g.ss[d] = src ? src->strides[d] : 0;
      g.os[d] = d == dim ? 0 : out->strides[d];
      g.numel *= index->sizes[d];
    }
    g.len = self->sizes[dim];
    g.out_dim_stride = out->strides[dim];
  }
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return run_typed<float>(self, index, src, value, mode, out, g, s);
    case KGB_F64: return run_typed<double>(self, index, src, value, mode, out, g, s);
    case KGB_F16: return run_typed<F16>(self, index, src, value, mode, out, g, s);
    case KGB_BF16: return run_typed<BF16>(self, index, src, value, mode, out, g, s);
    case KGB_I32: return run_typed<int>(self, index, src, value, mode, out, g, s);
    case KGB_I64: return run_typed<long long>(self, index, src, value, mode, out, g, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_scatter(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src,
                                kgb_tensor* out, kgb_stream stream) {
  return run(self, dim, index, src, kgb_scalar{}, kSet, out, stream);
}

extern "C" int kgb_aten_scatter_value(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_scalar value,
                                      kgb_tensor* out, kgb_stream stream) {
  return run(self, dim, index, nullptr, value, kSet, out, stream);
}

extern "C" int kgb_aten_scatter_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index,
                                       const kgb_tensor* src, int reduce, kgb_tensor* out, kgb_stream stream) {
  if (reduce != 0 && reduce != 1) return KGB_ERR_INVALID;
  return run(self, dim, index, src, kgb_scalar{}, reduce == 0 ? kAdd : kMultiply, out, stream);
}

extern "C" int kgb_aten_scatter_value_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index,
                                             kgb_scalar value, int reduce, kgb_tensor* out, kgb_stream stream) {
  if (reduce != 0 && reduce != 1) return KGB_ERR_INVALID;
  return run(self, dim, index, nullptr, value, reduce == 0 ? kAdd : kMultiply, out, stream);
}
