// blas/sdgmm on the CPU: C = A * diag(x) (RIGHT) or diag(x) * A (LEFT),
// column-major.
//
// A streaming, memory-bound pass over C's columns, spread over OpenMP
// threads. For LEFT a strided or reversed x (incx != 1) is first gathered
// into a contiguous copy, so every inner loop is a unit-stride multiply the
// compiler vectorises; for RIGHT each column is scaled by one value. In place
// (C == A) each element is read and written at the same position.
#include <stdint.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

int64_t column_major_ld(const kgb_tensor* t) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  if (cols <= 1) return std::max<int64_t>(1, rows);
  if (t->strides[0] != 1 && rows > 1) return 0;
  return t->strides[1] >= rows ? t->strides[1] : 0;
}

}  // namespace

extern "C" int kgb_blas_sdgmm(int mode, const kgb_tensor* A, const kgb_tensor* x, kgb_tensor* C, kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || x->rank != 1 || (mode != 0 && mode != 1)) return KGB_ERR_INVALID;
  const int64_t m = C->sizes[0], n = C->sizes[1];
  const bool right = mode == 1;
  if (A->sizes[0] != m || A->sizes[1] != n || x->sizes[0] != (right ? n : m)) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  const float* a = static_cast<const float*>(A->data);
  const float* xp = static_cast<const float*>(x->data);
  float* c = static_cast<float*>(C->data);
  const int64_t incx = x->strides[0];
  const int64_t lda = column_major_ld(A), ldc = column_major_ld(C);

  if (lda == 0 || ldc == 0) {  // not a BLAS layout: element by element
    const int64_t as0 = A->strides[0], as1 = A->strides[1], cs0 = C->strides[0], cs1 = C->strides[1];
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) c[i * cs0 + j * cs1] = a[i * as0 + j * as1] * xp[(right ? j : i) * incx];
    return KGB_OK;
  }

  if (right) {
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; ++j) {
      const float s = xp[j * incx];
      const float* acol = a + j * lda;
      float* ccol = c + j * ldc;
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) ccol[i] = acol[i] * s;
    }
    return KGB_OK;
  }

  std::vector<float> gathered;
  const float* xv = xp;
  if (incx != 1) {
    gathered.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) gathered[static_cast<size_t>(i)] = xp[i * incx];
    xv = gathered.data();
  }
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < n; ++j) {
    const float* acol = a + j * lda;
    float* ccol = c + j * ldc;
#pragma omp simd
    for (int64_t i = 0; i < m; ++i) ccol[i] = xv[i] * acol[i];
  }
  return KGB_OK;
}
