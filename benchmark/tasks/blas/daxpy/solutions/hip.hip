// blas/daxpy in HIP: y[i*incy] = alpha * x[i*incx] + y[i*incy], f64.
// A grid-stride loop; unit increments with 16-byte aligned vectors read and
// write double2, everything else (negative increments included: data[i * inc]
// is element i for either sign) one element per thread.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

__global__ void daxpy_unit2(int64_t pairs, double alpha, const double2* __restrict__ x, double2* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < pairs;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double2 a = x[i];
    double2 b = y[i];
    b.x = fma(alpha, a.x, b.x);
    b.y = fma(alpha, a.y, b.y);
    y[i] = b;
  }
}

__global__ void daxpy_strided(int64_t begin, int64_t n, double alpha, const double* __restrict__ x, int64_t incx,
                              double* __restrict__ y, int64_t incy) {
  for (int64_t i = begin + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i * incy] = fma(alpha, x[i * incx], y[i * incy]);
}

unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace

extern "C" int kgb_blas_daxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  if (n <= 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is, x unread
  auto s = static_cast<hipStream_t>(stream);
  const double* xp = static_cast<const double*>(x->data);
  double* yp = static_cast<double*>(y->data);
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const unsigned threads = 256;
  int64_t done = 0;
  const bool aligned = (reinterpret_cast<uintptr_t>(xp) % 16 == 0) && (reinterpret_cast<uintptr_t>(yp) % 16 == 0);
  if (incx == 1 && incy == 1 && aligned && n >= 2) {
    const int64_t pairs = n / 2;
    hipLaunchKernelGGL(daxpy_unit2, dim3(blocks_for(pairs, threads)), dim3(threads), 0, s, pairs, alpha,
                       reinterpret_cast<const double2*>(xp), reinterpret_cast<double2*>(yp));
    done = pairs * 2;
  }
  if (done < n)
    hipLaunchKernelGGL(daxpy_strided, dim3(blocks_for(n - done, threads)), dim3(threads), 0, s, done, n, alpha, xp, incx,
                       yp, incy);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
