// blas/sger on the CPU: A(i, j) += alpha * x[i] * y[j], f32, column-major A.
//
// Memory bound: every element of A is read and written once. x is packed
// once into a contiguous buffer (any increment, negative ones included:
// data[i * inc] is element i for either sign), so each column update is
// A(:, j) += (alpha * y[j]) * x, a unit-stride multiply-add loop the compiler
// vectorises. The work is split over OpenMP threads in tiles of kRows rows x
// one column, so tall-skinny and short-wide matrices both spread over the
// cores; each tile streams one contiguous piece of a column. alpha == 0
// returns before reading x or y (BLAS).
#include <math.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kRows = 4096;            // rows per tile (16 KiB of a column)
constexpr int64_t kParallelMin = 1 << 15;  // elements of A below which one thread is faster

inline void column_update(float* __restrict a, const float* __restrict x, float s, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) a[i] = fmaf(s, x[i], a[i]);
}

}  // namespace

extern "C" int kgb_blas_sger(double alpha_d, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || A->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2) return KGB_ERR_INVALID;
  const int64_t m = A->sizes[0], n = A->sizes[1];
  if (x->sizes[0] != m || y->sizes[0] != n) return KGB_ERR_INVALID;
  const float alpha = static_cast<float>(alpha_d);
  if (m == 0 || n == 0 || alpha == 0.0f) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  const int64_t incx = x->strides[0], incy = y->strides[0], lda = A->strides[1];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  float* ap = static_cast<float*>(A->data);

  std::vector<float> packed;
  const float* xs = xp;
  if (incx != 1) {
    packed.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) packed[static_cast<size_t>(i)] = xp[i * incx];
    xs = packed.data();
  }
  const int64_t row_tiles = (m + kRows - 1) / kRows, tiles = row_tiles * n;
#pragma omp parallel for schedule(static) if (m * n >= kParallelMin)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t j = t / row_tiles, r0 = (t - j * row_tiles) * kRows;
    const int64_t count = m - r0 < kRows ? m - r0 : kRows;
    column_update(ap + r0 + j * lda, xs + r0, alpha * yp[j * incy], count);
  }
  return KGB_OK;
}
