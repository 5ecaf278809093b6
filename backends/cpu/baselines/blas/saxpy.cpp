// Baseline for blas/saxpy: OpenBLAS cblas_saxpy with the views' signed strides
// as the increments. Also the CBLAS oracle of the reference's cross-check.
#include "kgb_baseline.h"
#include "kgb_entries/blas/saxpy.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int saxpy_openblas(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  cblas_saxpy(blas_n(x), static_cast<float>(alpha), blas_pointer<const float>(x), blas_inc(x), blas_pointer<float>(y), blas_inc(y));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_saxpy, "openblas", saxpy_openblas);
