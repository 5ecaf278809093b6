// Baseline for blas/sdot: OpenBLAS cblas_sdot with the views' signed strides
// as the increments, written into the one-element result. Also the CBLAS
// oracle of the reference's cross-check.
#include "kgb_baseline.h"
#include "kgb_entries/blas/sdot.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int sdot_openblas(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || result->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  *static_cast<float*>(result->data) =
      x->sizes[0] == 0 ? 0.0f : cblas_sdot(blas_n(x), blas_pointer<const float>(x), blas_inc(x), blas_pointer<const float>(y), blas_inc(y));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sdot, "openblas", sdot_openblas);
