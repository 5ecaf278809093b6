// Baseline for blas/ccopy: OpenBLAS cblas_ccopy (c64 elements) with the views' signed strides
// as the increments. Also the CBLAS oracle of the reference's cross-check.
#include <complex>

#include "kgb_baseline.h"
#include "kgb_entries/blas/ccopy.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int ccopy_openblas(const kgb_tensor* x, kgb_tensor* y, kgb_stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  cblas_ccopy(blas_n(x), blas_pointer<const std::complex<float>>(x), blas_inc(x), blas_pointer<std::complex<float>>(y), blas_inc(y));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_ccopy, "openblas", ccopy_openblas);
