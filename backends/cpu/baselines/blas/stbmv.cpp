// Baseline for blas/stbmv: OpenBLAS cblas_stbmv, (k + 1) x n column-major band
// with its leading dimension, cuBLAS's fill/op/diag codes as CBLAS enums, the
// view's signed stride as the increment. Also the CBLAS oracle of the
// reference's cross-check.
#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/stbmv.h"
#include "vector.h"

namespace {

using namespace kgb::cpu_blas;

int stbmv_openblas(int uplo, int trans, int diag, const kgb_tensor* a, kgb_tensor* x, kgb_stream) {
  if (a->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t k = a->sizes[0] - 1, n = a->sizes[1];
  if (n == 0) return KGB_OK;
  auto ca = as_col_major<float>(a, true);
  cblas_stbmv(CblasColMajor, cblas_fill(uplo), cblas_op(trans), cblas_diag(diag), static_cast<blasint>(n), static_cast<blasint>(k),
              ca.data, static_cast<blasint>(ca.ld), blas_pointer<float>(x), blas_inc(x));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_stbmv, "openblas", stbmv_openblas);
