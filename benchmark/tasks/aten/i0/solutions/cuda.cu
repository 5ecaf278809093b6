// aten/i0 in CUDA: out = I0(x), elementwise.
// float: Abramowitz & Stegun's polynomial approximations; double: power series up to |x| = 30, asymptotic expansion above.
// The host folds self and out into the fewest dimensions (size-1 dims
// dropped, dims contiguous in both merged). A folded rank-1 unit-stride
// problem takes the vector kernel (16-byte loads and stores, grid-stride
// loop, scalar tail); anything else one element per thread with offsets from
// the linear index. f16/bf16 and integer inputs compute in float and round
// once; f64 in double.
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

template <typename C>
struct OpArgs {};

// Modified Bessel function of the first kind, order 0.
// float: the polynomial approximations of Abramowitz & Stegun 9.8.1 (|x| < 3.75)
// and 9.8.2 (above; e^-|x| sqrt(|x|) I0 in powers of 3.75/|x|), relative error
// below 1e-6 in float: a few multiply-adds and one exp, no data-dependent loop.
// double: the power series sum_k ((x/2)^2)^k / (k!)^2 up to |x| = 30, the
// asymptotic expansion e^|x| / sqrt(2 pi |x|) * sum_k prod_{j<=k} (2j-1)^2 / (8 j |x|)
// above. Both multiply e^|x| last, as ATen does: +inf exactly when e^|x|
// overflows the compute type, NaN at |x| = inf (inf * 0).
template <typename C>
__device__ __forceinline__ C bessel_i0(C x) {
  const C ax = fabs(x);
  if (sizeof(C) == 4) {
    if (ax < C(3.75)) {
      C t = ax / C(3.75);
      t *= t;
      return C(1) + t * (C(3.5156229) + t * (C(3.0899424) + t * (C(1.2067492) + t * (C(0.2659732) +
             t * (C(0.0360768) + t * C(0.0045813))))));
    }
    const C u = C(3.75) / ax;
    const C p = C(0.39894228) + u * (C(0.01328592) + u * (C(0.00225319) + u * (C(-0.00157565) + u * (C(0.00916281) +
                u * (C(-0.02057706) + u * (C(0.02635537) + u * (C(-0.01647633) + u * C(0.00392377))))))));
    return exp(ax) * (p / sqrt(ax));
  }
  if (ax <= C(30)) {
    const C q = C(0.25) * ax * ax;
    C term = 1, sum = 1;
    for (int k = 1; k < 120; ++k) {
      term *= q / C(k * k);
      sum += term;
      if (term <= sum * C(1e-17)) break;
    }
    return sum;
  }
  const C inv8x = C(1) / (C(8) * ax);
  C term = 1, sum = 1;
  for (int k = 1; k <= 25; ++k) {
    term *= C((2 * k - 1) * (2 * k - 1)) * inv8x / C(k);
    sum += term;
  }
  return exp(ax) * (sum / sqrt(C(6.283185307179586476925) * ax));
}

// The op in compute type C (float, or double for f64).
template <typename C>
__device__ __forceinline__ C op(C x, const OpArgs<C>& p) {
  (void)p;
  return bessel_i0(x);
}

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
// Integer and bool inputs are read as their value (out is f32).
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

template <int OUT>
using Compute = typename std::conditional<OUT == KGB_F64, double, float>::type;

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
int run(const kgb_tensor* self, kgb_tensor* out, const OpArgs<Compute<OUT>>& p, cudaStream_t s) {
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
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

// Dispatch on (self dtype, out dtype): floating self gives the same dtype, integer and bool self give f32 (ATen's float(T)).
template <typename Make>
int dispatch(const kgb_tensor* self, kgb_tensor* out, Make make_args, cudaStream_t s) {
  switch (self->dtype) {
    case KGB_F32: return out->dtype == KGB_F32 ? run<KGB_F32, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_F64: return out->dtype == KGB_F64 ? run<KGB_F64, KGB_F64>(self, out, make_args(double()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_F16: return out->dtype == KGB_F16 ? run<KGB_F16, KGB_F16>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_BF16: return out->dtype == KGB_BF16 ? run<KGB_BF16, KGB_BF16>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_I32: return out->dtype == KGB_F32 ? run<KGB_I32, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_I64: return out->dtype == KGB_F32 ? run<KGB_I64, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    case KGB_BOOL: return out->dtype == KGB_F32 ? run<KGB_BOOL, KGB_F32>(self, out, make_args(float()), s) : KGB_ERR_UNSUPPORTED;
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_i0(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return dispatch(self, out, [&](auto zero) {
    using C = decltype(zero);
    OpArgs<C> p{};
    return p;
  }, static_cast<cudaStream_t>(stream));
}
