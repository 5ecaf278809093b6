// blas/dcopy in HIP: y[i*incy] = x[i*incx], f64.
// Equal unit increments (both +1, or both -1: the same memory block from each
// vector's lowest address) are one hipMemcpyAsync device-to-device on the
// stream; everything else a grid-stride kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

__global__ void dcopy_strided(int64_t n, const double* __restrict__ x, int64_t incx, double* __restrict__ y, int64_t incy) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i * incy] = x[i * incx];
}

unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace

extern "C" int kgb_blas_dcopy(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  if (n <= 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  const double* xp = static_cast<const double*>(x->data);
  double* yp = static_cast<double*>(y->data);
  if (incx == incy && (incx == 1 || incx == -1)) {
    const int64_t low = incx == 1 ? 0 : n - 1;  // both blocks start at their lowest address
    return hipMemcpyAsync(yp - low, xp - low, sizeof(double) * n, hipMemcpyDeviceToDevice, s) == hipSuccess ? KGB_OK
                                                                                                        : KGB_ERR_INVALID;
  }
  const unsigned threads = 256;
  hipLaunchKernelGGL(dcopy_strided, dim3(blocks_for(n, threads)), dim3(threads), 0, s, n, xp, incx, yp, incy);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
