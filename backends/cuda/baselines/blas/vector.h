// Shared by the cuBLAS level-1 baselines: a 1-D view as a cuBLAS vector
// argument (lowest address; a negative increment walks it from the far end,
// as in BLAS), and a scoped switch to device pointer mode for the routines
// whose result lands in a one-element device output (dot, asum).
#pragma once

#include <cublas_v2.h>

#include <cstdint>

#include "kgb_kernel.h"

namespace kgb::cuda_blas {

template <class T>
T* blas_pointer(const kgb_tensor* v) {
  const int64_t n = v->sizes[0], inc = v->strides[0];
  T* data = static_cast<T*>(v->data);
  return n > 0 && inc < 0 ? data + (n - 1) * inc : data;
}

inline int blas_n(const kgb_tensor* v) { return static_cast<int>(v->sizes[0]); }
inline int blas_inc(const kgb_tensor* v) { return static_cast<int>(v->strides[0]); }

// The shared handle stays in host pointer mode for every other baseline.
class DevicePointerMode {
 public:
  explicit DevicePointerMode(cublasHandle_t h) : h_(h) { cublasSetPointerMode(h_, CUBLAS_POINTER_MODE_DEVICE); }
  ~DevicePointerMode() { cublasSetPointerMode(h_, CUBLAS_POINTER_MODE_HOST); }
  DevicePointerMode(const DevicePointerMode&) = delete;
  DevicePointerMode& operator=(const DevicePointerMode&) = delete;

 private:
  cublasHandle_t h_;
};

inline int status(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID; }

}  // namespace kgb::cuda_blas
