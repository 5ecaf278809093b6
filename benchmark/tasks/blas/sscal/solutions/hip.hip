// blas/sscal in HIP: x[i*incx] *= alpha for incx > 0; incx <= 0 and n == 0
// do nothing (BLAS). Grid-stride loops: float4 for a 16-byte aligned unit
// increment, one element per thread otherwise and for the tail.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

__global__ void sscal_unit4(int64_t quads, float alpha, float4* __restrict__ x) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < quads;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    v.x *= alpha;
    v.y *= alpha;
    v.z *= alpha;
    v.w *= alpha;
    x[i] = v;
  }
}

__global__ void sscal_strided(int64_t begin, int64_t n, float alpha, float* __restrict__ x, int64_t incx) {
  for (int64_t i = begin + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    x[i * incx] *= alpha;
}

unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace

extern "C" int kgb_blas_sscal(double alpha, kgb_tensor* x, kgb_stream stream) {
  if (x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0];
  const float a = static_cast<float>(alpha);
  if (n <= 0 || incx <= 0 || a == 1.0f) return KGB_OK;  // BLAS: nothing to do
  auto s = static_cast<hipStream_t>(stream);
  float* xp = static_cast<float*>(x->data);
  const unsigned threads = 256;
  int64_t done = 0;
  if (incx == 1 && reinterpret_cast<uintptr_t>(xp) % 16 == 0 && n >= 4) {
    const int64_t quads = n / 4;
    hipLaunchKernelGGL(sscal_unit4, dim3(blocks_for(quads, threads)), dim3(threads), 0, s, quads, a,
                       reinterpret_cast<float4*>(xp));
    done = quads * 4;
  }
  if (done < n)
    hipLaunchKernelGGL(sscal_strided, dim3(blocks_for(n - done, threads)), dim3(threads), 0, s, done, n, a, xp, incx);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
