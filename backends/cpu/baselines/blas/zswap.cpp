// Baseline for blas/zswap: OpenBLAS cblas_zswap with the views' signed strides
// as the increments. Also the CBLAS oracle of the reference's cross-check.
#include <complex>

#include "kgb_baseline.h"
#include "kgb_entries/blas/zswap.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;
using c128 = std::complex<double>;

int zswap_openblas(kgb_tensor* x, kgb_tensor* y, kgb_stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->sizes[0] == 0) return KGB_OK;
  cblas_zswap(blas_n(x), blas_pointer<c128>(x), blas_inc(x), blas_pointer<c128>(y), blas_inc(y));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_zswap, "openblas", zswap_openblas);
