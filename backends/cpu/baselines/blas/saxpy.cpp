// Baseline for blas/saxpy: OpenBLAS cblas_saxpy with the increments taken
// from the views' strides (every layout of the task is a BLAS increment).
#include <cblas.h>

#include <cstdint>

#include "kgb_baseline.h"
#include "kgb_entries/blas/saxpy.h"

namespace {

int saxpy_openblas(double alpha_d, const kgb_tensor* x, kgb_tensor* y, kgb_stream) {
  const float alpha = static_cast<float>(alpha_d);
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = x->sizes[0];
  if (n == 0) return KGB_OK;
  // A negative increment walks down from data: CBLAS wants the lowest address.
  const float* xp = static_cast<const float*>(x->data) + (x->strides[0] < 0 ? (n - 1) * x->strides[0] : 0);
  float* yp = static_cast<float*>(y->data) + (y->strides[0] < 0 ? (n - 1) * y->strides[0] : 0);
  cblas_saxpy(static_cast<blasint>(n), alpha, xp, static_cast<blasint>(x->strides[0]), yp, static_cast<blasint>(y->strides[0]));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_saxpy, "openblas", saxpy_openblas);
