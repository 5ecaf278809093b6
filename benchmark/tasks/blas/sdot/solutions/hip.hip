// blas/sdot in HIP: result[0] = sum of x[i*incx] * y[i*incy].
// Two launches on the stream: `partials` (grid-stride float accumulation per
// thread, float4 loads for aligned unit-stride vectors, a shared-memory tree
// per block into one double partial, independent of the wavefront size: 64
// on gfx90a) into a per-call scratch buffer, then `finish` (one block) adds
// the partials in a fixed order. Fixed order: deterministic.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__device__ __forceinline__ double block_sum(double v, double* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width >>= 1) {
    if (threadIdx.x < width) scratch[threadIdx.x] += scratch[threadIdx.x + width];
    __syncthreads();
  }
  return scratch[0];
}

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const float* __restrict__ x, int64_t incx,
                                                     const float* __restrict__ y, int64_t incy, bool vector4,
                                                     double* __restrict__ part) {
  __shared__ double scratch[kThreads];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  float acc = 0.0f;
  int64_t scalar_from = first;
  if (vector4) {
    const int64_t n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    for (int64_t i = first; i < n4; i += stride) {
      const float4 a = x4[i], b = y4[i];
      acc = fmaf(a.x, b.x, acc);
      acc = fmaf(a.y, b.y, acc);
      acc = fmaf(a.z, b.z, acc);
      acc = fmaf(a.w, b.w, acc);
    }
    scalar_from = 4 * n4 + first;
  }
  for (int64_t i = scalar_from; i < n; i += stride) acc = fmaf(x[i * incx], y[i * incy], acc);
  const double s = block_sum(static_cast<double>(acc), scratch);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double* __restrict__ part, float* __restrict__ result) {
  __shared__ double scratch[kThreads];
  double t = 0.0;
  for (int b = threadIdx.x; b < blocks; b += kThreads) t += part[b];
  t = block_sum(t, scratch);
  if (threadIdx.x == 0) *result = static_cast<float>(t);
}

}  // namespace

extern "C" int kgb_blas_sdot(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || result->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  auto s = static_cast<hipStream_t>(stream);
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  const bool vector4 = incx == 1 && incy == 1 && ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0;
  const int64_t per_block = static_cast<int64_t>(kThreads) * (vector4 ? 16 : 4);
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // n == 0 still writes 0
  double* part = nullptr;
  if (hipMallocAsync(reinterpret_cast<void**>(&part), sizeof(double) * blocks, s) != hipSuccess) return KGB_ERR_INVALID;
  hipLaunchKernelGGL(partials, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, s, n, xp, incx, yp, incy, vector4, part);
  hipLaunchKernelGGL(finish, dim3(1), dim3(kThreads), 0, s, static_cast<int>(blocks), part, static_cast<float*>(result->data));
  const hipError_t launched = hipGetLastError();
  hipFreeAsync(part, s);
  return launched == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
