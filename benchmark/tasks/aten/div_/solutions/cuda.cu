// aten/div_ on CUDA: self /= other (true, trunc or floor rounding), with PyTorch broadcasting and type
// promotion. The host computes ATen's result type and folds the views into
// the fewest dimensions (broadcast dims stride 0, size-1 dims dropped, dims
// contiguous for every tensor merged). Then:
//  - every tensor flat and contiguous, a and b of one dtype: a grid-stride
//    kernel on the storage types with 16-byte vector loads of a and b;
//  - anything else (strided, broadcast, mixed dtypes): one element per thread
//    in a grid-stride loop, offsets from the linear index, each operand
//    converted from its dtype into the computation type (ATen's dynamic cast).
// 16-bit floats compute in float and round once; f64 in double; integers and
// bool in int64.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

// ---- dtypes and ATen's type promotion (host) ----------------------------------
__host__ __device__ inline bool is_float_dtype(int32_t t) {
  return t == KGB_F16 || t == KGB_BF16 || t == KGB_F32 || t == KGB_F64;
}
bool supported_dtype(int32_t t) { return t == KGB_BOOL || t == KGB_I32 || t == KGB_I64 || is_float_dtype(t); }

// torch.promote_types over bool, i32, i64, f16, bf16, f32, f64.
int32_t promote(int32_t a, int32_t b) {
  if (a == b) return a;
  if (a == KGB_BOOL) return b;
  if (b == KGB_BOOL) return a;
  const bool fa = is_float_dtype(a), fb = is_float_dtype(b);
  if (fa != fb) return fa ? a : b;
  if (!fa) return KGB_I64;
  if (a == KGB_F64 || b == KGB_F64) return KGB_F64;
  return KGB_F32;
}

// torch.result_type: a dimensioned tensor beats a zero-dim tensor, which beats
// a Scalar, unless the lower one is of a higher category.
enum Level { kDimensioned = 0, kZeroDim = 1, kScalar = 2 };
struct Operand {
  const kgb_tensor* t = nullptr;  // nullptr: an ATen Scalar
  kgb_scalar s{};
  int32_t dtype = KGB_F32;        // a Scalar counts as bool, i64 or (default dtype) f32
  Level level = kDimensioned;
};
Operand tensor_operand(const kgb_tensor* t) {
  Operand o;
  o.t = t;
  o.dtype = t->dtype;
  o.level = t->rank == 0 ? kZeroDim : kDimensioned;
  return o;
}
Operand scalar_operand(kgb_scalar s) {
  Operand o;
  o.s = s;
  o.dtype = s.dtype == KGB_F64 ? KGB_F32 : (s.dtype == KGB_BOOL ? KGB_BOOL : KGB_I64);
  o.level = kScalar;
  return o;
}
double scalar_value(const Operand& o) { return o.s.dtype == KGB_F64 ? o.s.v.f : static_cast<double>(o.s.v.i); }

int32_t result_type(const Operand& a, const Operand& b) {
  if (a.level == b.level) return promote(a.dtype, b.dtype);
  const int32_t higher = a.level < b.level ? a.dtype : b.dtype, lower = a.level < b.level ? b.dtype : a.dtype;
  if (is_float_dtype(higher)) return higher;
  if (higher == KGB_BOOL || is_float_dtype(lower)) return promote(higher, lower);
  return higher;
}

// ---- the operation --------------------------------------------------------------
// True division computes in float(common dtype): integer operands divide in f32.
struct DivTrue {
  static int32_t compute_dtype(int32_t common) { return is_float_dtype(common) ? common : KGB_F32; }
  static constexpr bool kDouble = true, kInt64 = false;  // computation types besides float
  template <typename C>
  static __host__ __device__ __forceinline__ C apply(C a, C b) { return a / b; }
};
// rounding_mode "trunc": the quotient rounded toward zero, in the common dtype.
struct DivTrunc {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static __host__ __device__ __forceinline__ C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) return a / b;
    else return trunc(a / b);
  }
};
// "trunc" with an f16/bf16 common dtype: ATen divides in that dtype, so the
// float quotient is rounded to 16 bits before it is truncated.
struct RoundF16 {
  static __host__ __device__ __forceinline__ float apply(float v) { return kgb_f16_to_float(kgb_float_to_f16(v)); }
};
struct RoundBF16 {
  static __host__ __device__ __forceinline__ float apply(float v) { return kgb_bf16_to_float(kgb_float_to_bf16(v)); }
};
template <typename Round>
struct DivTruncRounded {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = false, kInt64 = false;  // computation types besides float
  template <typename C>
  static __host__ __device__ __forceinline__ C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) return a / b;
    else return trunc(static_cast<C>(Round::apply(static_cast<float>(a / b))));
  }
};
// rounding_mode "floor": the quotient rounded toward -inf, in the common dtype.
struct DivFloor {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static __host__ __device__ __forceinline__ C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) {
      const C q = a / b, r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
    } else {
      if (b == C(0)) return a / b;
      C mod = fmod(a, b);
      C div = (a - mod) / b;
      if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
      if (div == C(0)) return copysign(C(0), a / b);
      C floordiv = floor(div);
      if (div - floordiv > C(0.5)) floordiv += C(1);
      return floordiv;
    }
  }
};

// ---- element conversions (device) ----------------------------------------------
// Storage type and conversions of each dtype.
template <int DT> struct Dt;
template <> struct Dt<KGB_F32> {
  using S = float;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(v); }
  template <typename R> __device__ static S store(R v) { return static_cast<S>(v); }
};
template <> struct Dt<KGB_F64> {
  using S = double;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(v); }
  template <typename R> __device__ static S store(R v) { return static_cast<S>(v); }
};
template <> struct Dt<KGB_F16> {
  using S = uint16_t;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(kgb_f16_to_float(v)); }
  template <typename R> __device__ static S store(R v) { return kgb_float_to_f16(static_cast<float>(v)); }
};
template <> struct Dt<KGB_BF16> {
  using S = uint16_t;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(kgb_bf16_to_float(v)); }
  template <typename R> __device__ static S store(R v) { return kgb_float_to_bf16(static_cast<float>(v)); }
};
template <> struct Dt<KGB_I32> {
  using S = int32_t;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(v); }
  template <typename R> __device__ static S store(R v) { return static_cast<S>(v); }
};
template <> struct Dt<KGB_I64> {
  using S = int64_t;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(v); }
  template <typename R> __device__ static S store(R v) { return static_cast<S>(v); }
};
template <> struct Dt<KGB_BOOL> {
  using S = uint8_t;
  template <typename C> __device__ static C load(S v) { return static_cast<C>(v != 0); }
  template <typename R> __device__ static S store(R v) { return static_cast<S>(v != R(0)); }
};

// Element i of a dtype-erased operand in C; an operand of another dtype whose
// common dtype is f16/bf16 (an integer, or an f32/f64 zero-dim tensor) is
// rounded to it first, as ATen casts every input to that dtype.
template <typename C>
__device__ __forceinline__ C load_as(const char* p, int64_t i, int32_t dt, int32_t common) {
  C v;
  switch (dt) {
    case KGB_F32: v = Dt<KGB_F32>::load<C>(reinterpret_cast<const float*>(p)[i]); break;
    case KGB_F64: v = Dt<KGB_F64>::load<C>(reinterpret_cast<const double*>(p)[i]); break;
    case KGB_F16: v = Dt<KGB_F16>::load<C>(reinterpret_cast<const uint16_t*>(p)[i]); break;
    case KGB_BF16: v = Dt<KGB_BF16>::load<C>(reinterpret_cast<const uint16_t*>(p)[i]); break;
    case KGB_I32: v = Dt<KGB_I32>::load<C>(reinterpret_cast<const int32_t*>(p)[i]); break;
    case KGB_I64: v = Dt<KGB_I64>::load<C>(reinterpret_cast<const int64_t*>(p)[i]); break;
    default: v = Dt<KGB_BOOL>::load<C>(reinterpret_cast<const uint8_t*>(p)[i]); break;
  }
  if (dt != common && common == KGB_F16) v = static_cast<C>(kgb_f16_to_float(kgb_float_to_f16(static_cast<float>(v))));
  if (dt != common && common == KGB_BF16) v = static_cast<C>(kgb_bf16_to_float(kgb_float_to_bf16(static_cast<float>(v))));
  return v;
}

template <typename R>
__device__ __forceinline__ void store_as(char* p, int64_t i, int32_t dt, R v) {
  switch (dt) {
    case KGB_F32: reinterpret_cast<float*>(p)[i] = Dt<KGB_F32>::store(v); break;
    case KGB_F64: reinterpret_cast<double*>(p)[i] = Dt<KGB_F64>::store(v); break;
    case KGB_F16: reinterpret_cast<uint16_t*>(p)[i] = Dt<KGB_F16>::store(v); break;
    case KGB_BF16: reinterpret_cast<uint16_t*>(p)[i] = Dt<KGB_BF16>::store(v); break;
    case KGB_I32: reinterpret_cast<int32_t*>(p)[i] = Dt<KGB_I32>::store(v); break;
    case KGB_I64: reinterpret_cast<int64_t*>(p)[i] = Dt<KGB_I64>::store(v); break;
    default: reinterpret_cast<uint8_t*>(p)[i] = Dt<KGB_BOOL>::store(v); break;
  }
}

// ---- kernels ------------------------------------------------------------------
template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// Flat contiguous a, b (nullptr: the Scalar bs) and out; V elements per step.
template <typename Op, typename C, int DT, int ODT, int V>
__global__ void __launch_bounds__(kThreads) binary_flat(typename Dt<ODT>::S* o,
                                                        const typename Dt<DT>::S* a,
                                                        const typename Dt<DT>::S* b, int64_t n, C bs) {
  using S = typename Dt<DT>::S;
  using O = typename Dt<ODT>::S;
  const int64_t packs = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (int64_t p = first; p < packs; p += step) {
    const Pack<S, V> av = reinterpret_cast<const Pack<S, V>*>(a)[p];
    Pack<S, V> bv;
    if (b) bv = reinterpret_cast<const Pack<S, V>*>(b)[p];
    Pack<O, V> ov;
#pragma unroll
    for (int k = 0; k < V; ++k)
      ov.v[k] = Dt<ODT>::store(Op::apply(Dt<DT>::template load<C>(av.v[k]), b ? Dt<DT>::template load<C>(bv.v[k]) : bs));
    reinterpret_cast<Pack<O, V>*>(o)[p] = ov;
  }
  for (int64_t i = packs * V + first; i < n; i += step)
    o[i] = Dt<ODT>::store(Op::apply(Dt<DT>::template load<C>(a[i]), b ? Dt<DT>::template load<C>(b[i]) : bs));
}

// The folded problem: sizes and per-tensor strides (0 out, 1 a, 2 b).
struct Geometry {
  int ndim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t strides[3][KGB_MAX_RANK] = {};
};
struct Dtypes {
  int32_t out, a, b, common;
};

template <typename Op, typename C>
__global__ void __launch_bounds__(kThreads) binary_strided(char* o, const char* a,
                                                           const char* b, Geometry g, int64_t n, Dtypes dt,
                                                           C bs) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t rest = i, oo = 0, ao = 0, bo = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t c = rest % g.sizes[d];
      rest /= g.sizes[d];
      oo += c * g.strides[0][d];
      ao += c * g.strides[1][d];
      bo += c * g.strides[2][d];
    }
    const C x = load_as<C>(a, ao, dt.a, dt.common);
    const C y = b ? load_as<C>(b, bo, dt.b, dt.common) : bs;
    store_as(o, oo, dt.out, Op::apply(x, y));
  }
}

// ---- host side -------------------------------------------------------------------
bool fold(const kgb_tensor* out, const kgb_tensor* a, const kgb_tensor* b, Geometry& g) {
  const kgb_tensor* ts[3] = {out, a, b};
  const int rank = out->rank;
  int64_t sizes[KGB_MAX_RANK], strides[3][KGB_MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    sizes[d] = out->sizes[d];
    for (int t = 0; t < 3; ++t) {
      const int td = ts[t] ? d - (rank - ts[t]->rank) : -1;
      if (td < 0 || ts[t]->sizes[td] == 1) strides[t][d] = 0;
      else if (ts[t]->sizes[td] == out->sizes[d]) strides[t][d] = ts[t]->strides[td];
      else return false;
    }
  }
  g.ndim = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (g.ndim > 0) {
      const int last = g.ndim - 1;
      bool mergeable = true;
      for (int t = 0; t < 3; ++t) mergeable = mergeable && g.strides[t][last] == strides[t][d] * sizes[d];
      if (mergeable) {
        g.sizes[last] *= sizes[d];
        for (int t = 0; t < 3; ++t) g.strides[t][last] = strides[t][d];
        continue;
      }
    }
    g.sizes[g.ndim] = sizes[d];
    for (int t = 0; t < 3; ++t) g.strides[t][g.ndim] = strides[t][d];
    ++g.ndim;
  }
  if (g.ndim == 0) {  // a single element
    g.ndim = 1;
    g.sizes[0] = 1;
    for (int t = 0; t < 3; ++t) g.strides[t][0] = ts[t] ? 1 : 0;
  }
  return true;
}

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The vectorised kernel when every pointer is 16-byte aligned (false otherwise:
// an offset view, which the strided kernel takes).
template <typename Op, typename C, int DT, int ODT>
bool launch_flat(kgb_tensor* out, const Operand& a, const Operand& b, int64_t n, C bs, cudaStream_t s) {
  using S = typename Dt<DT>::S;
  using O = typename Dt<ODT>::S;
  constexpr int V = 16 / sizeof(S);
  auto* o = static_cast<O*>(out->data);
  const auto* pa = static_cast<const S*>(a.t->data);
  const auto* pb = b.t ? static_cast<const S*>(b.t->data) : nullptr;
  if (!aligned16(pa) || (pb && !aligned16(pb)) || reinterpret_cast<uintptr_t>(o) % (V * sizeof(O)) != 0) return false;
  binary_flat<Op, C, DT, ODT, V><<<grid_for(n / V), kThreads, 0, s>>>(o, pa, pb, n, bs);
  return true;
}

// The fast path for a and b of one dtype DT; false when out's dtype does not fit it.
template <typename Op, typename C, int DT>
bool flat_same_dtype(kgb_tensor* out, const Operand& a, const Operand& b, int64_t n, C bs, cudaStream_t s) {
  using R = decltype(Op::apply(C(), C()));
  if constexpr (std::is_same<R, bool>::value)
    return out->dtype == KGB_BOOL && launch_flat<Op, C, DT, KGB_BOOL>(out, a, b, n, bs, s);
  else
    return out->dtype == DT && launch_flat<Op, C, DT, DT>(out, a, b, n, bs, s);
}

template <typename Op, typename C>
int run_in(kgb_tensor* out, const Operand& a, const Operand& b, int32_t common, cudaStream_t s) {
  Geometry g;
  if (!fold(out, a.t, b.t, g)) return KGB_ERR_INVALID;
  const int64_t n = kgb_numel(out);
  const C bs = b.t ? C(0) : static_cast<C>(scalar_value(b));
  const bool flat = g.ndim == 1 && g.strides[0][0] == 1 && g.strides[1][0] == 1 && (!b.t || g.strides[2][0] == 1);
  bool done = false;
  if (flat && (!b.t || b.dtype == a.dtype) && common == a.dtype) {
    // Only the storage dtypes whose computation type is C.
    if constexpr (std::is_same<C, float>::value) {
      if (a.dtype == KGB_F32) done = flat_same_dtype<Op, C, KGB_F32>(out, a, b, n, bs, s);
      if (a.dtype == KGB_F16) done = flat_same_dtype<Op, C, KGB_F16>(out, a, b, n, bs, s);
      if (a.dtype == KGB_BF16) done = flat_same_dtype<Op, C, KGB_BF16>(out, a, b, n, bs, s);
    } else if constexpr (std::is_same<C, double>::value) {
      if (a.dtype == KGB_F64) done = flat_same_dtype<Op, C, KGB_F64>(out, a, b, n, bs, s);
    } else {
      if (a.dtype == KGB_I32) done = flat_same_dtype<Op, C, KGB_I32>(out, a, b, n, bs, s);
      if (a.dtype == KGB_I64) done = flat_same_dtype<Op, C, KGB_I64>(out, a, b, n, bs, s);
      if (a.dtype == KGB_BOOL) done = flat_same_dtype<Op, C, KGB_BOOL>(out, a, b, n, bs, s);
    }
  }
  if (!done) {
    const Dtypes dt{out->dtype, a.dtype, b.dtype, common};
    binary_strided<Op, C><<<grid_for(n), kThreads, 0, s>>>(static_cast<char*>(out->data), static_cast<const char*>(a.t->data),
                                                          b.t ? static_cast<const char*>(b.t->data) : nullptr, g, n, dt, bs);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

template <typename Op>
int run(const Operand& a, const Operand& b, kgb_tensor* out, kgb_stream stream) {
  if (!supported_dtype(a.dtype) || !supported_dtype(b.dtype) || !supported_dtype(out->dtype)) return KGB_ERR_UNSUPPORTED;
  const int32_t common = Op::compute_dtype(result_type(a, b));
  if (common < 0) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  auto s = static_cast<cudaStream_t>(stream);
  // Only the computation types the op can reach are instantiated.
  if (common == KGB_F64) {
    if constexpr (Op::kDouble) return run_in<Op, double>(out, a, b, common, s);
  } else if (is_float_dtype(common)) {
    return run_in<Op, float>(out, a, b, common, s);
  } else {
    if constexpr (Op::kInt64) return run_in<Op, int64_t>(out, a, b, common, s);
  }
  return KGB_ERR_UNSUPPORTED;
}

// The entry points' common path: the functor for the mode, then run.
int dispatch(const Operand& a, const Operand& b, kgb_tensor* out, int mode, kgb_stream stream) {
  switch (mode) {
    case 1:
      if (result_type(a, b) == KGB_F16) return run<DivTruncRounded<RoundF16>>(a, b, out, stream);
      if (result_type(a, b) == KGB_BF16) return run<DivTruncRounded<RoundBF16>>(a, b, out, stream);
      return run<DivTrunc>(a, b, out, stream);
    case 2: return run<DivFloor>(a, b, out, stream);
    default: return run<DivTrue>(a, b, out, stream);
  }
}

}  // namespace

extern "C" int kgb_aten_div_(kgb_tensor* self, const kgb_tensor* other, kgb_stream stream) {
  return dispatch(tensor_operand(self), tensor_operand(other), self, 0, stream);
}

extern "C" int kgb_aten_div__Scalar(kgb_tensor* self, kgb_scalar other, kgb_stream stream) {
  return dispatch(tensor_operand(self), scalar_operand(other), self, 0, stream);
}

extern "C" int kgb_aten_div__Tensor_mode(kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode, kgb_stream stream) {
  return dispatch(tensor_operand(self), tensor_operand(other), self, rounding_mode ? *rounding_mode : 0, stream);
}

extern "C" int kgb_aten_div__Scalar_mode(kgb_tensor* self, kgb_scalar other, const int* rounding_mode, kgb_stream stream) {
  return dispatch(tensor_operand(self), scalar_operand(other), self, rounding_mode ? *rounding_mode : 0, stream);
}

