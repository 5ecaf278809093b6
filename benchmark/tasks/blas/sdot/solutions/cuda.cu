// blas/sdot on CUDA (sm_90): result[0] = sum of x[i*incx] * y[i*incy].
//
// Two launches on the stream. `partials`: each thread accumulates a
// grid-stride slice in float (float4 loads when both vectors are unit-stride
// and 16-byte aligned), each block reduces with warp shuffles into one double
// partial in a per-call scratch buffer (cudaMallocAsync, stream-ordered).
// `finish`: one block adds the partials in a fixed order and writes the
// result. The order of every addition is fixed by the launch shape, so the
// result is deterministic.
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

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const float* __restrict__ x, int64_t incx,
                                                     const float* __restrict__ y, int64_t incy, bool vector4,
                                                     double* __restrict__ part) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  float acc = 0.0f;
  int64_t scalar_from = first;
  if (vector4) {
    const int64_t n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    for (int64_t i = first; i < n4; i += stride) {
      const float4 a = __ldg(x4 + i), b = __ldg(y4 + i);
      acc = fmaf(a.x, b.x, acc);
      acc = fmaf(a.y, b.y, acc);
      acc = fmaf(a.z, b.z, acc);
      acc = fmaf(a.w, b.w, acc);
    }
    scalar_from = 4 * n4 + first;  // the tail, fewer than four elements
  }
  for (int64_t i = scalar_from; i < n; i += stride) acc = fmaf(__ldg(x + i * incx), __ldg(y + i * incy), acc);
  __shared__ double warp_sums[kThreads / 32];
  const double s = block_sum(static_cast<double>(acc), warp_sums);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double* __restrict__ part, float* __restrict__ result) {
  __shared__ double warp_sums[kThreads / 32];
  double t = 0.0;
  for (int b = threadIdx.x; b < blocks; b += kThreads) t += part[b];
  t = block_sum(t, warp_sums);
  if (threadIdx.x == 0) *result = static_cast<float>(t);
}

}  // namespace

extern "C" int kgb_blas_sdot(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || result->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  const bool vector4 = incx == 1 && incy == 1 && ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0;
  const int64_t per_block = static_cast<int64_t>(kThreads) * (vector4 ? 16 : 4);
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // n == 0 still writes 0
  double* part = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&part), sizeof(double) * blocks, s) != cudaSuccess) return KGB_ERR_INVALID;
  partials<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(n, xp, incx, yp, incy, vector4, part);
  finish<<<1, kThreads, 0, s>>>(static_cast<int>(blocks), part, static_cast<float*>(result->data));
  const cudaError_t launched = cudaGetLastError();
  cudaFreeAsync(part, s);
  return launched == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
