// blas/zdotc in HIP: result[0] = sum of conj(x[i*incx]) * y[i*incy], c128.
// Two launches on the stream: `partials` (grid-stride double accumulation of
// the (re, im) pair, one double2 load per element, a shared-memory tree per
// block, independent of the wavefront size) into a per-call scratch buffer,
// then `finish` (one block, fixed order). Deterministic.
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

// acc += conj(a) * b
__device__ __forceinline__ void cmla_conj(double2& acc, double2 a, double2 b) {
  acc.x = fma(a.x, b.x, fma(a.y, b.y, acc.x));
  acc.y = fma(a.x, b.y, fma(-a.y, b.x, acc.y));
}

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const double2* __restrict__ x, int64_t incx,
                                                     const double2* __restrict__ y, int64_t incy, double2* __restrict__ part) {
  __shared__ double2 scratch[kThreads];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  double2 acc = make_double2(0.0, 0.0);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
    cmla_conj(acc, x[i * incx], y[i * incy]);
  const double2 s = block_sum(acc, scratch);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double2* __restrict__ part, double2* __restrict__ result) {
  __shared__ double2 scratch[kThreads];
  double2 t = make_double2(0.0, 0.0);
  for (int b = threadIdx.x; b < blocks; b += kThreads) {
    t.x += part[b].x;
    t.y += part[b].y;
  }
  t = block_sum(t, scratch);
  if (threadIdx.x == 0) *result = t;
}

}  // namespace

extern "C" int kgb_blas_zdotc(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || result->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  auto s = static_cast<hipStream_t>(stream);
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const double2* xp = static_cast<const double2*>(x->data);
  const double2* yp = static_cast<const double2*>(y->data);
  const int64_t per_block = static_cast<int64_t>(kThreads) * 4;
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // n == 0 still writes 0
  double2* part = nullptr;
  if (hipMallocAsync(reinterpret_cast<void**>(&part), sizeof(double2) * blocks, s) != hipSuccess) return KGB_ERR_INVALID;
  hipLaunchKernelGGL(partials, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, s, n, xp, incx, yp, incy, part);
  hipLaunchKernelGGL(finish, dim3(1), dim3(kThreads), 0, s, static_cast<int>(blocks), part, static_cast<double2*>(result->data));
  const hipError_t launched = hipGetLastError();
  hipFreeAsync(part, s);
  return launched == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
