// blas/saxpy that reads one element past the end of x (the last element
// adds x[n] instead of x[n-1]); the value is usually whatever lies behind
// the tensor, so the result is only sometimes wrong. The sanitizer build must
// report the read with this file's line of the access.
#include "kgb_kernel.h"

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  const int64_t n = x->sizes[0];
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  const float a = static_cast<float>(alpha);
  if (a == 0.0f) return KGB_OK;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = (i == n - 1 && incx == 1) ? i + 1 : i * incx;
    yp[i * incy] += a * xp[j];  // KGB-PLANTED-OOB
  }
  return KGB_OK;
}
