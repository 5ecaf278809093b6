// Baseline for blas/strsm: OpenBLAS cblas_strsm, column-major, side, fill
// mode, op and diagonal as CBLAS enums (CUBLAS_OP_C is the transpose of a real
// matrix). Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/strsm.h"

namespace {

using namespace kgb::cpu_blas;

int strsm_openblas(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor* a, kgb_tensor* b, kgb_stream) {
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t m = b->sizes[0], n = b->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  auto ca = as_col_major<float>(a, true), cb = as_col_major<float>(b, true);
  cblas_strsm(CblasColMajor, side ? CblasRight : CblasLeft, uplo ? CblasUpper : CblasLower, trans ? CblasTrans : CblasNoTrans,
              diag ? CblasUnit : CblasNonUnit, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<float>(alpha),
              ca.data, static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld));
  copy_back(cb, b);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_strsm, "openblas", strsm_openblas);
