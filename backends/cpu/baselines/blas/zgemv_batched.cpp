// Baseline for blas/zgemv_batched (emitted by scripts/taskgen/gemv.py): OpenBLAS,
// a loop of cblas_zgemv calls, one per item of the pointer arrays through the
// item's own data pointer (CBLAS has no batched GEMV): labelled "openblas loop", column-major, the views' signed strides as the increments
// (gemv.h). Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "gemv.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/zgemv_batched.h"

namespace {

using namespace kgb::cpu_blas;

int zgemv_batched_openblas(int trans, kgb_complex alpha_in, const kgb_tensor_list* Aarray, const kgb_tensor_list* xarray, kgb_complex beta_in, kgb_tensor_list* yarray, kgb_stream stream) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const int64_t batch = yarray->count;
  if (Aarray->count != batch || xarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* x = xarray->items[0];
  const kgb_tensor* y = yarray->items[0];
  if (A->dtype != KGB_C128 || x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  const c128 alpha{static_cast<double>(alpha_in.re), static_cast<double>(alpha_in.im)};
  const c128 beta{static_cast<double>(beta_in.re), static_cast<double>(beta_in.im)};
  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  for (int64_t b = 0; b < batch; ++b)
    gemv(s, alpha, static_cast<const c128*>(Aarray->items[b]->data), static_cast<const c128*>(xarray->items[b]->data), beta,
         static_cast<c128*>(yarray->items[b]->data));
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_zgemv_batched, "openblas loop", zgemv_batched_openblas);
