// Baseline for blas/daxpy: OpenBLAS cblas_daxpy with the views' signed strides
// as the increments. Also the CBLAS oracle of the reference's cross-check.
#include "kgb_baseline.h"
#include "kgb_entries/blas/daxpy.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int daxpy_openblas(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  cblas_daxpy(blas_n(x), alpha, blas_pointer<const double>(x), blas_inc(x), blas_pointer<double>(y), blas_inc(y));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_daxpy, "openblas", daxpy_openblas);
