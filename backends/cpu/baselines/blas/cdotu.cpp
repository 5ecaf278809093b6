// Baseline for blas/cdotu: OpenBLAS cblas_cdotu_sub with the views' signed
// strides as the increments, written into the one-element result. Also the
// CBLAS oracle of the reference's cross-check.
#include <complex>

#include "kgb_baseline.h"
#include "kgb_entries/blas/cdotu.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;
using c64 = std::complex<float>;

int cdotu_openblas(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || result->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  c64* out = static_cast<c64*>(result->data);
  *out = c64(0.0f, 0.0f);
  if (x->sizes[0] > 0) cblas_cdotu_sub(blas_n(x), blas_pointer<const c64>(x), blas_inc(x), blas_pointer<const c64>(y), blas_inc(y), out);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_cdotu, "openblas", cdotu_openblas);
