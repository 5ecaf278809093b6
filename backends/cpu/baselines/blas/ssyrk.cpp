// Baseline for blas/ssyrk: OpenBLAS cblas_ssyrk, column-major, fill mode and
// op as CBLAS enums (CUBLAS_OP_C is the transpose of a real matrix). Also
// the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/ssyrk.h"

namespace {

using namespace kgb::cpu_blas;

int ssyrk_openblas(int uplo, int trans, double alpha, const kgb_tensor* a, double beta, kgb_tensor* c, kgb_stream) {
  if (a->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = c->sizes[0], k = trans ? a->sizes[0] : a->sizes[1];
  if (n == 0) return KGB_OK;
  // The whole C is copied when a copy is needed: the other triangle must come back unchanged.
  auto ca = as_col_major<float>(a, true), cc = as_col_major<float>(c, true);
  cblas_ssyrk(CblasColMajor, uplo ? CblasUpper : CblasLower, trans ? CblasTrans : CblasNoTrans, static_cast<blasint>(n),
              static_cast<blasint>(k), static_cast<float>(alpha), ca.data, static_cast<blasint>(ca.ld),
              static_cast<float>(beta), cc.data, static_cast<blasint>(cc.ld));
  copy_back(cc, c);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_ssyrk, "openblas", ssyrk_openblas);
