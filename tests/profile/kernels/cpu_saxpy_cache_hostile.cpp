// blas/saxpy, correct but cache-hostile: the elements are visited in a
// stride of 16 floats (one cache line), column after column, so every access
// of a large vector touches a line that was evicted since its last use.
#include "kgb_kernel.h"

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  const int64_t n = x->sizes[0];
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  const float a = static_cast<float>(alpha);
  if (n == 0 || a == 0.0f) return KGB_OK;
  constexpr int64_t kStride = 16;
  for (int64_t start = 0; start < kStride; ++start)
    for (int64_t i = start; i < n; i += kStride) yp[i * incy] = a * xp[i * incx] + yp[i * incy];  // KGB-STRIDED
  return KGB_OK;
}
