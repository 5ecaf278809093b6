// blas/zdotc on CUDA (sm_90): result[0] = sum of conj(x[i*incx]) * y[i*incy],
// c128.
//
// Two launches on the stream. `partials`: each thread accumulates a
// grid-stride slice in double (one 16-byte double2 load per element, two
// elements per thread per step in flight), each block reduces the
// (re, im) pair with warp shuffles into one partial in a per-call scratch
// buffer (cudaMallocAsync, stream-ordered). `finish`: one block adds the
// partials in a fixed order and writes the result. Deterministic.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 132 * 8;  // a few waves over the H200's 132 SMs

// Sum of a (re, im) pair over the block (warp_sums: kThreads / 32 double2 of
// shared memory); valid in thread 0.
__device__ __forceinline__ double2 block_sum(double2 v, double2* warp_sums) {
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : make_double2(0.0, 0.0);
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) {
      v.x += __shfl_down_sync(0xffffffffu, v.x, o);
      v.y += __shfl_down_sync(0xffffffffu, v.y, o);
    }
  return v;
}

// acc += conj(a) * b = (ar*br + ai*bi) + (ar*bi - ai*br) i
__device__ __forceinline__ void cmla_conj(double2& acc, double2 a, double2 b) {
  acc.x = fma(a.x, b.x, fma(a.y, b.y, acc.x));
  acc.y = fma(a.x, b.y, fma(-a.y, b.x, acc.y));
}

__global__ void __launch_bounds__(kThreads) partials(int64_t n, const double2* __restrict__ x, int64_t incx,
                                                     const double2* __restrict__ y, int64_t incy, double2* __restrict__ part) {
  __shared__ double2 warp_sums[kThreads / 32];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  double2 acc0 = make_double2(0.0, 0.0), acc1 = make_double2(0.0, 0.0);
  for (; i + stride < n; i += 2 * stride) {  // two independent loads in flight
    cmla_conj(acc0, __ldg(x + i * incx), __ldg(y + i * incy));
    cmla_conj(acc1, __ldg(x + (i + stride) * incx), __ldg(y + (i + stride) * incy));
  }
  if (i < n) cmla_conj(acc0, __ldg(x + i * incx), __ldg(y + i * incy));
  const double2 s = block_sum(make_double2(acc0.x + acc1.x, acc0.y + acc1.y), warp_sums);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kThreads) finish(int blocks, const double2* __restrict__ part, double2* __restrict__ result) {
  __shared__ double2 warp_sums[kThreads / 32];
  double2 t = make_double2(0.0, 0.0);
  for (int b = threadIdx.x; b < blocks; b += kThreads) {
    t.x += part[b].x;
    t.y += part[b].y;
  }
  t = block_sum(t, warp_sums);
  if (threadIdx.x == 0) *result = t;
}

}  // namespace

extern "C" int kgb_blas_zdotc(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || result->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const double2* xp = static_cast<const double2*>(x->data);
  const double2* yp = static_cast<const double2*>(y->data);
  const int64_t per_block = static_cast<int64_t>(kThreads) * 4;
  int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);  // n == 0 still writes 0
  double2* part = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&part), sizeof(double2) * blocks, s) != cudaSuccess) return KGB_ERR_INVALID;
  partials<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(n, xp, incx, yp, incy, part);
  finish<<<1, kThreads, 0, s>>>(static_cast<int>(blocks), part, static_cast<double2*>(result->data));
  const cudaError_t launched = cudaGetLastError();
  cudaFreeAsync(part, s);
  return launched == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
