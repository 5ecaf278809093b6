// blas/dasum on CUDA (sm_90): result[0] = sum of |x[i*incx]| for incx > 0;
// 0 for incx <= 0 or n == 0 (BLAS).
//
// Two launches on the stream. `partials`: each thread accumulates a
// grid-stride slice (double2 loads for a 16-byte aligned unit increment), each
// block reduces with warp shuffles into one partial in a per-call scratch
// buffer (cudaMallocAsync, stream-ordered). `finish`: one block adds the
// partials in a fixed order and writes the result. Deterministic.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 132 * 8;  // a few waves over the H200's 132 SMs

// Sum over the block (warp_sums: kThreads / 32 doubles of shared memory); the
// value is valid in thread 0.
__device__ __forceinline__ double block_sum(double v, double* warp_sums) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const double* __restrict__ x, int64_t incx, bool vector2,
                                                     double* __restrict__ part) {
  __shared__ double warp_sums[kThreads / 32];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  double acc0 = 0.0, acc1 = 0.0;
  int64_t scalar_from = first;
  if (vector2) {
    const int64_t n2 = n / 2;
    const double2* x2 = reinterpret_cast<const double2*>(x);
    for (int64_t i = first; i < n2; i += stride) {
      const double2 a = __ldg(x2 + i);
      acc0 += fabs(a.x);
      acc1 += fabs(a.y);
    }
    scalar_from = 2 * n2 + first;  // the odd last element
  }
  for (int64_t i = scalar_from; i < n; i += stride) acc0 += fabs(__ldg(x + i * incx));
  const double s = block_sum(acc0 + acc1, warp_sums);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double* __restrict__ part, double* __restrict__ result) {
  __shared__ double warp_sums[kThreads / 32];
  double t = 0.0;
  for (int b = threadIdx.x; b < blocks; b += kThreads) t += part[b];
  t = block_sum(t, warp_sums);
  if (threadIdx.x == 0) *result = t;
}

}  // namespace

extern "C" int kgb_blas_dasum(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_F64 || result->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t incx = x->strides[0];
  const int64_t n = incx > 0 ? x->sizes[0] : 0;  // BLAS: incx <= 0 sums nothing
  const double* xp = static_cast<const double*>(x->data);
  const bool vector2 = incx == 1 && (reinterpret_cast<uintptr_t>(xp) & 15) == 0;
  const int64_t per_block = static_cast<int64_t>(kThreads) * 8;
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // an empty sum still writes 0
  double* part = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&part), sizeof(double) * blocks, s) != cudaSuccess) return KGB_ERR_INVALID;
  partials<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(n, xp, incx, vector2, part);
  finish<<<1, kThreads, 0, s>>>(static_cast<int>(blocks), part, static_cast<double*>(result->data));
  const cudaError_t launched = cudaGetLastError();
  cudaFreeAsync(part, s);
  return launched == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
