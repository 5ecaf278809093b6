// Baseline for blas/dsbmv: OpenBLAS cblas_dsbmv, (k + 1) x n column-major band
// with its leading dimension, CUBLAS_FILL_MODE_LOWER/UPPER as CblasLower/Upper,
// the views' signed strides as the increments. Also the CBLAS oracle of the
// reference's cross-check.
#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/dsbmv.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int dsbmv_openblas(int uplo, double alpha, const kgb_tensor* a, const kgb_tensor* x, double beta, kgb_tensor* y, kgb_stream) {
  if (a->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const int64_t k = a->sizes[0] - 1, n = a->sizes[1];
  if (n == 0) return KGB_OK;
  auto ca = as_col_major<double>(a, true);
  cblas_dsbmv(CblasColMajor, cblas_fill(uplo), static_cast<blasint>(n), static_cast<blasint>(k), alpha, ca.data,
              static_cast<blasint>(ca.ld), blas_pointer<const double>(x), blas_inc(x), beta, blas_pointer<double>(y), blas_inc(y));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_dsbmv, "openblas", dsbmv_openblas);
