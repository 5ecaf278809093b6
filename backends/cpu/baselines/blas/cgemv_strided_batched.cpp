// Baseline for blas/cgemv_strided_batched (emitted by scripts/taskgen/gemv.py): OpenBLAS,
// a loop of cblas_cgemv calls, one per item at its strides (CBLAS has no
// batched GEMV): labelled "openblas loop", column-major, the views' signed strides as the increments
// (gemv.h). Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "gemv.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/cgemv_strided_batched.h"

namespace {

using namespace kgb::cpu_blas;

int cgemv_strided_batched_openblas(int trans, kgb_complex alpha_in, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta_in, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  const int64_t batch = A->sizes[2];
  const c64 alpha{static_cast<float>(alpha_in.re), static_cast<float>(alpha_in.im)};
  const c64 beta{static_cast<float>(beta_in.re), static_cast<float>(beta_in.im)};
  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  for (int64_t b = 0; b < batch; ++b)
    gemv(s, alpha, static_cast<const c64*>(A->data) + b * A->strides[2], static_cast<const c64*>(x->data) + b * x->strides[1],
         beta, static_cast<c64*>(y->data) + b * y->strides[1]);
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_cgemv_strided_batched, "openblas loop", cgemv_strided_batched_openblas);
