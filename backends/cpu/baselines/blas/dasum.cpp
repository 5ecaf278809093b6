// Baseline for blas/dasum: OpenBLAS cblas_dasum (0 for incx <= 0) written into
// the one-element result. Also the CBLAS oracle of the reference's cross-check.
#include "kgb_baseline.h"
#include "kgb_entries/blas/dasum.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int dasum_openblas(const kgb_tensor* x, kgb_tensor* result, kgb_stream) {
  if (x->dtype != KGB_F64 || result->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  *static_cast<double*>(result->data) = x->sizes[0] == 0 ? 0.0 : cblas_dasum(blas_n(x), blas_pointer<const double>(x), blas_inc(x));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_dasum, "openblas", dasum_openblas);
