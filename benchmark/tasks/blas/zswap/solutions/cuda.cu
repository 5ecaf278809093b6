// blas/zswap on CUDA (sm_90): x[i*incx] <-> y[i*incy], c128.
// Each element is one 16-byte double2 load and store per vector. A
// grid-stride loop with two elements per thread per step in flight; the
// signed increments address reversed vectors directly (data[i * inc] is
// element i for either sign).
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) zswap_kernel(int64_t n, double2* __restrict__ x, int64_t incx,
                                                         double2* __restrict__ y, int64_t incy) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (; i + stride < n; i += 2 * stride) {
    const int64_t j = i + stride;
    const double2 a0 = x[i * incx], b0 = y[i * incy], a1 = x[j * incx], b1 = y[j * incy];
    x[i * incx] = b0;
    y[i * incy] = a0;
    x[j * incx] = b1;
    y[j * incy] = a1;
  }
  if (i < n) {
    const double2 a = x[i * incx], b = y[i * incy];
    x[i * incx] = b;
    y[i * incy] = a;
  }
}

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads, cap = 132 * 16;  // enough to fill an H200
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

}  // namespace

extern "C" int kgb_blas_zswap(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  if (n <= 0) return KGB_OK;
  zswap_kernel<<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      n, static_cast<double2*>(x->data), x->strides[0], static_cast<double2*>(y->data), y->strides[0]);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
