// Shared by the OpenBLAS baselines: a 2-D view as a column-major BLAS operand
// (pointer and leading dimension, strides [1, ld]), with a dense copy when the
// view is not column-major, and cuBLAS's op, fill-mode and diagonal codes as
// CBLAS enums.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kgb_kernel.h"

namespace kgb::cpu_blas {

// CUBLAS_OP_N/T/C (0/1/2) as CBLAS_TRANSPOSE.
inline CBLAS_TRANSPOSE cblas_op(int64_t op) { return op == 0 ? CblasNoTrans : op == 1 ? CblasTrans : CblasConjTrans; }

// CUBLAS_FILL_MODE_LOWER/UPPER (0/1) as CBLAS_UPLO; CUBLAS_DIAG_NON_UNIT/UNIT (0/1) as CBLAS_DIAG.
inline CBLAS_UPLO cblas_fill(int64_t uplo) { return uplo == 0 ? CblasLower : CblasUpper; }
inline CBLAS_DIAG cblas_diag(int64_t diag) { return diag == 0 ? CblasNonUnit : CblasUnit; }

template <class T>
struct ColMajor {
  T* data = nullptr;
  int64_t ld = 1;
  std::vector<T> copy;  // non-empty when the view was copied
};

// `T` is the element type (float, double, or a two-float/two-double struct
// for complex data). `need_values`: copy the values when a copy is needed.
template <class T>
ColMajor<T> as_col_major(const kgb_tensor* t, bool need_values) {
  ColMajor<T> r;
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  T* base = static_cast<T*>(t->data);
  if (t->strides[0] == 1 || rows <= 1) {
    r.data = base;
    // ld is irrelevant for a single column but BLAS still wants ld >= max(1, rows).
    r.ld = cols <= 1 ? std::max<int64_t>(1, rows) : t->strides[1];
    if (r.ld >= std::max<int64_t>(1, rows)) return r;
  }
  r.ld = std::max<int64_t>(1, rows);
  r.copy.assign(static_cast<size_t>(r.ld * std::max<int64_t>(1, cols)), T{});
  if (need_values)
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < rows; ++i) r.copy[static_cast<size_t>(i + j * r.ld)] = base[i * t->strides[0] + j * t->strides[1]];
  r.data = r.copy.data();
  return r;
}

// Writes a copied output back into its view.
template <class T>
void copy_back(const ColMajor<T>& c, kgb_tensor* t) {
  if (c.copy.empty()) return;
  T* base = static_cast<T*>(t->data);
  for (int64_t j = 0; j < t->sizes[1]; ++j)
    for (int64_t i = 0; i < t->sizes[0]; ++i) base[i * t->strides[0] + j * t->strides[1]] = c.copy[static_cast<size_t>(i + j * c.ld)];
}

}  // namespace kgb::cpu_blas
