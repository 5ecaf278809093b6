// Baseline for blas/dsyr2: OpenBLAS cblas_dsyr2, column-major A with its
// leading dimension, CUBLAS_FILL_MODE_LOWER/UPPER (0/1) as CblasLower/Upper,
// the views' signed strides as the increments. Also the CBLAS oracle of the
// reference's cross-check.
#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/dsyr2.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int dsyr2_openblas(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || a->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  const int64_t n = a->sizes[0];
  if (n == 0) return KGB_OK;
  auto ca = as_col_major<double>(a, true);
  cblas_dsyr2(CblasColMajor, cblas_fill(uplo), static_cast<blasint>(n), alpha, blas_pointer<const double>(x), blas_inc(x),
              blas_pointer<const double>(y), blas_inc(y), ca.data, static_cast<blasint>(ca.ld));
  copy_back(ca, a);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_dsyr2, "openblas", dsyr2_openblas);
