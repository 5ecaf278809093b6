// blas/saxpy in HIP: y[i*incy] = alpha * x[i*incx] + y[i*incy].
// A grid-stride loop, one element per thread per step; unit increments read
// and write float4 where the pointers are 16-byte aligned.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

__global__ void saxpy_unit4(int64_t quads, float alpha, const float4* __restrict__ x, float4* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < quads;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float4 a = x[i], b = y[i];
    b.x = fmaf(alpha, a.x, b.x);
    b.y = fmaf(alpha, a.y, b.y);
    b.z = fmaf(alpha, a.z, b.z);
    b.w = fmaf(alpha, a.w, b.w);
    y[i] = b;
  }
}

__global__ void saxpy_strided(int64_t begin, int64_t n, float alpha, const float* __restrict__ x, int64_t incx,
                              float* __restrict__ y, int64_t incy) {
  for (int64_t i = begin + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i * incy] = fmaf(alpha, x[i * incx], y[i * incy]);
}

unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  const float a = static_cast<float>(alpha);
  if (n == 0 || a == 0.0f) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is
  auto s = static_cast<hipStream_t>(stream);
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const unsigned threads = 256;
  int64_t done = 0;
  bool aligned = (reinterpret_cast<uintptr_t>(xp) % 16 == 0) && (reinterpret_cast<uintptr_t>(yp) % 16 == 0);
  if (incx == 1 && incy == 1 && aligned && n >= 4) {
    const int64_t quads = n / 4;
    hipLaunchKernelGGL(saxpy_unit4, dim3(blocks_for(quads, threads)), dim3(threads), 0, s, quads, a,
                       reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp));
    done = quads * 4;
  }
  if (done < n)
    hipLaunchKernelGGL(saxpy_strided, dim3(blocks_for(n - done, threads)), dim3(threads), 0, s, done, n, a, xp, incx,
                       yp, incy);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
