// Baseline for blas/sger: OpenBLAS cblas_sger, column-major A with its
// leading dimension, the views' signed strides as the increments. Also the
// CBLAS oracle of the reference's cross-check.
#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/sger.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int sger_openblas(double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || a->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = a->sizes[0], n = a->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  auto ca = as_col_major<float>(a, true);
  cblas_sger(CblasColMajor, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<float>(alpha), blas_pointer<const float>(x),
             blas_inc(x), blas_pointer<const float>(y), blas_inc(y), ca.data, static_cast<blasint>(ca.ld));
  copy_back(ca, a);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sger, "openblas", sger_openblas);
