// blas/sger in HIP (a port of the CUDA solution): A(i, j) += alpha * x[i] * y[j], f32, column-major.
//
// Memory bound: A is read and written once. A block of 256 threads owns
// 256 * kRowsPerThread consecutive rows of a tile of kCols columns; each
// thread keeps its alpha * x values in registers and walks the tile's
// columns, so a wavefront reads and writes consecutive addresses of one column
// (coalesced), with float4 accesses when every column starts 16-byte aligned
// (lda a multiple of 4, aligned data). y[j] is the same address for the whole
// warp (one broadcast load). The vector kernel covers the rows up to a
// multiple of 4; the remaining rows, and unaligned matrices, take the scalar
// kernel. Increments of either sign: data[i * inc] is element i. Column tiles
// are walked grid-stride so any n fits in the grid.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kCols = 16;  // columns per block tile

struct Params {
  int64_t m, n;
  float alpha;
  const float* x;
  int64_t incx;
  const float* y;
  int64_t incy;
  float* a;
  int64_t lda;
};

// Rows [4 * r, 4 * r + 4) per thread, float4 loads and stores of A.
__global__ void __launch_bounds__(kThreads) sger_vec4(Params p, int64_t rows4) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (r >= rows4) return;
  const int64_t i = 4 * r;
  float4 ax;
  if (p.incx == 1) {
    ax.x = __ldg(p.x + i);
    ax.y = __ldg(p.x + i + 1);
    ax.z = __ldg(p.x + i + 2);
    ax.w = __ldg(p.x + i + 3);
  } else {
    ax.x = __ldg(p.x + i * p.incx);
    ax.y = __ldg(p.x + (i + 1) * p.incx);
    ax.z = __ldg(p.x + (i + 2) * p.incx);
    ax.w = __ldg(p.x + (i + 3) * p.incx);
  }
  ax.x *= p.alpha;
  ax.y *= p.alpha;
  ax.z *= p.alpha;
  ax.w *= p.alpha;
  for (int64_t j0 = static_cast<int64_t>(blockIdx.y) * kCols; j0 < p.n; j0 += static_cast<int64_t>(gridDim.y) * kCols) {
    const int64_t j1 = j0 + kCols < p.n ? j0 + kCols : p.n;
#pragma unroll 4
    for (int64_t j = j0; j < j1; ++j) {
      const float yj = __ldg(p.y + j * p.incy);
      float4* col = reinterpret_cast<float4*>(p.a + j * p.lda + i);
      float4 v = *col;
      v.x = fmaf(ax.x, yj, v.x);
      v.y = fmaf(ax.y, yj, v.y);
      v.z = fmaf(ax.z, yj, v.z);
      v.w = fmaf(ax.w, yj, v.w);
      *col = v;
    }
  }
}

// One row per thread from row0 on.
__global__ void __launch_bounds__(kThreads) sger_scalar(Params p, int64_t row0) {
  const int64_t i = row0 + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.m) return;
  const float ax = p.alpha * __ldg(p.x + i * p.incx);
  for (int64_t j0 = static_cast<int64_t>(blockIdx.y) * kCols; j0 < p.n; j0 += static_cast<int64_t>(gridDim.y) * kCols) {
    const int64_t j1 = j0 + kCols < p.n ? j0 + kCols : p.n;
#pragma unroll 4
    for (int64_t j = j0; j < j1; ++j) {
      float* at = p.a + j * p.lda + i;
      *at = fmaf(ax, __ldg(p.y + j * p.incy), *at);
    }
  }
}

dim3 grid_for(int64_t rows_per_thread_items, int64_t n) {
  const int64_t bx = (rows_per_thread_items + kThreads - 1) / kThreads;
  const int64_t by = (n + kCols - 1) / kCols;
  return dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by < 65535 ? by : 65535));
}

}  // namespace

extern "C" int kgb_blas_sger(double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || A->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  Params p{};
  p.m = A->sizes[0];
  p.n = A->sizes[1];
  if (x->sizes[0] != p.m || y->sizes[0] != p.n) return KGB_ERR_INVALID;
  p.alpha = static_cast<float>(alpha);
  if (p.m == 0 || p.n == 0 || p.alpha == 0.0f) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  p.x = static_cast<const float*>(x->data);
  p.incx = x->strides[0];
  p.y = static_cast<const float*>(y->data);
  p.incy = y->strides[0];
  p.a = static_cast<float*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : p.m;
  hipStream_t s = static_cast<hipStream_t>(stream);
  const bool aligned = (reinterpret_cast<uintptr_t>(p.a) & 15) == 0 && (p.n == 1 || p.lda % 4 == 0);
  const int64_t rows4 = aligned ? p.m / 4 : 0;
  if (rows4 > 0) hipLaunchKernelGGL(sger_vec4, grid_for(rows4, p.n), dim3(kThreads), 0, s, p, rows4);
  if (4 * rows4 < p.m) hipLaunchKernelGGL(sger_scalar, grid_for(p.m - 4 * rows4, p.n), dim3(kThreads), 0, s, p, 4 * rows4);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
