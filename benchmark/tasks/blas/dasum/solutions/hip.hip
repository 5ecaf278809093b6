// blas/dasum in HIP: result[0] = sum of |x[i*incx]| for incx > 0; 0 for
// incx <= 0 or n == 0 (BLAS). Two launches on the stream: `partials`
// (grid-stride accumulation, double2 loads for an aligned unit increment, a
// shared-memory tree per block, independent of the wavefront size) into a
// per-call scratch buffer, then `finish` (one block, fixed order).
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

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const double* __restrict__ x, int64_t incx, bool vector2,
                                                     double* __restrict__ part) {
  __shared__ double scratch[kThreads];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  double acc = 0.0;
  int64_t scalar_from = first;
  if (vector2) {
    const int64_t n2 = n / 2;
    const double2* x2 = reinterpret_cast<const double2*>(x);
    for (int64_t i = first; i < n2; i += stride) {
      const double2 a = x2[i];
      acc += fabs(a.x) + fabs(a.y);
    }
    scalar_from = 2 * n2 + first;
  }
  for (int64_t i = scalar_from; i < n; i += stride) acc += fabs(x[i * incx]);
  const double s = block_sum(acc, scratch);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double* __restrict__ part, double* __restrict__ result) {
  __shared__ double scratch[kThreads];
  double t = 0.0;
  for (int b = threadIdx.x; b < blocks; b += kThreads) t += part[b];
  t = block_sum(t, scratch);
  if (threadIdx.x == 0) *result = t;
}

}  // namespace

extern "C" int kgb_blas_dasum(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_F64 || result->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  auto s = static_cast<hipStream_t>(stream);
  const int64_t incx = x->strides[0];
  const int64_t n = incx > 0 ? x->sizes[0] : 0;  // BLAS: incx <= 0 sums nothing
  const double* xp = static_cast<const double*>(x->data);
  const bool vector2 = incx == 1 && reinterpret_cast<uintptr_t>(xp) % 16 == 0;
  const int64_t per_block = static_cast<int64_t>(kThreads) * 8;
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // an empty sum still writes 0
  double* part = nullptr;
  if (hipMallocAsync(reinterpret_cast<void**>(&part), sizeof(double) * blocks, s) != hipSuccess) return KGB_ERR_INVALID;
  hipLaunchKernelGGL(partials, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, s, n, xp, incx, vector2, part);
  hipLaunchKernelGGL(finish, dim3(1), dim3(kThreads), 0, s, static_cast<int>(blocks), part, static_cast<double*>(result->data));
  const hipError_t launched = hipGetLastError();
  hipFreeAsync(part, s);
  return launched == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
