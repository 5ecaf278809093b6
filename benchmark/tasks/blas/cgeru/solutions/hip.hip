// blas/cgeru in HIP (a port of the CUDA solution): A(i, j) += alpha * x[i] * y[j], float complex
// (float2: real, imaginary), column-major A.
//
// Memory bound: A is read and written once. A block of 256 threads owns 256
// consecutive rows of a tile of kCols columns; each thread keeps alpha * x[i]
// in registers and walks the tile's columns, so a wavefront reads and writes one
// contiguous run of a column per step (coalesced float2 accesses). y[j] is the
// same address for the whole wavefront (one broadcast load). Increments of either
// sign: data[i * inc] is element i. Column tiles are walked grid-stride so
// any n fits in the grid. alpha == 0 returns before reading x or y (BLAS).
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kCols = 16;  // columns per block tile

struct Params {
  int64_t m, n;
  float2 alpha;
  const float2* x;
  int64_t incx;
  const float2* y;
  int64_t incy;
  float2* a;
  int64_t lda;
};

__global__ void __launch_bounds__(kThreads) cgeru_kernel(Params p) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.m) return;
  const float2 xi = __ldg(p.x + i * p.incx);
  const float2 ax = make_float2(p.alpha.x * xi.x - p.alpha.y * xi.y, p.alpha.x * xi.y + p.alpha.y * xi.x);
  for (int64_t j0 = static_cast<int64_t>(blockIdx.y) * kCols; j0 < p.n; j0 += static_cast<int64_t>(gridDim.y) * kCols) {
    const int64_t j1 = j0 + kCols < p.n ? j0 + kCols : p.n;
#pragma unroll 4
    for (int64_t j = j0; j < j1; ++j) {
      const float2 yj = __ldg(p.y + j * p.incy);
      const float yr = yj.x, yi = yj.y;
      float2* at = p.a + j * p.lda + i;
      float2 v = *at;
      v.x = fmaf(ax.x, yr, fmaf(-ax.y, yi, v.x));
      v.y = fmaf(ax.x, yi, fmaf(ax.y, yr, v.y));
      *at = v;
    }
  }
}

}  // namespace

extern "C" int kgb_blas_cgeru(kgb_complex alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || A->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  Params p{};
  p.m = A->sizes[0];
  p.n = A->sizes[1];
  if (x->sizes[0] != p.m || y->sizes[0] != p.n) return KGB_ERR_INVALID;
  p.alpha = make_float2(static_cast<float>(alpha.re), static_cast<float>(alpha.im));
  if (p.m == 0 || p.n == 0 || (p.alpha.x == 0 && p.alpha.y == 0)) return KGB_OK;  // BLAS: x and y not read
  p.x = static_cast<const float2*>(x->data);
  p.incx = x->strides[0];
  p.y = static_cast<const float2*>(y->data);
  p.incy = y->strides[0];
  p.a = static_cast<float2*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : p.m;
  const int64_t by = (p.n + kCols - 1) / kCols;
  const dim3 grid(static_cast<unsigned>((p.m + kThreads - 1) / kThreads), static_cast<unsigned>(by < 65535 ? by : 65535));
  hipLaunchKernelGGL(cgeru_kernel, grid, dim3(kThreads), 0, static_cast<hipStream_t>(stream), p);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
