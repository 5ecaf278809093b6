// aten/bitwise_not on CUDA (sm_90): out = ~self (logical not on bool).
// Self and out may have different dtypes; self is converted to the compute type on load.
//
// The host folds the tensors into the fewest dimensions (broadcast
// dimensions get stride 0, size-1 dimensions go, dimensions contiguous in
// every tensor merge). When every tensor has one dtype and the folded problem
// is at most rows x cols with unit inner strides (other may also be one value
// per row or a single value), a row kernel moves 16-byte vectors with a
// grid-stride loop along the row. Everything else (mixed dtypes, transposed or
// stepped views) runs a grid-stride kernel that computes each element's
// offsets from its linear index and converts by dtype at load and store.
// Compute type: float for f16/bf16/f32 results, double for f64, int64 for
// integer results, bool for bool results; 16-bit results are rounded once.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kOperands = 2;  // out, self
constexpr int kThreads = 256;

// ---- the operation, per compute type --------------------------------------
template <typename C>
struct Params {};
__device__ __forceinline__ int64_t op(int64_t a, const Params<int64_t>& p) {
  (void)p;
  return ~a;
}
__device__ __forceinline__ bool op(bool a, const Params<bool>& p) {
  (void)p;
  return !a;
}

// ---- dtype conversion -------------------------------------------------------

template <typename C>
__device__ __forceinline__ C load_as(const void* base, int32_t dtype, int64_t off) {
  switch (dtype) {
    case KGB_U8: return static_cast<C>(static_cast<const uint8_t*>(base)[off]);
    case KGB_I16: return static_cast<C>(static_cast<const int16_t*>(base)[off]);
    case KGB_I32: return static_cast<C>(static_cast<const int32_t*>(base)[off]);
    case KGB_I64: return static_cast<C>(static_cast<const int64_t*>(base)[off]);
    default: return static_cast<C>(static_cast<const uint8_t*>(base)[off] != 0);  // bool
  }
}

template <typename C>
__device__ __forceinline__ void store_as(void* base, int32_t dtype, int64_t off, C v) {
  switch (dtype) {
    case KGB_U8: static_cast<uint8_t*>(base)[off] = static_cast<uint8_t>(v); break;
    case KGB_I16: static_cast<int16_t*>(base)[off] = static_cast<int16_t>(v); break;
    case KGB_I32: static_cast<int32_t*>(base)[off] = static_cast<int32_t>(v); break;
    case KGB_I64: static_cast<int64_t*>(base)[off] = static_cast<int64_t>(v); break;
    default: static_cast<uint8_t*>(base)[off] = v != 0; break;  // bool
  }
}

// Storage type S of one dtype and its compute type C, for the same-dtype rows.
struct I64 {
  using S = int64_t;
  using C = int64_t;
  static __device__ __forceinline__ C ld(S v) { return v; }
  static __device__ __forceinline__ S st(C v) { return v; }
};
struct I32 {
  using S = int32_t;
  using C = int64_t;
  static __device__ __forceinline__ C ld(S v) { return v; }
  static __device__ __forceinline__ S st(C v) { return static_cast<int32_t>(v); }
};
struct I16 {
  using S = int16_t;
  using C = int64_t;
  static __device__ __forceinline__ C ld(S v) { return v; }
  static __device__ __forceinline__ S st(C v) { return static_cast<int16_t>(v); }
};
struct U8 {
  using S = uint8_t;
  using C = int64_t;
  static __device__ __forceinline__ C ld(S v) { return v; }
  static __device__ __forceinline__ S st(C v) { return static_cast<uint8_t>(v); }
};
struct Bool {
  using S = uint8_t;
  using C = bool;
  static __device__ __forceinline__ C ld(S v) { return v != 0; }
  static __device__ __forceinline__ S st(C v) { return static_cast<uint8_t>(v); }
};

// ---- geometry -------------------------------------------------------------
struct Geometry {
  int ndim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t strides[kOperands][KGB_MAX_RANK] = {};  // per operand, in elements
};

// Right-aligned broadcast of the inputs onto out (a null input is a Scalar);
// false if a shape does not fit.
bool fold(const kgb_tensor* const* t, Geometry& g) {
  const int rank = t[0]->rank;
  int64_t sizes[KGB_MAX_RANK], strides[kOperands][KGB_MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    sizes[d] = t[0]->sizes[d];
    strides[0][d] = t[0]->strides[d];
    for (int k = 1; k < kOperands; ++k) {
      if (!t[k]) {  // a Scalar other: one value everywhere
        strides[k][d] = 0;
        continue;
      }
      const int td = d - (rank - t[k]->rank);
      if (td < 0 || t[k]->sizes[td] == 1) {
        strides[k][d] = 0;
      } else if (t[k]->sizes[td] == sizes[d]) {
        strides[k][d] = t[k]->strides[td];
      } else {
        return false;
      }
    }
  }
  g.ndim = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (g.ndim > 0) {
      const int last = g.ndim - 1;
      bool mergeable = true;
      for (int k = 0; k < kOperands; ++k) mergeable = mergeable && g.strides[k][last] == strides[k][d] * sizes[d];
      if (mergeable) {
        g.sizes[last] *= sizes[d];
        for (int k = 0; k < kOperands; ++k) g.strides[k][last] = strides[k][d];
        continue;
      }
    }
    g.sizes[g.ndim] = sizes[d];
    for (int k = 0; k < kOperands; ++k) g.strides[k][g.ndim] = strides[k][d];
    ++g.ndim;
  }
  if (g.ndim == 0) {  // a single element
    g.ndim = 1;
    g.sizes[0] = 1;
    for (int k = 0; k < kOperands; ++k) g.strides[k][0] = 1;
  }
  return true;
}

// ---- kernels ----------------------------------------------------------------
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Pack {
  T v[VEC];
};

// rows x cols, unit inner stride for out and self; rows start at multiples of VEC.
template <typename Tag, int VEC>
__global__ void __launch_bounds__(kThreads)
rows_kernel(typename Tag::S* __restrict__ out, const typename Tag::S* __restrict__ a,
            int64_t rows, int64_t cols, int64_t out_rs, int64_t a_rs, Params<typename Tag::C> prm) {
  using S = typename Tag::S;
  using C = typename Tag::C;
  using P = Pack<S, VEC>;
  const int64_t packs = cols / VEC;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    S* orow = out + r * out_rs;
    const S* arow = a + r * a_rs;
    for (int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; p < packs; p += step) {
      const P av = *reinterpret_cast<const P*>(arow + p * VEC);
      P ov;
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        ov.v[k] = Tag::st(op(Tag::ld(av.v[k]), prm));
      }
      *reinterpret_cast<P*>(orow + p * VEC) = ov;
    }
    // The tail of a row that is not a whole number of vectors.
    for (int64_t j = packs * VEC + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; j < cols; j += step) {
      orow[j] = Tag::st(op(Tag::ld(arow[j]), prm));
    }
  }
}

// Any layout and any dtypes: offsets from the linear index, conversion by dtype.
template <typename C>
__global__ void __launch_bounds__(kThreads)
strided_kernel(void* __restrict__ out, int32_t out_dt, const void* __restrict__ a, int32_t a_dt,
               Geometry g, int64_t numel, Params<C> prm) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < numel;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t rest = i, off[kOperands] = {};
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t c = rest % g.sizes[d];
      rest /= g.sizes[d];
      for (int k = 0; k < kOperands; ++k) off[k] += c * g.strides[k][d];
    }
    const C av = load_as<C>(a, a_dt, off[1]);
    store_as<C>(out, out_dt, off[0], op(av, prm));
  }
}

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

// The same-dtype row path, if the folded problem has that shape.
template <typename Tag>
bool try_rows(const kgb_tensor* const* t, const Geometry& g, typename Tag::C b_value, bool b_const,
              const Params<typename Tag::C>& prm, cudaStream_t s) {
  const int last = g.ndim - 1;
  if (g.ndim > 2 || g.strides[0][last] != 1 || g.strides[1][last] != 1) return false;
  for (int k = 1; k < kOperands; ++k)
    if (t[k] && t[k]->dtype != t[0]->dtype) return false;
  using S = typename Tag::S;
  const int64_t rows = g.ndim == 2 ? g.sizes[0] : 1, cols = g.sizes[last];
  int64_t rs[kOperands];
  for (int k = 0; k < kOperands; ++k) rs[k] = g.ndim == 2 ? g.strides[k][0] : 0;
  constexpr int V = 16 / sizeof(S);
  bool vec = reinterpret_cast<uintptr_t>(t[0]->data) % 16 == 0 && reinterpret_cast<uintptr_t>(t[1]->data) % 16 == 0 &&
             rs[0] % V == 0 && rs[1] % V == 0;
  const dim3 grid(grid_for(cols / (vec ? V : 1)), static_cast<unsigned>(rows < 65535 ? rows : 65535));
  S* o = static_cast<S*>(t[0]->data);
  const S* a = static_cast<const S*>(t[1]->data);
  (void)b_value;
  (void)b_const;
  if (vec)
    rows_kernel<Tag, V><<<grid, kThreads, 0, s>>>(o, a, rows, cols, rs[0], rs[1], prm);
  else
    rows_kernel<Tag, 1><<<grid, kThreads, 0, s>>>(o, a, rows, cols, rs[0], rs[1], prm);
  return true;
}

bool rows_path(const kgb_tensor* const* t, const Geometry& g, int64_t b_value, bool b_const,
               const Params<int64_t>& prm, cudaStream_t s) {
  switch (t[0]->dtype) {
    case KGB_I64: return try_rows<I64>(t, g, b_value, b_const, prm, s);
    case KGB_I32: return try_rows<I32>(t, g, b_value, b_const, prm, s);
    case KGB_I16: return try_rows<I16>(t, g, b_value, b_const, prm, s);
    case KGB_U8: return try_rows<U8>(t, g, b_value, b_const, prm, s);
    default: return false;
  }
}

bool rows_path(const kgb_tensor* const* t, const Geometry& g, bool b_value, bool b_const,
               const Params<bool>& prm, cudaStream_t s) {
  switch (t[0]->dtype) {
    case KGB_BOOL: return try_rows<Bool>(t, g, b_value, b_const, prm, s);
    default: return false;
  }
}

// Folds, then launches the row kernel of out's dtype or the strided kernel.
// b_const: other is the Scalar b_value (t[2] is then unused).
template <typename C>
int launch(const kgb_tensor* const* t, C b_value, bool b_const, const Params<C>& prm, cudaStream_t s) {
  Geometry g;
  if (!fold(t, g)) return KGB_ERR_INVALID;
  if (kgb_numel(t[0]) == 0) return KGB_OK;
  if (!rows_path(t, g, b_value, b_const, prm, s)) {
    const int64_t numel = kgb_numel(t[0]);
    strided_kernel<C><<<grid_for(numel), kThreads, 0, s>>>(t[0]->data, t[0]->dtype, t[1]->data, t[1]->dtype, g,
                                                          numel, prm);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

// An ATen Scalar (KGB_I64, KGB_F64 or KGB_BOOL) in the compute type.
template <typename C>
C scalar_as(kgb_scalar s) {
  return s.dtype == KGB_F64 ? static_cast<C>(s.v.f) : static_cast<C>(s.v.i);
}

bool supported(int32_t dtype) {
  switch (dtype) {
    case KGB_BOOL:
    case KGB_U8:
    case KGB_I16:
    case KGB_I32:
    case KGB_I64:
      return true;
    default:
      return false;
  }
}

// t = {out, self}; other, when given, is a Scalar that replaces t[2].
// The compute type follows out's dtype.
int dispatch(const kgb_tensor* const* t, const kgb_scalar* other, cudaStream_t s) {
  for (int k = 0; k < kOperands; ++k)
    if (t[k] && !supported(t[k]->dtype)) return KGB_ERR_UNSUPPORTED;
  switch (t[0]->dtype) {
    case KGB_I64: case KGB_I32: case KGB_I16: case KGB_U8:
      return launch<int64_t>(t, other ? scalar_as<int64_t>(*other) : int64_t(), other != nullptr, Params<int64_t>{}, s);
    case KGB_BOOL:
      return launch<bool>(t, other ? scalar_as<bool>(*other) : bool(), other != nullptr, Params<bool>{}, s);
    default:
      return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_bitwise_not(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  const kgb_tensor* t[kOperands] = {out, self};
  return dispatch(t, nullptr, static_cast<cudaStream_t>(stream));
}
