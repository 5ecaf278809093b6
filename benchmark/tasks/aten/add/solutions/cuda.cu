// aten/add on CUDA: out = self + alpha * other with broadcasting and strides.
//
// The host side first folds the three views into the fewest dimensions
// (broadcast dimensions get stride 0, size-1 dimensions go, dimensions that
// are contiguous for all three merge). Two shapes then get fast kernels:
//  - at most two dimensions with unit (or broadcast) inner strides: a row
//    kernel with 16-byte vector loads and stores along the row (a flat
//    contiguous tensor is one row; a row-broadcast operand is a row read
//    with stride 0 between rows);
//  - anything else: one element per thread with the offsets computed from
//    the linear index.
// Arithmetic follows the task: float for f32/f16/bf16 (16-bit values rounded
// once), double for f64, the integer type for i32/i64.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kMaxDims = KGB_MAX_RANK;
constexpr int kThreads = 256;

template <typename T> struct Arith;
template <> struct Arith<float> {
  using C = float;
  static __device__ __forceinline__ C load(float v) { return v; }
  static __device__ __forceinline__ float store(C v) { return v; }
};
template <> struct Arith<double> {
  using C = double;
  static __device__ __forceinline__ C load(double v) { return v; }
  static __device__ __forceinline__ double store(C v) { return v; }
};
template <> struct Arith<__half> {
  using C = float;
  static __device__ __forceinline__ C load(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half store(C v) { return __float2half_rn(v); }
};
template <> struct Arith<__nv_bfloat16> {
  using C = float;
  static __device__ __forceinline__ C load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 store(C v) { return __float2bfloat16_rn(v); }
};
template <> struct Arith<int32_t> {
  using C = int32_t;
  static __device__ __forceinline__ C load(int32_t v) { return v; }
  static __device__ __forceinline__ int32_t store(C v) { return v; }
};
template <> struct Arith<int64_t> {
  using C = int64_t;
  static __device__ __forceinline__ C load(int64_t v) { return v; }
  static __device__ __forceinline__ int64_t store(C v) { return v; }
};

template <typename T>
__device__ __forceinline__ T add_one(T a, T b, typename Arith<T>::C alpha) {
  using A = Arith<T>;
  return A::store(A::load(a) + alpha * A::load(b));
}

// The folded problem: ndim dimensions, strides per tensor (0 out, 1 self, 2 other).
struct Geometry {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[3][kMaxDims] = {};
};

bool fold(const kgb_tensor* out, const kgb_tensor* self, const kgb_tensor* other, Geometry& g) {
  const kgb_tensor* ts[3] = {out, self, other};
  const int rank = out->rank;
  int64_t sizes[kMaxDims], strides[3][kMaxDims];
  for (int d = 0; d < rank; ++d) {
    sizes[d] = out->sizes[d];
    for (int t = 0; t < 3; ++t) {
      const int td = d - (rank - ts[t]->rank);
      if (td < 0) {
        strides[t][d] = 0;
      } else if (ts[t]->sizes[td] == out->sizes[d]) {
        strides[t][d] = ts[t]->sizes[td] == 1 ? 0 : ts[t]->strides[td];
      } else if (ts[t]->sizes[td] == 1) {
        strides[t][d] = 0;
      } else {
        return false;
      }
    }
  }
  // Drop size-1 dimensions, then merge neighbours that are contiguous for all.
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
    for (int t = 0; t < 3; ++t) g.strides[t][0] = 1;
  }
  return true;
}

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Pack {
  T v[VEC];
};

// rows x cols, inner stride 1 for out; for each input the inner stride is 1
// (A_ROW / B_ROW) or 0 (one value per row, broadcast along it).
template <typename T, int VEC, bool A_ROW, bool B_ROW>
__global__ void __launch_bounds__(kThreads) add_rows(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b,
                                                     int64_t rows, int64_t cols, int64_t out_rs, int64_t a_rs, int64_t b_rs,
                                                     typename Arith<T>::C alpha) {
  using P = Pack<T, VEC>;
  const int64_t packs = cols / VEC;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    T* orow = out + r * out_rs;
    const T* arow = a + r * a_rs;
    const T* brow = b + r * b_rs;
    for (int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; p < packs;
         p += static_cast<int64_t>(gridDim.x) * kThreads) {
      P av, bv, ov;
      if (A_ROW) {
        av = *reinterpret_cast<const P*>(arow + p * VEC);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) av.v[k] = arow[0];
      }
      if (B_ROW) {
        bv = *reinterpret_cast<const P*>(brow + p * VEC);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) bv.v[k] = brow[0];
      }
#pragma unroll
      for (int k = 0; k < VEC; ++k) ov.v[k] = add_one(av.v[k], bv.v[k], alpha);
      *reinterpret_cast<P*>(orow + p * VEC) = ov;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) add_strided(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b,
                                                        Geometry g, int64_t numel, typename Arith<T>::C alpha) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < numel;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t rest = i, oo = 0, ao = 0, bo = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t c = rest % g.sizes[d];
      rest /= g.sizes[d];
      oo += c * g.strides[0][d];
      ao += c * g.strides[1][d];
      bo += c * g.strides[2][d];
    }
    out[oo] = add_one(a[ao], b[bo], alpha);
  }
}

unsigned grid_for(int64_t items) {
  int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 1048576 ? 1048576 : blocks));
}

template <typename T, int VEC, bool A_ROW, bool B_ROW>
void launch_rows(const Geometry& g, T* out, const T* a, const T* b, typename Arith<T>::C alpha, cudaStream_t s) {
  const int64_t rows = g.ndim == 2 ? g.sizes[0] : 1, cols = g.sizes[g.ndim - 1];
  const int64_t out_rs = g.ndim == 2 ? g.strides[0][0] : 0, a_rs = g.ndim == 2 ? g.strides[1][0] : 0,
                b_rs = g.ndim == 2 ? g.strides[2][0] : 0;
  const int64_t packs = cols / VEC;
  dim3 grid(grid_for(packs), static_cast<unsigned>(rows < 65535 ? rows : 65535));
  add_rows<T, VEC, A_ROW, B_ROW><<<grid, kThreads, 0, s>>>(out, a, b, rows, cols, out_rs, a_rs, b_rs, alpha);
}

template <typename T>
int run(kgb_tensor* out, const kgb_tensor* self, const kgb_tensor* other, typename Arith<T>::C alpha, cudaStream_t s) {
  Geometry g;
  if (!fold(out, self, other, g)) return KGB_ERR_INVALID;
  T* o = static_cast<T*>(out->data);
  const T* a = static_cast<const T*>(self->data);
  const T* b = static_cast<const T*>(other->data);
  const int last = g.ndim - 1;
  const bool rows_shape = g.ndim <= 2 && g.strides[0][last] == 1 && (g.strides[1][last] == 0 || g.strides[1][last] == 1) &&
                          (g.strides[2][last] == 0 || g.strides[2][last] == 1);
  if (rows_shape) {
    const bool a_row = g.strides[1][last] == 1, b_row = g.strides[2][last] == 1;
    constexpr int V = 16 / sizeof(T);
    // Vector width only when every row start stays 16-byte aligned.
    bool vec = g.sizes[last] % V == 0 && (reinterpret_cast<uintptr_t>(o) % 16) == 0 &&
               (!a_row || reinterpret_cast<uintptr_t>(a) % 16 == 0) && (!b_row || reinterpret_cast<uintptr_t>(b) % 16 == 0);
    if (g.ndim == 2)
      for (int t = 0; t < 3; ++t) vec = vec && g.strides[t][0] % V == 0;
    if (vec) {
      if (a_row && b_row) launch_rows<T, V, true, true>(g, o, a, b, alpha, s);
      else if (a_row) launch_rows<T, V, true, false>(g, o, a, b, alpha, s);
      else if (b_row) launch_rows<T, V, false, true>(g, o, a, b, alpha, s);
      else launch_rows<T, V, false, false>(g, o, a, b, alpha, s);
    } else {
      if (a_row && b_row) launch_rows<T, 1, true, true>(g, o, a, b, alpha, s);
      else if (a_row) launch_rows<T, 1, true, false>(g, o, a, b, alpha, s);
      else if (b_row) launch_rows<T, 1, false, true>(g, o, a, b, alpha, s);
      else launch_rows<T, 1, false, false>(g, o, a, b, alpha, s);
    }
  } else {
    const int64_t numel = kgb_numel(out);
    add_strided<T><<<grid_for(numel), kThreads, 0, s>>>(o, a, b, g, numel, alpha);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_add(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha_scalar, kgb_tensor* out, kgb_stream stream) {
  // alpha is an ATen Scalar: an integer (KGB_I64) or a double (KGB_F64).
  const double alpha = alpha_scalar.dtype == KGB_F64 ? alpha_scalar.v.f : static_cast<double>(alpha_scalar.v.i);
  if (self->dtype != out->dtype || other->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<float>(out, self, other, static_cast<float>(alpha), s);
    case KGB_F64: return run<double>(out, self, other, alpha, s);
    case KGB_F16: return run<__half>(out, self, other, static_cast<float>(alpha), s);
    case KGB_BF16: return run<__nv_bfloat16>(out, self, other, static_cast<float>(alpha), s);
    case KGB_I32: return run<int32_t>(out, self, other, static_cast<int32_t>(alpha), s);
    case KGB_I64: return run<int64_t>(out, self, other, static_cast<int64_t>(alpha), s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
