// blas/daxpy on CUDA (sm_90): y := alpha * x + y in double.
// Unit increments with 16-byte aligned vectors: double2 loads and stores, a
// grid-stride loop with two vectors per thread per step in flight. Every other
// case (negative increments, incx == 0, odd alignment, the tail): one element
// per thread, data[i * inc] with the signed increment.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) daxpy_vector(int64_t n2, double alpha, const double2* __restrict__ x,
                                                         double2* __restrict__ y) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (; i + stride < n2; i += 2 * stride) {
    const double2 a0 = __ldg(x + i), a1 = __ldg(x + i + stride);
    double2 b0 = y[i], b1 = y[i + stride];
    b0.x = fma(alpha, a0.x, b0.x);
    b0.y = fma(alpha, a0.y, b0.y);
    b1.x = fma(alpha, a1.x, b1.x);
    b1.y = fma(alpha, a1.y, b1.y);
    y[i] = b0;
    y[i + stride] = b1;
  }
  if (i < n2) {
    const double2 a = __ldg(x + i);
    double2 b = y[i];
    b.x = fma(alpha, a.x, b.x);
    b.y = fma(alpha, a.y, b.y);
    y[i] = b;
  }
}

__global__ void __launch_bounds__(kThreads) daxpy_strided(int64_t begin, int64_t n, double alpha, const double* __restrict__ x,
                                                          int64_t incx, double* __restrict__ y, int64_t incy) {
  for (int64_t i = begin + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads)
    y[i * incy] = fma(alpha, __ldg(x + i * incx), y[i * incy]);
}

unsigned grid_for(int64_t items) {
  int64_t blocks = (items + kThreads - 1) / kThreads;
  const int64_t cap = 132 * 16;  // enough resident blocks to saturate H200 bandwidth
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

}  // namespace

extern "C" int kgb_blas_daxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  if (n <= 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is, x unread
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const double* xp = static_cast<const double*>(x->data);
  double* yp = static_cast<double*>(y->data);
  const int64_t incx = x->strides[0], incy = y->strides[0];
  int64_t done = 0;
  const bool aligned = ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0;
  if (incx == 1 && incy == 1 && aligned && n >= 2) {
    const int64_t n2 = n / 2;
    daxpy_vector<<<grid_for(n2), kThreads, 0, s>>>(n2, alpha, reinterpret_cast<const double2*>(xp),
                                                   reinterpret_cast<double2*>(yp));
    done = n2 * 2;
  }
  if (done < n) daxpy_strided<<<grid_for(n - done), kThreads, 0, s>>>(done, n, alpha, xp, incx, yp, incy);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
