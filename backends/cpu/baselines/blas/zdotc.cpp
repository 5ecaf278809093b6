// Baseline for blas/zdotc: OpenBLAS cblas_zdotc_sub with the views' signed
// strides as the increments, written into the one-element result. Also the
// CBLAS oracle of the reference's cross-check.
#include <complex>

#include "kgb_baseline.h"
#include "kgb_entries/blas/zdotc.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;
using c128 = std::complex<double>;

int zdotc_openblas(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || result->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  c128* out = static_cast<c128*>(result->data);
  *out = c128(0.0, 0.0);
  if (x->sizes[0] > 0) cblas_zdotc_sub(blas_n(x), blas_pointer<const c128>(x), blas_inc(x), blas_pointer<const c128>(y), blas_inc(y), out);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_zdotc, "openblas", zdotc_openblas);
