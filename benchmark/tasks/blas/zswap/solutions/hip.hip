// blas/zswap in HIP: x[i*incx] <-> y[i*incy], c128. A grid-stride loop, one
// 16-byte double2 load and store per element and vector; the signed
// increments address reversed vectors directly.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

__global__ void zswap_kernel(int64_t n, double2* __restrict__ x, int64_t incx, double2* __restrict__ y, int64_t incy) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double2 a = x[i * incx], b = y[i * incy];
    x[i * incx] = b;
    y[i * incy] = a;
  }
}

unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace

extern "C" int kgb_blas_zswap(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  if (n <= 0) return KGB_OK;
  const unsigned threads = 256;
  hipLaunchKernelGGL(zswap_kernel, dim3(blocks_for(n, threads)), dim3(threads), 0, static_cast<hipStream_t>(stream), n,
                     static_cast<double2*>(x->data), x->strides[0], static_cast<double2*>(y->data), y->strides[0]);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
