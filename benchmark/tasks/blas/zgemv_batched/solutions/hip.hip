// blas/zgemv_batched in HIP (a port of the CUDA solution): y[b] := alpha * op(A[b]) x[b] + beta * y[b] for every b, the
// batch given as arrays of pointers, column-major.
// Double-precision complex (c128: two doubles, real part first, like cuDoubleComplex); products and sums in double, op C conjugates A.
//
// A is column-major (element (i, j) at a[i * rs + j * cs], rs == 1 for a BLAS
// matrix, any strides work); op N reduces along rows, op T/C along columns,
// and each gets its own kernel so that a wavefront always reads consecutive
// elements of one column of A (coalesced):
// - op N (y has m elements): a 32 x 16 block owns 32 rows; its 16 wavefront
//   groups (threadIdx.y) take interleaved columns, four in flight per thread,
//   and the 16 partial sums of a row meet in shared memory in a fixed order.
// - op T/C (y has n elements): a 32 x 8 block owns 8 columns; the 32 threads
//   of a column stride down it, four loads in flight, and a shared-memory
//   tree sums them in a fixed order (deterministic, any wavefront size).
// The vectors are read through their signed increments (a negative one walks
// the vector from its far end: the view's data is element 0). Item b is reached through the lists' device pointer arrays
// (device_data).
// BLAS rules: m == 0 or n == 0 returns before touching y; alpha == 0 reads
// neither A nor x; beta == 0 never reads y.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

typedef double2 T;  // (real, imaginary)

__device__ __forceinline__ T zero() { return make_double2(0.0, 0.0); }
__device__ __forceinline__ T add(T a, T b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ T mul(T a, T b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// acc + a * b
__device__ __forceinline__ T mac(T acc, T a, T b) {
  return make_double2(fma(a.x, b.x, fma(-a.y, b.y, acc.x)), fma(a.x, b.y, fma(a.y, b.x, acc.y)));
}
__device__ __forceinline__ T conj_if(T a, bool conj) { return conj ? make_double2(a.x, -a.y) : a; }

// Which matrix and vectors item b of the batch uses.
struct Operands {  // device arrays of batch pointers (the lists' device_data)
  const T* const* a;
  const T* const* x;
  T* const* y;
};
__device__ __forceinline__ const T* item_a(const Operands& o, int64_t b) { return o.a[b]; }
__device__ __forceinline__ const T* item_x(const Operands& o, int64_t b) { return o.x[b]; }
__device__ __forceinline__ T* item_y(const Operands& o, int64_t b) { return o.y[b]; }

struct Shape {
  int64_t m, n;     // A is m x n
  int64_t rs, cs;   // A's row and column strides
  int64_t incx, incy;
  int64_t batch;
};

constexpr int kRows = 32;        // op N: rows per block (threadIdx.x)
constexpr int kColGroups = 16;   // op N: column groups per block (threadIdx.y)
constexpr int kLanes = 32;       // op T/C: threads per column (threadIdx.x)
constexpr int kColsPerBlock = 8; // op T/C: columns per block (threadIdx.y)
constexpr int64_t kMaxGridY = 65535;

// y[r] := alpha * sum + beta * y[r]; beta == 0 never reads y.
__device__ __forceinline__ void finish(T* y, T sum, T alpha, T beta, bool read_y) {
  const T r = mul(alpha, sum);
  *y = read_y ? mac(r, beta, *y) : r;
}

__global__ void __launch_bounds__(kRows * kColGroups) gemv_n(Operands o, Shape s, T alpha, T beta, bool read_ax, bool read_y) {
  __shared__ T part[kColGroups][kRows];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kRows + tx;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    T acc = zero();
    if (read_ax && i < s.m) {
      const T* __restrict__ a = item_a(o, b) + i * s.rs;
      const T* __restrict__ x = item_x(o, b);
      int64_t j = ty;
      for (; j + 3 * kColGroups < s.n; j += 4 * kColGroups) {
        const T a0 = a[j * s.cs], a1 = a[(j + kColGroups) * s.cs], a2 = a[(j + 2 * kColGroups) * s.cs],
                a3 = a[(j + 3 * kColGroups) * s.cs];
        const T x0 = x[j * s.incx], x1 = x[(j + kColGroups) * s.incx], x2 = x[(j + 2 * kColGroups) * s.incx],
                x3 = x[(j + 3 * kColGroups) * s.incx];
        acc = mac(acc, a0, x0);
        acc = mac(acc, a1, x1);
        acc = mac(acc, a2, x2);
        acc = mac(acc, a3, x3);
      }
      for (; j < s.n; j += kColGroups) acc = mac(acc, a[j * s.cs], x[j * s.incx]);
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && i < s.m) {
      T sum = part[0][tx];
      for (int g = 1; g < kColGroups; ++g) sum = add(sum, part[g][tx]);
      finish(item_y(o, b) + i * s.incy, sum, alpha, beta, read_y);
    }
    __syncthreads();  // part is reused by the next item
  }
}

__global__ void __launch_bounds__(kLanes * kColsPerBlock) gemv_t(Operands o, Shape s, T alpha, T beta, bool read_ax, bool read_y,
                                                                  bool conj) {
  __shared__ T part[kColsPerBlock][kLanes];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kColsPerBlock + ty;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    T acc = zero();
    if (read_ax && j < s.n) {
      const T* __restrict__ a = item_a(o, b) + j * s.cs;
      const T* __restrict__ x = item_x(o, b);
      int64_t i = tx;
      for (; i + 3 * kLanes < s.m; i += 4 * kLanes) {
        const T a0 = a[i * s.rs], a1 = a[(i + kLanes) * s.rs], a2 = a[(i + 2 * kLanes) * s.rs], a3 = a[(i + 3 * kLanes) * s.rs];
        const T x0 = x[i * s.incx], x1 = x[(i + kLanes) * s.incx], x2 = x[(i + 2 * kLanes) * s.incx],
                x3 = x[(i + 3 * kLanes) * s.incx];
        acc = mac(acc, conj_if(a0, conj), x0);
        acc = mac(acc, conj_if(a1, conj), x1);
        acc = mac(acc, conj_if(a2, conj), x2);
        acc = mac(acc, conj_if(a3, conj), x3);
      }
      for (; i < s.m; i += kLanes) acc = mac(acc, conj_if(a[i * s.rs], conj), x[i * s.incx]);
    }
    part[ty][tx] = acc;
    __syncthreads();
    for (int width = kLanes / 2; width > 0; width /= 2) {
      if (tx < width) part[ty][tx] = add(part[ty][tx], part[ty][tx + width]);
      __syncthreads();
    }
    if (tx == 0 && j < s.n) finish(item_y(o, b) + j * s.incy, part[ty][0], alpha, beta, read_y);
    __syncthreads();  // part is reused by the next item
  }
}

}  // namespace

extern "C" int kgb_blas_zgemv_batched(int trans, kgb_complex alpha, const kgb_tensor_list* Aarray, const kgb_tensor_list* xarray, kgb_complex beta, kgb_tensor_list* yarray, kgb_stream stream) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const int64_t batch = yarray->count;
  if (Aarray->count != batch || xarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* x = xarray->items[0];
  const kgb_tensor* y = yarray->items[0];
  if (A->dtype != KGB_C128 || x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1) return KGB_ERR_INVALID;
  const Shape s{A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0], batch};
  if (x->sizes[0] != (trans == 0 ? s.n : s.m) || y->sizes[0] != (trans == 0 ? s.m : s.n)) return KGB_ERR_INVALID;
  if (!Aarray->device_data || !xarray->device_data || !yarray->device_data) return KGB_ERR_INVALID;
  const Operands o{reinterpret_cast<const T* const*>(Aarray->device_data), reinterpret_cast<const T* const*>(xarray->device_data),
                   reinterpret_cast<T* const*>(yarray->device_data)};
  if (s.m == 0 || s.n == 0 || s.batch == 0) return KGB_OK;  // quick return: y untouched
  const T a = make_double2(static_cast<double>(alpha.re), static_cast<double>(alpha.im)), be = make_double2(static_cast<double>(beta.re), static_cast<double>(beta.im));
  const bool read_ax = alpha.re != 0.0 || alpha.im != 0.0, read_y = beta.re != 0.0 || beta.im != 0.0;
  hipStream_t st = static_cast<hipStream_t>(stream);
  const unsigned grid_y = static_cast<unsigned>(s.batch < kMaxGridY ? s.batch : kMaxGridY);
  if (trans == 0) {
    const dim3 grid(static_cast<unsigned>((s.m + kRows - 1) / kRows), grid_y), block(kRows, kColGroups);
    gemv_n<<<grid, block, 0, st>>>(o, s, a, be, read_ax, read_y);
  } else {
    const dim3 grid(static_cast<unsigned>((s.n + kColsPerBlock - 1) / kColsPerBlock), grid_y), block(kLanes, kColsPerBlock);
    gemv_t<<<grid, block, 0, st>>>(o, s, a, be, read_ax, read_y, trans == 2);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
