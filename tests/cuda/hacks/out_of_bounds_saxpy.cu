// Planted bug for the sanitizer test (blas/saxpy): the grid covers 64 more
// elements than the vector has and nothing checks the bound.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

__global__ void saxpy_unchecked(float alpha, const float* x, float* y) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  y[i] = alpha * x[i] + y[i];
}

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const int64_t n = x->sizes[0];
  if (n == 0) return KGB_OK;
  saxpy_unchecked<<<(unsigned)((n + 64 + 127) / 128), 128, 0, (cudaStream_t)stream>>>((float)alpha, (const float*)x->data,
                                                                                        (float*)y->data);
  return KGB_OK;
}
