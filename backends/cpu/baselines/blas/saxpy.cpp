// Baseline for blas/saxpy: OpenBLAS cblas_saxpy with the increments taken
// from the views' strides (every layout of the task is a BLAS increment).
#include <cblas.h>

#include <cstdint>

#include "kgb_baseline.h"

namespace {

int saxpy_openblas(kgb_tensor* const* tensors, const kgb_scalar_value* scalars, kgb_stream) {
  const float alpha = static_cast<float>(scalars[0].f);
  const kgb_tensor* x = tensors[1];
  kgb_tensor* y = tensors[2];
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = x->sizes[0];
  if (n == 0) return KGB_OK;
  cblas_saxpy(static_cast<blasint>(n), alpha, static_cast<const float*>(x->data), static_cast<blasint>(x->strides[0]),
              static_cast<float*>(y->data), static_cast<blasint>(y->strides[0]));
  return KGB_OK;
}

}  // namespace

KGB_REGISTER_BASELINE("blas/saxpy", "openblas", saxpy_openblas);
