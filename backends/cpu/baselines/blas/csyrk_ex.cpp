// Baseline for blas/csyrk_ex: OpenBLAS cblas_csyrk (complex symmetric rank-k
// update, no conjugation; A and C complex float as cublasCsyrkEx with
// CUDA_C_32F takes them), column-major. Also the CBLAS oracle of the
// reference's cross-check.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/csyrk_ex.h"

namespace {

using namespace kgb::cpu_blas;

struct c64 {
  float re, im;
};

int csyrk_ex_openblas(int uplo, int trans, kgb_complex alpha_d, const kgb_tensor* a, kgb_complex beta_d, kgb_tensor* c,
                      kgb_stream) {
  if (a->dtype != KGB_C64 || c->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (trans != 0 && trans != 1) return KGB_ERR_INVALID;
  const c64 alpha{static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im)};
  const c64 beta{static_cast<float>(beta_d.re), static_cast<float>(beta_d.im)};
  const int64_t n = c->sizes[0], k = trans ? a->sizes[0] : a->sizes[1];
  if (n == 0) return KGB_OK;
  // The whole C is copied when a copy is needed: the other triangle must come back unchanged.
  auto ca = as_col_major<c64>(a, true), cc = as_col_major<c64>(c, true);
  cblas_csyrk(CblasColMajor, uplo ? CblasUpper : CblasLower, trans ? CblasTrans : CblasNoTrans, static_cast<blasint>(n),
              static_cast<blasint>(k), &alpha, ca.data, static_cast<blasint>(ca.ld), &beta, cc.data, static_cast<blasint>(cc.ld));
  copy_back(cc, c);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_csyrk_ex, "openblas", csyrk_ex_openblas);
