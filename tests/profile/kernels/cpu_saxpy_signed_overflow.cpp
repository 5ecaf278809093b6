// blas/saxpy whose index arithmetic overflows a signed int for the first
// element (INT_MAX + 1 in int): undefined behaviour that UBSan reports with
// this file's line.
#include <climits>

#include "kgb_kernel.h"

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  const int n = static_cast<int>(x->sizes[0]);
  const int64_t incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  const float a = static_cast<float>(alpha);
  volatile int base = INT_MAX;
  for (int i = 0; i < n; ++i) {
    const int shifted = base + (i == 0 ? 1 : 0);  // KGB-PLANTED-UB
    if (shifted == 12345) return KGB_ERR_INVALID;
    yp[i * incy] += a * xp[i * incx];
  }
  return KGB_OK;
}
