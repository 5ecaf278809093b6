// Baseline for blas/cgemv (emitted by scripts/taskgen/gemv.py): OpenBLAS,
// one cblas_cgemv call, column-major, the views' signed strides as the increments
// (gemv.h). Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "gemv.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/cgemv.h"

namespace {

using namespace kgb::cpu_blas;

int cgemv_openblas(int trans, kgb_complex alpha_in, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta_in, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const c64 alpha{static_cast<float>(alpha_in.re), static_cast<float>(alpha_in.im)};
  const c64 beta{static_cast<float>(beta_in.re), static_cast<float>(beta_in.im)};
  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  gemv(s, alpha, static_cast<const c64*>(A->data), static_cast<const c64*>(x->data), beta, static_cast<c64*>(y->data));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_cgemv, "openblas", cgemv_openblas);
