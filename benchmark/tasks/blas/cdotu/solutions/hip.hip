// blas/cdotu in HIP: result[0] = sum of x[i*incx] * y[i*incy], c64,
// unconjugated. Two launches on the stream: `partials` (grid-stride float
// accumulation of the (re, im) pair, float4 loads = two elements for aligned
// unit-stride vectors, a shared-memory tree per block, independent of the
// wavefront size) into a per-call scratch buffer, then `finish` (one block,
// fixed order). Deterministic.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__device__ __forceinline__ double2 block_sum(double2 v, double2* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width >>= 1) {
    if (threadIdx.x < width) {
      scratch[threadIdx.x].x += scratch[threadIdx.x + width].x;
      scratch[threadIdx.x].y += scratch[threadIdx.x + width].y;
    }
    __syncthreads();
  }
  return scratch[0];
}

__device__ __forceinline__ void cmla(float2& acc, float ar, float ai, float br, float bi) {
  acc.x = fmaf(ar, br, fmaf(-ai, bi, acc.x));
  acc.y = fmaf(ar, bi, fmaf(ai, br, acc.y));
}

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const float2* __restrict__ x, int64_t incx,
                                                     const float2* __restrict__ y, int64_t incy, bool vector2,
                                                     double2* __restrict__ part) {
  __shared__ double2 scratch[kThreads];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  float2 acc = make_float2(0.0f, 0.0f);
  int64_t scalar_from = first;
  if (vector2) {
    const int64_t pairs = n / 2;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    for (int64_t i = first; i < pairs; i += stride) {
      const float4 a = x4[i], b = y4[i];
      cmla(acc, a.x, a.y, b.x, b.y);
      cmla(acc, a.z, a.w, b.z, b.w);
    }
    scalar_from = 2 * pairs + first;
  }
  for (int64_t i = scalar_from; i < n; i += stride) {
    const float2 a = x[i * incx], b = y[i * incy];
    cmla(acc, a.x, a.y, b.x, b.y);
  }
  const double2 s = block_sum(make_double2(acc.x, acc.y), scratch);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double2* __restrict__ part, float2* __restrict__ result) {
  __shared__ double2 scratch[kThreads];
  double2 t = make_double2(0.0, 0.0);
  for (int b = threadIdx.x; b < blocks; b += kThreads) {
    t.x += part[b].x;
    t.y += part[b].y;
  }
  t = block_sum(t, scratch);
  if (threadIdx.x == 0) *result = make_float2(static_cast<float>(t.x), static_cast<float>(t.y));
}

}  // namespace

extern "C" int kgb_blas_cdotu(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || result->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  auto s = static_cast<hipStream_t>(stream);
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const float2* xp = static_cast<const float2*>(x->data);
  const float2* yp = static_cast<const float2*>(y->data);
  const bool vector2 = incx == 1 && incy == 1 && ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0;
  const int64_t per_block = static_cast<int64_t>(kThreads) * 8;
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // n == 0 still writes 0
  double2* part = nullptr;
  if (hipMallocAsync(reinterpret_cast<void**>(&part), sizeof(double2) * blocks, s) != hipSuccess) return KGB_ERR_INVALID;
  hipLaunchKernelGGL(partials, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, s, n, xp, incx, yp, incy, vector2, part);
  hipLaunchKernelGGL(finish, dim3(1), dim3(kThreads), 0, s, static_cast<int>(blocks), part, static_cast<float2*>(result->data));
  const hipError_t launched = hipGetLastError();
  hipFreeAsync(part, s);
  return launched == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
