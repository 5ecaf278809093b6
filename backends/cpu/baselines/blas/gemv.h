// Shared by the OpenBLAS GEMV baselines (blas/*gemv*): one column-major
// y := alpha * op(A) x + beta * y through CBLAS, given the matrix's element
// (0, 0) with its leading dimension and the vectors' element 0 with their
// signed increments. BLAS wants the lowest address a vector touches and walks
// a negative increment from the far end, so the pointer moves down by
// (len - 1) * |inc| when inc < 0. m == 0 or n == 0 calls nothing (BLAS's quick
// return leaves y as it is).
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cstdint>

#include "col_major.h"
#include "kgb_kernel.h"

namespace kgb::cpu_blas {

struct c64 {
  float re, im;
};
struct c128 {
  double re, im;
};

// The leading dimension of a column-major view (sizes [m, n, ...], strides
// [1, ld, ...]) as BLAS takes it, or 0 when the view is not column-major.
inline int64_t gemv_ld(const kgb_tensor* a) {
  const int64_t rows = a->sizes[0], cols = a->sizes[1], least = std::max<int64_t>(1, rows);
  if (cols <= 1) return least;
  if (a->strides[0] != 1 && rows > 1) return 0;
  return a->strides[1] >= least ? a->strides[1] : 0;
}

template <class T>
T* lowest(T* element0, int64_t len, int64_t inc) {
  return len > 0 && inc < 0 ? element0 + (len - 1) * inc : element0;
}

struct GemvShape {
  int trans;
  int64_t m, n, lda, incx, incy;
  int64_t len_x() const { return trans == 0 ? n : m; }
  int64_t len_y() const { return trans == 0 ? m : n; }
};

inline void gemv(const GemvShape& s, float alpha, const float* a, const float* x, float beta, float* y) {
  if (s.m == 0 || s.n == 0) return;
  cblas_sgemv(CblasColMajor, cblas_op(s.trans), static_cast<blasint>(s.m), static_cast<blasint>(s.n), alpha, a,
              static_cast<blasint>(s.lda), lowest(x, s.len_x(), s.incx), static_cast<blasint>(s.incx), beta,
              lowest(y, s.len_y(), s.incy), static_cast<blasint>(s.incy));
}

inline void gemv(const GemvShape& s, double alpha, const double* a, const double* x, double beta, double* y) {
  if (s.m == 0 || s.n == 0) return;
  cblas_dgemv(CblasColMajor, cblas_op(s.trans), static_cast<blasint>(s.m), static_cast<blasint>(s.n), alpha, a,
              static_cast<blasint>(s.lda), lowest(x, s.len_x(), s.incx), static_cast<blasint>(s.incx), beta,
              lowest(y, s.len_y(), s.incy), static_cast<blasint>(s.incy));
}

inline void gemv(const GemvShape& s, c64 alpha, const c64* a, const c64* x, c64 beta, c64* y) {
  if (s.m == 0 || s.n == 0) return;
  cblas_cgemv(CblasColMajor, cblas_op(s.trans), static_cast<blasint>(s.m), static_cast<blasint>(s.n), &alpha, a,
              static_cast<blasint>(s.lda), lowest(x, s.len_x(), s.incx), static_cast<blasint>(s.incx), &beta,
              lowest(y, s.len_y(), s.incy), static_cast<blasint>(s.incy));
}

inline void gemv(const GemvShape& s, c128 alpha, const c128* a, const c128* x, c128 beta, c128* y) {
  if (s.m == 0 || s.n == 0) return;
  cblas_zgemv(CblasColMajor, cblas_op(s.trans), static_cast<blasint>(s.m), static_cast<blasint>(s.n), &alpha, a,
              static_cast<blasint>(s.lda), lowest(x, s.len_x(), s.incx), static_cast<blasint>(s.incx), &beta,
              lowest(y, s.len_y(), s.incy), static_cast<blasint>(s.incy));
}

}  // namespace kgb::cpu_blas
