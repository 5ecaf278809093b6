// blas/sscal on CUDA (sm_90): x[i*incx] *= alpha for incx > 0; incx <= 0 and
// n == 0 do nothing (BLAS).
// Unit increment, 16-byte aligned: float4 loads and stores in a grid-stride
// loop, two vectors per thread per step in flight; a scalar kernel takes the
// tail and every other increment.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float4 scale4(float a, float4 v) { return make_float4(a * v.x, a * v.y, a * v.z, a * v.w); }

__global__ void __launch_bounds__(kThreads) sscal_vector(int64_t n4, float alpha, float4* __restrict__ x) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (; i + stride < n4; i += 2 * stride) {
    const float4 v0 = x[i], v1 = x[i + stride];
    x[i] = scale4(alpha, v0);
    x[i + stride] = scale4(alpha, v1);
  }
  if (i < n4) x[i] = scale4(alpha, x[i]);
}

__global__ void __launch_bounds__(kThreads) sscal_strided(int64_t begin, int64_t n, float alpha, float* __restrict__ x,
                                                          int64_t incx) {
  for (int64_t i = begin + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads)
    x[i * incx] *= alpha;
}

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads, cap = 132 * 16;  // enough to fill an H200
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

}  // namespace

extern "C" int kgb_blas_sscal(double alpha, kgb_tensor* x, kgb_stream stream) {
  if (x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0];
  const float a = static_cast<float>(alpha);
  if (n <= 0 || incx <= 0 || a == 1.0f) return KGB_OK;  // BLAS: nothing to do
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  float* xp = static_cast<float*>(x->data);
  int64_t done = 0;
  if (incx == 1 && (reinterpret_cast<uintptr_t>(xp) & 15) == 0 && n >= 4) {
    const int64_t n4 = n / 4;
    sscal_vector<<<grid_for(n4), kThreads, 0, s>>>(n4, a, reinterpret_cast<float4*>(xp));
    done = n4 * 4;
  }
  if (done < n) sscal_strided<<<grid_for(n - done), kThreads, 0, s>>>(done, n, a, xp, incx);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
