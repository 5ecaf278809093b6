// Baseline for blas/csymm: OpenBLAS cblas_csymm, column-major, side and fill
// mode as CBLAS enums, alpha and beta as float complex. Also the CBLAS oracle
// of the reference's cross-check.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/csymm.h"

namespace {

using namespace kgb::cpu_blas;

struct c64 {
  float re, im;
};

int csymm_openblas(int side, int uplo, kgb_complex alpha_d, const kgb_tensor* a, const kgb_tensor* b, kgb_complex beta_d,
                   kgb_tensor* c, kgb_stream) {
  if (a->dtype != KGB_C64 || b->dtype != KGB_C64 || c->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const c64 alpha{static_cast<float>(alpha_d.re), static_cast<float>(alpha_d.im)};
  const c64 beta{static_cast<float>(beta_d.re), static_cast<float>(beta_d.im)};
  const int64_t m = c->sizes[0], n = c->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const bool read_c = beta.re != 0.0f || beta.im != 0.0f;
  auto ca = as_col_major<c64>(a, true), cb = as_col_major<c64>(b, true), cc = as_col_major<c64>(c, read_c);
  cblas_csymm(CblasColMajor, side ? CblasRight : CblasLeft, uplo ? CblasUpper : CblasLower, static_cast<blasint>(m),
              static_cast<blasint>(n), &alpha, ca.data, static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld), &beta,
              cc.data, static_cast<blasint>(cc.ld));
  copy_back(cc, c);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_csymm, "openblas", csymm_openblas);
