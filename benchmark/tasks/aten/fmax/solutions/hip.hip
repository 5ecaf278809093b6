// aten/fmax on HIP (a port of the CUDA solution): out = fmax(self, other): the larger value, a NaN loses against a number.
// Self, other and out may have different dtypes (out has the promoted one); every input is
// converted to the compute type on load.
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
// integer results; 16-bit results are rounded once.
#include <hip/hip_runtime.h>

#include "kgb_half.h"
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kOperands = 3;  // out, self, other
constexpr int kThreads = 256;

// ---- the operation, per compute type --------------------------------------
template <typename C>
struct Params {};
__device__ __forceinline__ float op(float a, float b, const Params<float>& p) {
  (void)p;
  return a != a ? b : (b != b ? a : (a > b ? a : b));
}
__device__ __forceinline__ double op(double a, double b, const Params<double>& p) {
  (void)p;
  return a != a ? b : (b != b ? a : (a > b ? a : b));
}
__device__ __forceinline__ int64_t op(int64_t a, int64_t b, const Params<int64_t>& p) {
  (void)p;
  return a > b ? a : b;
}

// ---- dtype conversion -------------------------------------------------------
__device__ __forceinline__ float f16_to_float(uint16_t h) { return kgb_f16_to_float(h); }
__device__ __forceinline__ uint16_t float_to_f16(float f) { return kgb_float_to_f16(f); }
__device__ __forceinline__ float bf16_to_float(uint16_t h) { return kgb_bf16_to_float(h); }
__device__ __forceinline__ uint16_t float_to_bf16(float f) { return kgb_float_to_bf16(f); }

template <typename C>
__device__ __forceinline__ C load_as(const void* base, int32_t dtype, int64_t off) {
  switch (dtype) {
    case KGB_I32: return static_cast<C>(static_cast<const int32_t*>(base)[off]);
    case KGB_I64: return static_cast<C>(static_cast<const int64_t*>(base)[off]);
    case KGB_F16: return static_cast<C>(f16_to_float(static_cast<const uint16_t*>(base)[off]));
    case KGB_BF16: return static_cast<C>(bf16_to_float(static_cast<const uint16_t*>(base)[off]));
    case KGB_F32: return static_cast<C>(static_cast<const float*>(base)[off]);
    case KGB_F64: return static_cast<C>(static_cast<const double*>(base)[off]);
    default: return C();  // not a dtype of this task: rejected on the host
  }
}

template <typename C>
__device__ __forceinline__ void store_as(void* base, int32_t dtype, int64_t off, C v) {
  switch (dtype) {
    case KGB_I32: static_cast<int32_t*>(base)[off] = static_cast<int32_t>(v); break;
    case KGB_I64: static_cast<int64_t*>(base)[off] = static_cast<int64_t>(v); break;
    case KGB_F16: static_cast<uint16_t*>(base)[off] = float_to_f16(static_cast<float>(v)); break;
    case KGB_BF16: static_cast<uint16_t*>(base)[off] = float_to_bf16(static_cast<float>(v)); break;
    case KGB_F32: static_cast<float*>(base)[off] = static_cast<float>(v); break;
    case KGB_F64: static_cast<double*>(base)[off] = static_cast<double>(v); break;
    default: break;  // not a dtype of this task: rejected on the host
  }
}

// Storage type S of one dtype and its compute type C, for the same-dtype rows.
struct F32 {
  using S = float;
  using C = float;
  static __device__ __forceinline__ C ld(S v) { return v; }
  static __device__ __forceinline__ S st(C v) { return v; }
};
struct F16 {
  using S = uint16_t;
  using C = float;
  static __device__ __forceinline__ C ld(S v) { return f16_to_float(v); }
  static __device__ __forceinline__ S st(C v) { return float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t;
  using C = float;
  static __device__ __forceinline__ C ld(S v) { return bf16_to_float(v); }
  static __device__ __forceinline__ S st(C v) { return float_to_bf16(v); }
};
struct F64 {
  using S = double;
  using C = double;
  static __device__ __forceinline__ C ld(S v) { return v; }
  static __device__ __forceinline__ S st(C v) { return v; }
};
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

// How the row kernel reads other: a row like self, one value per row, or one value.
enum BMode { kBRow = 0, kBPerRow = 1, kBConst = 2 };

// rows x cols, unit inner stride for out and self; rows start at multiples of VEC.
template <typename Tag, int VEC>
__global__ void __launch_bounds__(kThreads)
rows_kernel(typename Tag::S* __restrict__ out, const typename Tag::S* __restrict__ a,
            const typename Tag::S* __restrict__ b, int b_mode, typename Tag::C b_value, int64_t b_rs,
            int64_t rows, int64_t cols, int64_t out_rs, int64_t a_rs, Params<typename Tag::C> prm) {
  using S = typename Tag::S;
  using C = typename Tag::C;
  using P = Pack<S, VEC>;
  const int64_t packs = cols / VEC;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    S* orow = out + r * out_rs;
    const S* arow = a + r * a_rs;
    const S* brow = b_mode == kBConst ? nullptr : b + r * b_rs;
    const C row_value = b_mode == kBPerRow ? Tag::ld(brow[0]) : b_value;
    for (int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; p < packs; p += step) {
      const P av = *reinterpret_cast<const P*>(arow + p * VEC);
      P bv;
      if (b_mode == kBRow) bv = *reinterpret_cast<const P*>(brow + p * VEC);
      P ov;
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const C bk = b_mode == kBRow ? Tag::ld(bv.v[k]) : row_value;
        ov.v[k] = Tag::st(op(Tag::ld(av.v[k]), bk, prm));
      }
      *reinterpret_cast<P*>(orow + p * VEC) = ov;
    }
    // The tail of a row that is not a whole number of vectors.
    for (int64_t j = packs * VEC + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; j < cols; j += step) {
      const C bk = b_mode == kBRow ? Tag::ld(brow[j]) : row_value;
      orow[j] = Tag::st(op(Tag::ld(arow[j]), bk, prm));
    }
  }
}

// Any layout and any dtypes: offsets from the linear index, conversion by dtype.
template <typename C>
__global__ void __launch_bounds__(kThreads)
strided_kernel(void* __restrict__ out, int32_t out_dt, const void* __restrict__ a, int32_t a_dt,
               const void* __restrict__ b, int32_t b_dt, int b_const, C b_value,
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
    const C bv = b_const ? b_value : load_as<C>(b, b_dt, off[2]);
    store_as<C>(out, out_dt, off[0], op(av, bv, prm));
  }
}

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

// The same-dtype row path, if the folded problem has that shape.
template <typename Tag>
bool try_rows(const kgb_tensor* const* t, const Geometry& g, typename Tag::C b_value, bool b_const,
              const Params<typename Tag::C>& prm, hipStream_t s) {
  const int last = g.ndim - 1;
  if (g.ndim > 2 || g.strides[0][last] != 1 || g.strides[1][last] != 1) return false;
  for (int k = 1; k < kOperands; ++k)
    if (t[k] && t[k]->dtype != t[0]->dtype) return false;
  int b_mode = kBConst;
  if (!b_const) {
    if (g.strides[2][last] == 1) b_mode = kBRow;
    else if (g.strides[2][last] == 0) b_mode = kBPerRow;
    else return false;
  }
  using S = typename Tag::S;
  const int64_t rows = g.ndim == 2 ? g.sizes[0] : 1, cols = g.sizes[last];
  int64_t rs[kOperands];
  for (int k = 0; k < kOperands; ++k) rs[k] = g.ndim == 2 ? g.strides[k][0] : 0;
  constexpr int V = 16 / sizeof(S);
  bool vec = reinterpret_cast<uintptr_t>(t[0]->data) % 16 == 0 && reinterpret_cast<uintptr_t>(t[1]->data) % 16 == 0 &&
             rs[0] % V == 0 && rs[1] % V == 0;
  if (b_mode == kBRow) vec = vec && reinterpret_cast<uintptr_t>(t[2]->data) % 16 == 0 && rs[2] % V == 0;
  const S* b = b_const ? nullptr : static_cast<const S*>(t[2]->data);
  const dim3 grid(grid_for(cols / (vec ? V : 1)), static_cast<unsigned>(rows < 65535 ? rows : 65535));
  S* o = static_cast<S*>(t[0]->data);
  const S* a = static_cast<const S*>(t[1]->data);
  if (vec)
    rows_kernel<Tag, V><<<grid, kThreads, 0, s>>>(o, a, b, b_mode, b_value, rs[2], rows, cols, rs[0], rs[1], prm);
  else
    rows_kernel<Tag, 1><<<grid, kThreads, 0, s>>>(o, a, b, b_mode, b_value, rs[2], rows, cols, rs[0], rs[1], prm);
  return true;
}

bool rows_path(const kgb_tensor* const* t, const Geometry& g, float b_value, bool b_const,
               const Params<float>& prm, hipStream_t s) {
  switch (t[0]->dtype) {
    case KGB_F32: return try_rows<F32>(t, g, b_value, b_const, prm, s);
    case KGB_F16: return try_rows<F16>(t, g, b_value, b_const, prm, s);
    case KGB_BF16: return try_rows<BF16>(t, g, b_value, b_const, prm, s);
    default: return false;
  }
}

bool rows_path(const kgb_tensor* const* t, const Geometry& g, double b_value, bool b_const,
               const Params<double>& prm, hipStream_t s) {
  switch (t[0]->dtype) {
    case KGB_F64: return try_rows<F64>(t, g, b_value, b_const, prm, s);
    default: return false;
  }
}

bool rows_path(const kgb_tensor* const* t, const Geometry& g, int64_t b_value, bool b_const,
               const Params<int64_t>& prm, hipStream_t s) {
  switch (t[0]->dtype) {
    case KGB_I64: return try_rows<I64>(t, g, b_value, b_const, prm, s);
    case KGB_I32: return try_rows<I32>(t, g, b_value, b_const, prm, s);
    default: return false;
  }
}

// Folds, then launches the row kernel of out's dtype or the strided kernel.
// b_const: other is the Scalar b_value (t[2] is then unused).
template <typename C>
int launch(const kgb_tensor* const* t, C b_value, bool b_const, const Params<C>& prm, hipStream_t s) {
  Geometry g;
  if (!fold(t, g)) return KGB_ERR_INVALID;
  if (kgb_numel(t[0]) == 0) return KGB_OK;
  if (!rows_path(t, g, b_value, b_const, prm, s)) {
    const int64_t numel = kgb_numel(t[0]);
    strided_kernel<C><<<grid_for(numel), kThreads, 0, s>>>(t[0]->data, t[0]->dtype, t[1]->data, t[1]->dtype,
                                                          b_const ? nullptr : t[2]->data, b_const ? 0 : t[2]->dtype,
                                                          b_const ? 1 : 0, b_value, g, numel, prm);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

// An ATen Scalar (KGB_I64, KGB_F64 or KGB_BOOL) in the compute type.
template <typename C>
C scalar_as(kgb_scalar s) {
  return s.dtype == KGB_F64 ? static_cast<C>(s.v.f) : static_cast<C>(s.v.i);
}

bool supported(int32_t dtype) {
  switch (dtype) {
    case KGB_I32:
    case KGB_I64:
    case KGB_F16:
    case KGB_BF16:
    case KGB_F32:
    case KGB_F64:
      return true;
    default:
      return false;
  }
}

// t = {out, self, other}; other, when given, is a Scalar that replaces t[2].
// The compute type follows out's dtype.
int dispatch(const kgb_tensor* const* t, const kgb_scalar* other, hipStream_t s) {
  for (int k = 0; k < kOperands; ++k)
    if (t[k] && !supported(t[k]->dtype)) return KGB_ERR_UNSUPPORTED;
  switch (t[0]->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16:
      return launch<float>(t, other ? scalar_as<float>(*other) : float(), other != nullptr, Params<float>{}, s);
    case KGB_F64:
      return launch<double>(t, other ? scalar_as<double>(*other) : double(), other != nullptr, Params<double>{}, s);
    case KGB_I64: case KGB_I32:
      return launch<int64_t>(t, other ? scalar_as<int64_t>(*other) : int64_t(), other != nullptr, Params<int64_t>{}, s);
    default:
      return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_fmax(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  const kgb_tensor* t[kOperands] = {out, self, other};
  return dispatch(t, nullptr, static_cast<hipStream_t>(stream));
}
