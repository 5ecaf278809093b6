// blas/saxpy on CUDA: y := alpha * x + y.
// Unit increments: 16-byte vector loads and stores, four vectors per thread
// in flight. Other increments (including incx == 0): one element per thread,
// still coalesced as far as the increments allow.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 4;

__global__ void __launch_bounds__(kThreads) saxpy_vector(int64_t n4, float alpha, const float4* __restrict__ x,
                                                         float4* __restrict__ y) {
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kThreads * kVectorsPerThread + threadIdx.x;
  float4 xv[kVectorsPerThread], yv[kVectorsPerThread];
#pragma unroll
  for (int k = 0; k < kVectorsPerThread; ++k) {
    const int64_t i = base + static_cast<int64_t>(k) * kThreads;
    if (i < n4) {
      xv[k] = __ldg(x + i);
      yv[k] = y[i];
    }
  }
#pragma unroll
  for (int k = 0; k < kVectorsPerThread; ++k) {
    const int64_t i = base + static_cast<int64_t>(k) * kThreads;
    if (i < n4) {
      float4 r;
      r.x = fmaf(alpha, xv[k].x, yv[k].x);
      r.y = fmaf(alpha, xv[k].y, yv[k].y);
      r.z = fmaf(alpha, xv[k].z, yv[k].z);
      r.w = fmaf(alpha, xv[k].w, yv[k].w);
      y[i] = r;
    }
  }
}

__global__ void __launch_bounds__(kThreads) saxpy_strided(int64_t begin, int64_t n, float alpha, const float* __restrict__ x,
                                                          int64_t incx, float* __restrict__ y, int64_t incy) {
  const int64_t i = begin + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < n) y[i * incy] = fmaf(alpha, __ldg(x + i * incx), y[i * incy]);
}

int64_t blocks_for(int64_t items, int64_t per_block) { return (items + per_block - 1) / per_block; }

}  // namespace

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || x->rank != 1 || y->rank != 1) return KGB_ERR_UNSUPPORTED;
  const int64_t n = x->sizes[0];
  if (n == 0) return KGB_OK;
  const float a = static_cast<float>(alpha);
  if (a == 0.0f) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is (and reads nothing)
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  const int64_t incx = x->strides[0], incy = y->strides[0];
  int64_t done = 0;
  const bool aligned = ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0;
  if (incx == 1 && incy == 1 && aligned && n >= 4) {
    const int64_t n4 = n / 4;
    saxpy_vector<<<static_cast<unsigned>(blocks_for(n4, kThreads * kVectorsPerThread)), kThreads, 0, s>>>(
        n4, a, reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp));
    done = n4 * 4;
  }
  if (done < n)
    saxpy_strided<<<static_cast<unsigned>(blocks_for(n - done, kThreads)), kThreads, 0, s>>>(done, n, a, xp, incx, yp, incy);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
