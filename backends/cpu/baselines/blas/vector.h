// Shared by the OpenBLAS level-1 baselines: a 1-D view as a BLAS vector
// argument. The view's data is logical element 0 and its stride the signed
// increment; BLAS wants the lowest address the vector touches and walks a
// negative increment from the far end, so the pointer moves down by
// (n - 1) * |inc| when inc < 0.
#pragma once

#include <cblas.h>

#include <cstdint>

#include "kgb_kernel.h"

namespace kgb::cpu_blas {

template <class T>
T* blas_pointer(const kgb_tensor* v) {
  const int64_t n = v->sizes[0], inc = v->strides[0];
  T* data = static_cast<T*>(v->data);
  return n > 0 && inc < 0 ? data + (n - 1) * inc : data;
}

inline blasint blas_n(const kgb_tensor* v) { return static_cast<blasint>(v->sizes[0]); }
inline blasint blas_inc(const kgb_tensor* v) { return static_cast<blasint>(v->strides[0]); }

}  // namespace kgb::cpu_blas
