// blas/zgerc on CUDA (sm_90): A(i, j) += alpha * x[i] * conj(y[j]), double complex
// (double2: real, imaginary), column-major A.
//
// Memory bound: A is read and written once. A block of 256 threads owns 256
// consecutive rows of a tile of kCols columns; each thread keeps alpha * x[i]
// in registers and walks the tile's columns, so a warp reads and writes one
// contiguous run of a column per step (coalesced double2 accesses). y[j] is the
// same address for the whole warp (one broadcast load). Increments of either
// sign: data[i * inc] is element i. Column tiles are walked grid-stride so
// any n fits in the grid. alpha == 0 returns before reading x or y (BLAS).
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kCols = 16;  // columns per block tile

struct Params {
  int64_t m, n;
  double2 alpha;
  const double2* x;
  int64_t incx;
  const double2* y;
  int64_t incy;
  double2* a;
  int64_t lda;
};

__global__ void __launch_bounds__(kThreads) zgerc_kernel(Params p) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.m) return;
  const double2 xi = __ldg(p.x + i * p.incx);
  const double2 ax = make_double2(p.alpha.x * xi.x - p.alpha.y * xi.y, p.alpha.x * xi.y + p.alpha.y * xi.x);
  for (int64_t j0 = static_cast<int64_t>(blockIdx.y) * kCols; j0 < p.n; j0 += static_cast<int64_t>(gridDim.y) * kCols) {
    const int64_t j1 = j0 + kCols < p.n ? j0 + kCols : p.n;
#pragma unroll 4
    for (int64_t j = j0; j < j1; ++j) {
      const double2 yj = __ldg(p.y + j * p.incy);
      const double yr = yj.x, yi = -yj.y;
      double2* at = p.a + j * p.lda + i;
      double2 v = *at;
      v.x = fma(ax.x, yr, fma(-ax.y, yi, v.x));
      v.y = fma(ax.x, yi, fma(ax.y, yr, v.y));
      *at = v;
    }
  }
}

}  // namespace

extern "C" int kgb_blas_zgerc(kgb_complex alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || A->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  Params p{};
  p.m = A->sizes[0];
  p.n = A->sizes[1];
  if (x->sizes[0] != p.m || y->sizes[0] != p.n) return KGB_ERR_INVALID;
  p.alpha = make_double2(static_cast<double>(alpha.re), static_cast<double>(alpha.im));
  if (p.m == 0 || p.n == 0 || (p.alpha.x == 0 && p.alpha.y == 0)) return KGB_OK;  // BLAS: x and y not read
  p.x = static_cast<const double2*>(x->data);
  p.incx = x->strides[0];
  p.y = static_cast<const double2*>(y->data);
  p.incy = y->strides[0];
  p.a = static_cast<double2*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : p.m;
  const int64_t by = (p.n + kCols - 1) / kCols;
  const dim3 grid(static_cast<unsigned>((p.m + kThreads - 1) / kThreads), static_cast<unsigned>(by < 65535 ? by : 65535));
  zgerc_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
