"""Source templates of the ATen unary float-op family (see unary.py).

Placeholders are @NAME@ (C++ braces stay literal). Each template is one
standalone file once filled: the skeleton (folding self/out into the fewest
dimensions, dtype dispatch, contiguous fast path, strided fallback) is shared,
the op's own function and its comment come from the op table.
"""

CPU = r'''// aten/@NAME@ on the CPU: out = @MATH@, elementwise.
// @OP_NOTE@
// self and out are folded into the fewest dimensions (size-1 dims dropped,
// dims contiguous in both merged) and walked in out's storage order. OpenMP
// splits the rows into chunks; @CPU_LOOP_NOTE@, a stride-0 row computes one value.
// f16/bf16 and integer inputs compute in float and round once; f64 in double.
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

@CPU_SIMD@namespace {

@CPU_ARGS@
@CPU_HELPERS@
// The op in compute type C (float, or double for f64).
template <typename C>
inline C op(C x, const OpArgs<C>& p) {
  (void)p;
@CPU_BODY@
}
@CPU_OP_EXTRA@
// Storage type and conversions of each dtype this entry reads or writes.
template <int DT> struct Elem;
template <> struct Elem<KGB_F32> {
  using S = float;
  static float load(S v) { return v; }
  static S store(float v) { return v; }
};
template <> struct Elem<KGB_F64> {
  using S = double;
  static double load(S v) { return v; }
  static S store(double v) { return v; }
};
template <> struct Elem<KGB_F16> {
  using S = uint16_t;
  static float load(S v) { return kgb_f16_to_float(v); }
  static S store(float v) { return kgb_float_to_f16(v); }
};
template <> struct Elem<KGB_BF16> {
  using S = uint16_t;
  static float load(S v) { return kgb_bf16_to_float(v); }
  static S store(float v) { return kgb_float_to_bf16(v); }
};
@CPU_INT_ELEMS@
@CPU_COMPUTE@
// ---- the iteration space: dim sizes and the element strides of out and self
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t so[KGB_MAX_RANK];
  int64_t si[KGB_MAX_RANK];
};

int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

bool build_space(const kgb_tensor* self, const kgb_tensor* out, Space& sp) {
  if (self->rank != out->rank || out->rank > KGB_MAX_RANK) return false;
  Space raw;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return false;
    if (out->sizes[d] == 1) continue;  // contributes nothing to addressing
    raw.size[raw.rank] = out->sizes[d];
    raw.so[raw.rank] = out->strides[d];
    raw.si[raw.rank] = self->strides[d];
    ++raw.rank;
  }
  // Walk out in storage order: dims sorted by |out stride|, largest first.
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0 && magnitude(raw.so[j - 1]) < magnitude(raw.so[j]); --j) {
      int64_t t = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = t;
      t = raw.so[j]; raw.so[j] = raw.so[j - 1]; raw.so[j - 1] = t;
      t = raw.si[j]; raw.si[j] = raw.si[j - 1]; raw.si[j - 1] = t;
    }
  // Fuse a dim into the previous one when both tensors step over it exactly one row.
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    const int p = sp.rank - 1;
    if (p >= 0 && sp.so[p] == raw.so[d] * raw.size[d] && sp.si[p] == raw.si[d] * raw.size[d]) {
      sp.size[p] *= raw.size[d];
      sp.so[p] = raw.so[d];
      sp.si[p] = raw.si[d];
      continue;
    }
    sp.size[sp.rank] = raw.size[d];
    sp.so[sp.rank] = raw.so[d];
    sp.si[sp.rank] = raw.si[d];
    ++sp.rank;
  }
  if (sp.rank == 0) {  // a single element
    sp.rank = 1;
    sp.size[0] = 1;
    sp.so[0] = sp.si[0] = 0;
  }
  return true;
}

// One row of n elements: unit strides, a broadcast (stride-0) input, or general strides.
template <int IN, int OUT>
void row(const typename Elem<IN>::S* __restrict a, int64_t sa, typename Elem<OUT>::S* __restrict o, int64_t so,
         int64_t n, const OpArgs<Compute<OUT>>& p) {
  using C = Compute<OUT>;
  if (sa == 1 && so == 1) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = Elem<OUT>::store(op<C>(static_cast<C>(Elem<IN>::load(a[i])), p));
  } else if (sa == 0) {
    const typename Elem<OUT>::S v = Elem<OUT>::store(op<C>(static_cast<C>(Elem<IN>::load(a[0])), p));
    for (int64_t i = 0; i < n; ++i) o[i * so] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) o[i * so] = Elem<OUT>::store(op<C>(static_cast<C>(Elem<IN>::load(a[i * sa])), p));
  }
}

template <int IN, int OUT>
int run(const kgb_tensor* self, kgb_tensor* out, const OpArgs<Compute<OUT>>& p) {
  Space sp;
  if (!build_space(self, out, sp)) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  const auto* a = static_cast<const typename Elem<IN>::S*>(self->data);
  auto* o = static_cast<typename Elem<OUT>::S*>(out->data);
  // Work items: (outer index, chunk of the innermost dim).
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t kChunk = 8192;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
#pragma omp parallel for schedule(static) if (outer * inner > 16384)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rest = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t oo = begin * sp.so[last], io = begin * sp.si[last];
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rest % sp.size[d];
      rest /= sp.size[d];
      oo += i * sp.so[d];
      io += i * sp.si[d];
    }
    const int64_t len = inner - begin < kChunk ? inner - begin : kChunk;
    row<IN, OUT>(a + io, sp.si[last], o + oo, sp.so[last], len, p);
  }
  return KGB_OK;
}

// Dispatch on (self dtype, out dtype): @DTYPE_RULE@
template <typename Make>
int dispatch(const kgb_tensor* self, kgb_tensor* out, Make make_args) {
  switch (self->dtype) {
    case KGB_F32: return out->dtype == KGB_F32 ? run<KGB_F32, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_F64: return out->dtype == KGB_F64 ? run<KGB_F64, KGB_F64>(self, out, make_args(double())) : KGB_ERR_UNSUPPORTED;
    case KGB_F16: return out->dtype == KGB_F16 ? run<KGB_F16, KGB_F16>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_BF16: return out->dtype == KGB_BF16 ? run<KGB_BF16, KGB_BF16>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
@CPU_INT_CASES@    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_@CNAME@(@SIGNATURE@) {
  (void)stream;
@HOST_CHECKS@  return dispatch(self, out, [&](auto zero) {
    using C = decltype(zero);
    OpArgs<C> p{};
@HOST_ARGS@    return p;
  });
}
'''

CPU_INT_ELEMS = r'''// Integer and bool inputs are read as their value (out is f32).
template <> struct Elem<KGB_I32> {
  using S = int32_t;
  static float load(S v) { return static_cast<float>(v); }
};
template <> struct Elem<KGB_I64> {
  using S = int64_t;
  static float load(S v) { return static_cast<float>(v); }
};
template <> struct Elem<KGB_BOOL> {
  using S = uint8_t;
  static float load(S v) { return v ? 1.0f : 0.0f; }
};
'''

CPU_COMPUTE = r'''// The compute type of each output dtype: float, or double for f64.
template <int OUT>
using Compute = std::conditional_t<OUT == KGB_F64, double, float>;
'''

GPU_COMPUTE = r'''template <int OUT>
using Compute = typename std::conditional<OUT == KGB_F64, double, float>::type;
'''

OCL_COMPUTE = r'''#if KGB_OUT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double C;
#else
typedef float C;
#endif
'''

OCL_IN_INTS = r'''#elif KGB_IN == 2
typedef int SI;
#define LOAD(v) ((float)(v))
#elif KGB_IN == 3
typedef long SI;
#define LOAD(v) ((float)(v))
#elif KGB_IN == 0
typedef uchar SI;
#define LOAD(v) ((v) ? 1.0f : 0.0f)
'''

CPU_INT_CASES = r'''    case KGB_I32: return out->dtype == KGB_F32 ? run<KGB_I32, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_I64: return out->dtype == KGB_F32 ? run<KGB_I64, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_BOOL: return out->dtype == KGB_F32 ? run<KGB_BOOL, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
'''

# CUDA and HIP share this text; @RT@ is cuda or hip.
GPU = r'''// aten/@NAME@ in @LANG@: out = @MATH@, elementwise.
// @OP_NOTE@
// The host folds self and out into the fewest dimensions (size-1 dims
// dropped, dims contiguous in both merged). A folded rank-1 unit-stride
// problem takes the vector kernel (16-byte loads and stores, grid-stride
// loop, scalar tail); anything else one element per thread with offsets from
// the linear index. f16/bf16 and integer inputs compute in float and round
// once; f64 in double.
#include <@RT_HEADER@>
#include <stdint.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

@GPU_ARGS@
@GPU_HELPERS@
// The op in compute type C (float, or double for f64).
template <typename C>
__device__ __forceinline__ C op(C x, const OpArgs<C>& p) {
  (void)p;
@GPU_BODY@
}
@GPU_OP_EXTRA@
template <int DT> struct Elem;
template <> struct Elem<KGB_F32> {
  using S = float;
  static __device__ __forceinline__ float load(S v) { return v; }
  static __device__ __forceinline__ S store(float v) { return v; }
};
template <> struct Elem<KGB_F64> {
  using S = double;
  static __device__ __forceinline__ double load(S v) { return v; }
  static __device__ __forceinline__ S store(double v) { return v; }
};
template <> struct Elem<KGB_F16> {
  using S = uint16_t;
  static __device__ __forceinline__ float load(S v) { return kgb_f16_to_float(v); }
  static __device__ __forceinline__ S store(float v) { return kgb_float_to_f16(v); }
};
template <> struct Elem<KGB_BF16> {
  using S = uint16_t;
  static __device__ __forceinline__ float load(S v) { return kgb_bf16_to_float(v); }
  static __device__ __forceinline__ S store(float v) { return kgb_float_to_bf16(v); }
};
@GPU_INT_ELEMS@
@GPU_COMPUTE@
template <int IN, int OUT>
__device__ __forceinline__ typename Elem<OUT>::S apply(typename Elem<IN>::S v, const OpArgs<Compute<OUT>>& p) {
  return Elem<OUT>::store(op<Compute<OUT>>(static_cast<Compute<OUT>>(Elem<IN>::load(v)), p));
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// Contiguous: V elements per thread and step, then the n % V tail.
template <int IN, int OUT, int V>
__global__ void __launch_bounds__(kThreads) unary_contiguous(const typename Elem<IN>::S* __restrict__ a,
                                                             typename Elem<OUT>::S* __restrict__ o, int64_t n,
                                                             OpArgs<Compute<OUT>> p) {
  using PI = Pack<typename Elem<IN>::S, V>;
  using PO = Pack<typename Elem<OUT>::S, V>;
  const int64_t packs = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (int64_t i = first; i < packs; i += step) {
    const PI in = reinterpret_cast<const PI*>(a)[i];
    PO r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = apply<IN, OUT>(in.v[k], p);
    reinterpret_cast<PO*>(o)[i] = r;
  }
  for (int64_t i = packs * V + first; i < n; i += step) o[i] = apply<IN, OUT>(a[i], p);
}

// The folded problem: sizes and element strides of out (so) and self (si).
struct Geometry {
  int rank;
  int64_t size[KGB_MAX_RANK], so[KGB_MAX_RANK], si[KGB_MAX_RANK];
};

template <int IN, int OUT>
__global__ void __launch_bounds__(kThreads) unary_strided(const typename Elem<IN>::S* __restrict__ a,
                                                          typename Elem<OUT>::S* __restrict__ o, Geometry g, int64_t n,
                                                          OpArgs<Compute<OUT>> p) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t rest = i, oo = 0, io = 0;
    for (int d = g.rank - 1; d > 0; --d) {
      const int64_t q = rest / g.size[d], k = rest - q * g.size[d];
      rest = q;
      oo += k * g.so[d];
      io += k * g.si[d];
    }
    o[oo + rest * g.so[0]] = apply<IN, OUT>(a[io + rest * g.si[0]], p);
  }
}

bool fold(const kgb_tensor* self, const kgb_tensor* out, Geometry& g) {
  if (self->rank != out->rank || out->rank > KGB_MAX_RANK) return false;
  g.rank = 0;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return false;
    if (out->sizes[d] == 1) continue;
    const int p = g.rank - 1;
    if (p >= 0 && g.so[p] == out->strides[d] * out->sizes[d] && g.si[p] == self->strides[d] * out->sizes[d]) {
      g.size[p] *= out->sizes[d];
      g.so[p] = out->strides[d];
      g.si[p] = self->strides[d];
      continue;
    }
    g.size[g.rank] = out->sizes[d];
    g.so[g.rank] = out->strides[d];
    g.si[g.rank] = self->strides[d];
    ++g.rank;
  }
  if (g.rank == 0) {  // a single element
    g.rank = 1;
    g.size[0] = 1;
    g.so[0] = g.si[0] = 0;
  }
  return true;
}

unsigned blocks_for(int64_t items) {
  const int64_t b = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 8192 ? 8192 : b));  // grid-stride beyond this
}

template <int IN, int OUT>
int run(const kgb_tensor* self, kgb_tensor* out, const OpArgs<Compute<OUT>>& p, @RT@Stream_t s) {
  Geometry g;
  if (!fold(self, out, g)) return KGB_ERR_INVALID;
  const int64_t n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  const auto* a = static_cast<const typename Elem<IN>::S*>(self->data);
  auto* o = static_cast<typename Elem<OUT>::S*>(out->data);
  using SI = typename Elem<IN>::S;
  using SO = typename Elem<OUT>::S;
  constexpr int V = 16 / (sizeof(SI) > sizeof(SO) ? sizeof(SI) : sizeof(SO));
  if (g.rank == 1 && g.so[0] == 1 && g.si[0] == 1) {
    const bool aligned = reinterpret_cast<uintptr_t>(a) % (sizeof(SI) * V) == 0 &&
                         reinterpret_cast<uintptr_t>(o) % (sizeof(SO) * V) == 0;
    if (aligned) unary_contiguous<IN, OUT, V><<<blocks_for(n / V + 1), kThreads, 0, s>>>(a, o, n, p);
    else unary_contiguous<IN, OUT, 1><<<blocks_for(n), kThreads, 0, s>>>(a, o, n, p);
  } else {
    unary_strided<IN, OUT><<<blocks_for(n), kThreads, 0, s>>>(a, o, g, n, p);
  }
  return @RT@GetLastError() == @RT@Success ? KGB_OK : KGB_ERR_INVALID;
}

// Dispatch on (self dtype, out dtype): @DTYPE_RULE@
template <typename Make>
int dispatch(const kgb_tensor* self, kgb_tensor* out, Make make_args, @RT@Stream_t s) {
  switch (self->dtype) {
    case KGB_F32: return out->dtype == KGB_F32 ? run<KGB_F32, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_F64: return out->dtype == KGB_F64 ? run<KGB_F64, KGB_F64>(self, out, make_args(double()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_F16: return out->dtype == KGB_F16 ? run<KGB_F16, KGB_F16>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_BF16: return out->dtype == KGB_BF16 ? run<KGB_BF16, KGB_BF16>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
@GPU_INT_CASES@    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_@CNAME@(@SIGNATURE@) {
@HOST_CHECKS@  return dispatch(self, out, [&](auto zero) {
    using C = decltype(zero);
    OpArgs<C> p{};
@HOST_ARGS@    return p;
  }, static_cast<@RT@Stream_t>(stream));
}
'''

GPU_INT_ELEMS = r'''// Integer and bool inputs are read as their value (out is f32).
template <> struct Elem<KGB_I32> {
  using S = int32_t;
  static __device__ __forceinline__ float load(S v) { return static_cast<float>(v); }
};
template <> struct Elem<KGB_I64> {
  using S = int64_t;
  static __device__ __forceinline__ float load(S v) { return static_cast<float>(v); }
};
template <> struct Elem<KGB_BOOL> {
  using S = uint8_t;
  static __device__ __forceinline__ float load(S v) { return v ? 1.0f : 0.0f; }
};
'''

GPU_INT_CASES = r'''    case KGB_I32: return out->dtype == KGB_F32 ? run<KGB_I32, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_I64: return out->dtype == KGB_F32 ? run<KGB_I64, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_BOOL: return out->dtype == KGB_F32 ? run<KGB_BOOL, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
'''

OPENCL = r'''// aten/@NAME@ in OpenCL: out = @MATH@, elementwise.
// @OP_NOTE@
// The host folds self and out into the fewest dimensions (size-1 dims
// dropped, dims contiguous in both merged): a unit-stride problem runs the
// flat kernel (four elements per work-item), anything else one work-item per
// element with offsets from the linear index. The program is built once per
// (input, output) dtype pair (-DKGB_IN/-DKGB_OUT); f16/bf16 are ushort data
// computed in float, f64 only where the device has fp64.
#include <stdint.h>

#include <string>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_IN
#define KGB_IN 6
#endif
#ifndef KGB_OUT
#define KGB_OUT 6
#endif
@OCL_COMPUTE@
#if KGB_IN == 6
typedef float SI;
#define LOAD(v) (v)
#elif KGB_IN == 7
typedef double SI;
#define LOAD(v) (v)
#elif KGB_IN == 4
typedef ushort SI;
#define LOAD(v) kgb_f16_to_float(v)
#elif KGB_IN == 5
typedef ushort SI;
#define LOAD(v) kgb_bf16_to_float(v)
@OCL_IN_EXTRA@#endif

#if KGB_OUT == 6
typedef float SO;
#define STORE(v) (v)
#elif KGB_OUT == 7
typedef double SO;
#define STORE(v) (v)
#elif KGB_OUT == 4
typedef ushort SO;
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_OUT == 5
typedef ushort SO;
#define STORE(v) kgb_float_to_bf16(v)
@OCL_OUT_EXTRA@#endif
@OCL_HELPERS@
// The op in compute type C.
C op(C x@OCL_PARAMS@) {
@OCL_BODY@
}

__kernel void unary_flat(__global const SI* a, long a_off, __global SO* o, long o_off, long n@OCL_PARAMS@) {
  long i = get_global_id(0) * 4;
  a += a_off;
  o += o_off;
  if (i + 4 <= n) {
    o[i] = STORE(op((C)LOAD(a[i])@OCL_ARGS@));
    o[i + 1] = STORE(op((C)LOAD(a[i + 1])@OCL_ARGS@));
    o[i + 2] = STORE(op((C)LOAD(a[i + 2])@OCL_ARGS@));
    o[i + 3] = STORE(op((C)LOAD(a[i + 3])@OCL_ARGS@));
  } else {
    for (; i < n; ++i) o[i] = STORE(op((C)LOAD(a[i])@OCL_ARGS@));
  }
}

typedef struct { long size[8]; long so[8]; long si[8]; } Geometry;

__kernel void unary_nd(__global const SI* a, long a_off, __global SO* o, long o_off, Geometry g, int rank, long n@OCL_PARAMS@) {
  long i = get_global_id(0);
  if (i >= n) return;
  long oo = o_off, io = a_off, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    oo += k * g.so[d];
    io += k * g.si[d];
  }
  oo += r * g.so[0];
  io += r * g.si[0];
  o[oo] = STORE(op((C)LOAD(a[io])@OCL_ARGS@));
}
)CLC";

struct Geometry {
  cl_long size[8], so[8], si[8];
};

bool fold(const kgb_tensor* self, const kgb_tensor* out, Geometry& g, int& rank) {
  if (self->rank != out->rank || out->rank > 8) return false;
  rank = 0;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return false;
    if (out->sizes[d] == 1) continue;
    const int p = rank - 1;
    if (p >= 0 && g.so[p] == out->strides[d] * out->sizes[d] && g.si[p] == self->strides[d] * out->sizes[d]) {
      g.size[p] *= out->sizes[d];
      g.so[p] = out->strides[d];
      g.si[p] = self->strides[d];
      continue;
    }
    g.size[rank] = out->sizes[d];
    g.so[rank] = out->strides[d];
    g.si[rank] = self->strides[d];
    ++rank;
  }
  if (rank == 0) {
    rank = 1;
    g.size[0] = 1;
    g.so[0] = g.si[0] = 0;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.so[d] = g.si[d] = 0;
  return true;
}

// @DTYPE_RULE@
bool supported(int32_t in, int32_t out) {
  switch (in) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: return out == in;
@OCL_INT_CASES@    default: return false;
  }
}

}  // namespace

extern "C" int kgb_aten_@CNAME@(@SIGNATURE@) {
@HOST_CHECKS@  if (!supported(self->dtype, out->dtype)) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!fold(self, out, g, rank)) return KGB_ERR_INVALID;
  const cl_long count = kgb_numel(out);
  if (count == 0) return KGB_OK;
  const std::string options = "-cl-std=CL1.2 -DKGB_IN=" + std::to_string(self->dtype) + " -DKGB_OUT=" + std::to_string(out->dtype);
  const bool flat = rank == 1 && g.so[0] == 1 && g.si[0] == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), flat ? "unary_flat" : "unary_nd", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, out);
  cl_uint next = 4;
  if (!flat) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof count, &count);
@OCL_HOST_ARGS@  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t items = flat ? static_cast<size_t>((count + 3) / 4) : static_cast<size_t>(count);
  const size_t global = (items + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
'''

OCL_INT_CASES = r'''    case KGB_I32: case KGB_I64: case KGB_BOOL: return out == KGB_F32;  // integer inputs give f32
'''

REFERENCE = r'''// Reference for aten/@NAME@: out = @MATH@, elementwise.
// Computed in double from the logical input values (integer and bool inputs
// read as their value) and rounded once into out's dtype.@REF_NOTE@
#include <cmath>
#include <limits>
#include <vector>
@REF_INCLUDES@
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

@REF_HELPERS@
void @CNAME@_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
@REF_SETUP@  kgb::pointwise::map_doubles({&self}, out, [&](const std::vector<double>& v) {
    const double x = v[0];
@REF_BODY@
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/@NAME@", @CNAME@_reference);
'''

BASELINE = r'''// aten/@NAME@, plain OpenCL baseline: one work-item per output element,
// out = @MATH@ through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/@NAME@.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(
@OCL_HELPERS@
C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
@BL_BODY@
}
)CLC");

int @CNAME@(@SIGNATURE@) {
@HOST_CHECKS@@BL_ARGS@  return unary::run(self, out, stream, kSource, @BL_CALL@);
}

}  // namespace
KGB_BASELINE(aten_@CNAME@, kKind, @CNAME@);
}  // namespace kgb::opencl::plain
'''
