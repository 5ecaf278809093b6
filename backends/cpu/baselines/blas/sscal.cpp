// Baseline for blas/sscal: OpenBLAS cblas_sscal with the view's signed stride
// as the increment (BLAS does nothing for incx <= 0). Also the CBLAS oracle of
// the reference's cross-check.
#include "kgb_baseline.h"
#include "kgb_entries/blas/sscal.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int sscal_openblas(double alpha, kgb_tensor* x, kgb_stream) {
  if (x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  cblas_sscal(blas_n(x), static_cast<float>(alpha), blas_pointer<float>(x), blas_inc(x));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sscal, "openblas", sscal_openblas);
