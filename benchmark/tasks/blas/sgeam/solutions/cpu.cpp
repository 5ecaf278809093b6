// blas/sgeam on the CPU: C = alpha * op(A) + beta * op(B), column-major.
//
// Memory-bound: the work is a streaming pass over C in 64 x 64 tiles spread
// over OpenMP threads. An operand under CUBLAS_OP_T/C is first transposed
// tile by tile into a small L1 buffer (reading the stored matrix along its
// contiguous columns), so the combine loop always walks C, A and B with unit
// stride and vectorises. A scale of 0 skips its operand entirely (BLAS: never
// read). In place (C == A, transa == N) every element is read and written at
// the same position by the same iteration, so the tiles stay independent.
#include <stdint.h>

#include <algorithm>

#include "kgb_kernel.h"

namespace {

constexpr int64_t T = 64;  // tile edge

struct Operand {
  const float* data;
  int64_t ld;
  bool transposed;
  float scale;
};

// Pointer to column jj of op(X)'s tile at (i0, j0): the stored column for a
// non-transposed operand, the tile transposed into `buf` otherwise.
const float* tile_column(const Operand& x, const float* buf, int64_t i0, int64_t j0, int64_t jj) {
  return x.transposed ? buf + jj * T : x.data + (j0 + jj) * x.ld + i0;
}

void transpose_tile(const Operand& x, int64_t i0, int64_t j0, int64_t mt, int64_t nt, float* buf) {
  // op(X)(i, j) = X(j, i) = data[j + i * ld]: read along j (contiguous), write buf[j][i].
  for (int64_t ii = 0; ii < mt; ++ii) {
    const float* src = x.data + (i0 + ii) * x.ld + j0;
    for (int64_t jj = 0; jj < nt; ++jj) buf[jj * T + ii] = src[jj];
  }
}

void geam_tiles(int64_t m, int64_t n, Operand a, Operand b, float* c, int64_t ldc) {
  const int64_t mt_count = (m + T - 1) / T, nt_count = (n + T - 1) / T;
  const bool use_a = a.scale != 0.0f, use_b = b.scale != 0.0f;
#pragma omp parallel
  {
    alignas(64) float abuf[T * T];
    alignas(64) float bbuf[T * T];
#pragma omp for collapse(2) schedule(static)
    for (int64_t tj = 0; tj < nt_count; ++tj)
      for (int64_t ti = 0; ti < mt_count; ++ti) {
        const int64_t i0 = ti * T, j0 = tj * T, mt = std::min(T, m - i0), nt = std::min(T, n - j0);
        if (use_a && a.transposed) transpose_tile(a, i0, j0, mt, nt, abuf);
        if (use_b && b.transposed) transpose_tile(b, i0, j0, mt, nt, bbuf);
        for (int64_t jj = 0; jj < nt; ++jj) {
          float* cc = c + (j0 + jj) * ldc + i0;
          const float* ac = use_a ? tile_column(a, abuf, i0, j0, jj) : nullptr;
          const float* bc = use_b ? tile_column(b, bbuf, i0, j0, jj) : nullptr;
          const float sa = a.scale, sb = b.scale;
          if (use_a && use_b) {
#pragma omp simd
            for (int64_t ii = 0; ii < mt; ++ii) cc[ii] = sa * ac[ii] + sb * bc[ii];
          } else if (use_a) {
#pragma omp simd
            for (int64_t ii = 0; ii < mt; ++ii) cc[ii] = sa * ac[ii];
          } else if (use_b) {
#pragma omp simd
            for (int64_t ii = 0; ii < mt; ++ii) cc[ii] = sb * bc[ii];
          } else {
            for (int64_t ii = 0; ii < mt; ++ii) cc[ii] = 0.0f;
          }
        }
      }
  }
}

// Any strides (not a BLAS layout): element by element.
void geam_strided(int64_t m, int64_t n, const kgb_tensor* A, bool ta, float alpha, const kgb_tensor* B, bool tb, float beta,
                  kgb_tensor* C) {
  const float* a = static_cast<const float*>(A->data);
  const float* b = static_cast<const float*>(B->data);
  float* c = static_cast<float*>(C->data);
  const int64_t ai = ta ? A->strides[1] : A->strides[0], aj = ta ? A->strides[0] : A->strides[1];
  const int64_t bi = tb ? B->strides[1] : B->strides[0], bj = tb ? B->strides[0] : B->strides[1];
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float r = 0.0f;
      if (alpha != 0.0f) r = alpha * a[i * ai + j * aj];
      if (beta != 0.0f) r += beta * b[i * bi + j * bj];
      c[i * C->strides[0] + j * C->strides[1]] = r;
    }
}

// ld of a column-major view (strides [1, ld]); 0 when the view is not one.
int64_t column_major_ld(const kgb_tensor* t) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  if (cols <= 1) return std::max<int64_t>(1, rows);
  if (t->strides[0] != 1 && rows > 1) return 0;
  return t->strides[1] >= rows ? t->strides[1] : 0;
}

}  // namespace

extern "C" int kgb_blas_sgeam(int transa, int transb, double alpha, const kgb_tensor* A, double beta, const kgb_tensor* B,
                              kgb_tensor* C, kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const int64_t m = C->sizes[0], n = C->sizes[1];
  if ((ta ? A->sizes[1] : A->sizes[0]) != m || (ta ? A->sizes[0] : A->sizes[1]) != n ||
      (tb ? B->sizes[1] : B->sizes[0]) != m || (tb ? B->sizes[0] : B->sizes[1]) != n)
    return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
  const int64_t lda = column_major_ld(A), ldb = column_major_ld(B), ldc = column_major_ld(C);
  if (lda == 0 || ldb == 0 || ldc == 0) {
    geam_strided(m, n, A, ta, fa, B, tb, fb, C);
    return KGB_OK;
  }
  geam_tiles(m, n, Operand{static_cast<const float*>(A->data), lda, ta, fa},
             Operand{static_cast<const float*>(B->data), ldb, tb, fb}, static_cast<float*>(C->data), ldc);
  return KGB_OK;
}
