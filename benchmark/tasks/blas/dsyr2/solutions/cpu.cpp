// blas/dsyr2 on the CPU: A(i, j) += alpha * (x[i] * y[j] + y[i] * x[j]) on
// the `uplo` triangle of a column-major f64 matrix (LOWER = 0: i >= j,
// UPPER = 1: i <= j); the other triangle is neither read nor written.
//
// Memory bound: every element of the triangle is read and written once. x
// and y are packed once into contiguous buffers (any increment, negative
// ones included: data[i * inc] is element i for either sign), so the update
// of column j is A(r0:r1, j) += x(r0:r1) * (alpha * y[j]) + y(r0:r1) *
// (alpha * x[j]) over the column's part of the triangle, a unit-stride loop
// of two multiply-adds per element that the compiler vectorises. Columns
// have triangular lengths, so they are handed to the OpenMP threads
// dynamically in small chunks. alpha == 0 returns before reading x or y.
#include <math.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kParallelMin = 1 << 14;  // elements of the triangle below which one thread is faster

inline void column_update(double* __restrict a, const double* __restrict x, const double* __restrict y, double sy, double sx,
                          int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) a[i] = fma(x[i], sy, fma(y[i], sx, a[i]));
}

const double* contiguous(const double* data, int64_t n, int64_t inc, std::vector<double>& buffer) {
  if (inc == 1) return data;
  buffer.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) buffer[static_cast<size_t>(i)] = data[i * inc];
  return buffer.data();
}

}  // namespace

extern "C" int kgb_blas_dsyr2(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || A->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  const int64_t n = A->sizes[0];
  if (A->sizes[1] != n || x->sizes[0] != n || y->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  const int64_t lda = A->strides[1];
  std::vector<double> xbuf, ybuf;
  const double* xs = contiguous(static_cast<const double*>(x->data), n, x->strides[0], xbuf);
  const double* ys = contiguous(static_cast<const double*>(y->data), n, y->strides[0], ybuf);
  double* ap = static_cast<double*>(A->data);
  const bool lower = uplo == 0;
#pragma omp parallel for schedule(dynamic, 8) if (n * n / 2 >= kParallelMin)
  for (int64_t j = 0; j < n; ++j) {
    const int64_t r0 = lower ? j : 0, r1 = lower ? n : j + 1;  // rows of column j inside the triangle
    column_update(ap + r0 + j * lda, xs + r0, ys + r0, alpha * ys[j], alpha * xs[j], r1 - r0);
  }
  return KGB_OK;
}
