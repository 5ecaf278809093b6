// blas/cgeru on the CPU: A(i, j) += alpha * x[i] * y[j], float complex
// (interleaved real, imaginary), column-major A.
//
// Memory bound: every element of A is read and written once. x is packed
// once into a contiguous buffer (any increment, negative ones included:
// data[i * inc] is element i for either sign), so each column update is
// A(:, j) += s_j * x with the complex scalar s_j = alpha * y[j], a
// unit-stride loop of four multiply-adds per element that the compiler
// vectorises. The work is split over OpenMP threads in tiles of kRows rows x
// one column, so tall-skinny and short-wide matrices both spread over the
// cores. alpha == 0 returns before reading x or y (BLAS).
#include <math.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kRows = 2048;            // complex rows per tile
constexpr int64_t kParallelMin = 1 << 14;  // elements of A below which one thread is faster

// a and x interleaved (re, im); a(:) += (sr + i si) * x(:).
inline void column_update(float* __restrict a, const float* __restrict x, float sr, float si, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) {
    const float xr = x[2 * i], xi = x[2 * i + 1];
    a[2 * i] = fmaf(sr, xr, fmaf(-si, xi, a[2 * i]));
    a[2 * i + 1] = fmaf(sr, xi, fmaf(si, xr, a[2 * i + 1]));
  }
}

}  // namespace

extern "C" int kgb_blas_cgeru(kgb_complex alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || A->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  const int64_t m = A->sizes[0], n = A->sizes[1];
  if (x->sizes[0] != m || y->sizes[0] != n) return KGB_ERR_INVALID;
  const float ar = static_cast<float>(alpha_d.re), ai = static_cast<float>(alpha_d.im);
  if (m == 0 || n == 0 || (ar == 0 && ai == 0)) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  const int64_t incx = x->strides[0], incy = y->strides[0], lda = A->strides[1];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  float* ap = static_cast<float*>(A->data);

  std::vector<float> packed;
  const float* xs = xp;
  if (incx != 1) {
    packed.resize(static_cast<size_t>(2 * m));
    for (int64_t i = 0; i < m; ++i) {
      packed[static_cast<size_t>(2 * i)] = xp[2 * i * incx];
      packed[static_cast<size_t>(2 * i + 1)] = xp[2 * i * incx + 1];
    }
    xs = packed.data();
  }
  const int64_t row_tiles = (m + kRows - 1) / kRows, tiles = row_tiles * n;
#pragma omp parallel for schedule(static) if (m * n >= kParallelMin)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t j = t / row_tiles, r0 = (t - j * row_tiles) * kRows;
    const int64_t count = m - r0 < kRows ? m - r0 : kRows;
    const float yr = yp[2 * j * incy], yi = yp[2 * j * incy + 1];
    column_update(ap + 2 * (r0 + j * lda), xs + 2 * r0, ar * yr - ai * yi, ar * yi + ai * yr, count);
  }
  return KGB_OK;
}
